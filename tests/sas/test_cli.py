"""`tablehw sas decode | poll | sim` as a user runs them (the simulator in a real subprocess on a pty)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drivers.sas.crc import with_crc
from firmware_host.cli import main


def test_decode_checks_the_crc_and_names_the_meters(capsys):
    frame = with_crc(bytes.fromhex("01 2F 0C 00 00 00 00 00 12 34 05 00 00 00 07"))
    assert main(["sas", "decode", frame.hex(" "), "--poll", "0x2F", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["meters"] == {"coin_in": 1234, "games_played": 7} and out["crc"]["ok"]


def test_decode_reports_a_bad_crc(capsys):
    assert main(["sas", "decode", "01 71 01 FF 1F D1", "--poll", "0x71"]) == 2
    assert "does not decode replies to long poll 0x71" in capsys.readouterr().err  # refused, not guessed
    frame = with_crc(bytes.fromhex("01 1A 00 00 12 34"))
    bad = frame[:-1] + bytes([frame[-1] ^ 1])
    assert main(["sas", "decode", bad.hex(), "--poll", "0x1A"]) == 2
    assert "CRC mismatch" in capsys.readouterr().err


def test_decode_general_poll_exception(capsys):
    assert main(["sas", "decode", "51", "--poll", "general"]) == 0
    assert "handpay_pending" in capsys.readouterr().out


def test_decode_rejects_bad_input(capsys):
    assert main(["sas", "decode", "zz", "--poll", "0x1A"]) == 2
    assert "not hex bytes" in capsys.readouterr().err
    assert main(["sas", "decode", "01 1A", "--poll", "ten"]) == 2


@pytest.fixture
def simulator():
    tablehw = str(Path(sys.executable).with_name("tablehw"))
    process = subprocess.Popen([tablehw, "sas", "sim", "--port", "pty",
                                "--machines", "2", "--games-per-second", "50"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    assert " on /dev/pts/" in line, process.stderr.read()
    yield line.split(" on ")[1].split(" ")[0]
    process.terminate()
    process.wait(10)


def test_poll_a_simulated_machine(simulator, capsys):
    time.sleep(0.3)  # let it play a few games
    assert main(["sas", "poll", "--port", simulator, "--address", "2", "--timeout-ms", "250", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["framing"] == "escape" and not out["errors"]
    assert out["replies"]["0x1F"]["base_pct"] == 92.0 and out["replies"]["0x54"]["serial"] == "SIM0000002"
    assert out["replies"]["0x1C"]["meters"]["games_played"] > 0
    assert any(e["name"] == "bill_accepted" for e in out["exceptions"])


def test_poll_reports_a_silent_address(simulator, capsys):
    assert main(["sas", "poll", "--port", simulator, "--address", "9", "--timeout-ms", "30"]) == 2
    assert "no valid reply" in capsys.readouterr().err
