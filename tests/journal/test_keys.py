"""The journal key file: binary as `head -c 32 /dev/urandom` writes it, or hex text; clear errors otherwise."""

from __future__ import annotations

import os

import pytest

from firmware_host.errors import ConfigError
from firmware_host.journal import load_key


def test_binary_key_is_taken_as_it_is(tmp_path):
    raw = os.urandom(32)
    (tmp_path / "k").write_bytes(raw)
    assert load_key(tmp_path / "k") == raw


def test_binary_key_ending_in_a_newline_byte_keeps_it(tmp_path):
    raw = os.urandom(31) + b"\n"
    (tmp_path / "k").write_bytes(raw)
    assert load_key(tmp_path / "k") == raw


def test_hex_key_is_decoded(tmp_path):
    raw = os.urandom(32)
    (tmp_path / "k").write_text(f"  {raw.hex()}\n")
    assert load_key(tmp_path / "k") == raw


@pytest.mark.parametrize("content, words", [(b"", "holds 0 bytes"), (b"short", "holds 5 bytes")])
def test_short_key_is_refused_naming_the_file(tmp_path, content, words):
    (tmp_path / "k").write_bytes(content)
    with pytest.raises(ConfigError, match=f"{tmp_path / 'k'} {words}"):
        load_key(tmp_path / "k")


def test_missing_key_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match="cannot read .*nope"):
        load_key(tmp_path / "nope")
