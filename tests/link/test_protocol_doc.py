"""docs/firmware-protocol.md is the contract: its byte examples must be what the codec produces."""

from __future__ import annotations

import re
from pathlib import Path

from drivers.protocol import decode_frame, encode_frame
from drivers.protocol.frame import MAX_BLOCK, frame_body

DOC = Path(__file__).resolve().parents[2] / "docs" / "firmware-protocol.md"


def examples() -> list[tuple[str, bytes, bytes]]:
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(r"^(\w+)[^\n]*\n  body: ([0-9a-f ]+)\n  wire: ([0-9a-f ]+)$", text, re.M)
    return [(name, bytes.fromhex(body), bytes.fromhex(wire)) for name, body, wire in found]


def test_every_byte_example_in_the_spec_matches_the_codec():
    cases = examples()
    assert {name for name, _, _ in cases} == {"HELLO", "IDENTITY", "EVENT", "ACK", "COMMAND", "RESULT", "HEARTBEAT"}
    for name, body, wire in cases:
        frame = decode_frame(wire)
        assert frame_body(frame) == body, name
        assert encode_frame(frame) == wire, name


def test_spec_states_the_overrun_limit_the_decoder_uses():
    assert f"More than {MAX_BLOCK} bytes" in DOC.read_text(encoding="utf-8")
