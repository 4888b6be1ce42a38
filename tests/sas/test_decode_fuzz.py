"""`tablehw sas decode` fed 10,000 hostile inputs: a decoded reply or the protocol's own error, never a traceback.

The replies are real SAS frames (CRC-16/KERMIT, PUBLISHED.md's check value; the simulator's encoder) cut,
bit-flipped, lengthened and re-spelt, plus random hex and text that is not hex at all (non-UTF-8 argv bytes
arrive as surrogates), against polls and addresses in and out of range (1-127, one command byte), from a
seeded generator. The bulk runs the command's entry function in-process; a few real subprocess runs show
that only one error line reaches the terminal.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from drivers.sas.replies import (Busy, ExceptionReply, ExtendedMetersReply, HandpayReply, MachineInfoReply,
                                 MeterReply, Nack, ProgressiveWinReply, SelectedGameReply, SelectedMetersReply,
                                 VersionReply, encode_reply)
from tests.drivers.cli_harness import InProcessCli

SEED = 19
INPUTS = 10_000
REPLIES = {  # the poll each one answers -> the reply
    "general": ExceptionReply(0x51), "0x01": Nack(1), "0x1B": Busy(3),
    "0x1A": MeterReply(1, 0x1A, {"current_credits": 1234}), "0x11": MeterReply(2, 0x11, {"coin_in": 99_999_999}),
    "0x19": MeterReply(1, 0x19, {"coin_in": 1, "coin_out": 2, "total_drop": 3, "jackpot": 4, "games_played": 5}),
    "0x18": MeterReply(1, 0x18, {"games_since_power_reset": 12, "games_since_slot_door_closure": 3}),
    "0x2F": SelectedMetersReply(1, 0, {0x00: 1234, 0x05: 7, 0x0D: 150_00}),
    "0x6F": ExtendedMetersReply(4, 0x6F, 1, {0x00: (5, 123), 0x1FF: (0, 0)}),
    "0x1b": HandpayReply(1, 0, 0x40, 12000, 0, 0), "0x55": SelectedGameReply(1, 3),
    "0x85": ProgressiveWinReply(1, 7, 1, 260000), "0x1F": MachineInfoReply(1, "SM", "000", 1, 10, 7, 0, "PT0001", 9250),
    "0x54": VersionReply(5, "602", "SN-0001"),
}
FRAMES = [(poll, encode_reply(reply)) for poll, reply in REPLIES.items()]
FRAMES.append(("0x71", bytes.fromhex("01 71 01 FF 1F D0")))  # PUBLISHED.md's 0x71 frame: a poll, refused
POLLS = ["general", "gp", "GENERAL", "0x1A", "0x11", "0x19", "0x18", "0x2F", "0x6F", "0xAF", "0x1B", "0x55", "0x85",
         "0x1F", "0x54", "0x01", "0x02", "0x71", "1a", "0x", "", "ten", "-0x1", "0x100", "0x1FF", "9" * 40,
         "\udcff\udcfe", "0x1A\x00", "０x1A"]
NOT_HEX = ["", " ", "zz", "0x01 1a", "01 1", "\udcff\udcfe", "01\x001A", "é1", "１２", "01 -1A", "nan", "--"]


def spelt(rng: random.Random, data: bytes) -> str:
    text = rng.choice([" ", ":", ""]).join(f"{b:02x}" for b in data)
    return text.upper() if rng.random() < 0.5 else text


def hostile_frame(rng: random.Random) -> tuple[str, str]:
    """(hex text, the poll it answers)."""
    poll, frame = rng.choice(FRAMES)
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(NOT_HEX) + rng.choice(["", "00", " \udcff"]), poll
    if roll < 0.25:
        return spelt(rng, bytes(rng.randrange(256) for _ in range(rng.randint(0, 48)))), poll
    data = bytearray(frame)
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        where = rng.randrange(len(data) + 1)
        choice = rng.randrange(4)
        if choice == 0 and data:
            data[min(where, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif choice == 1:
            del data[where:]
        elif choice == 2:
            data[where:where] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 3)))
        else:
            data[0:1] = bytes([rng.randrange(256)])
    return spelt(rng, bytes(data)), poll


def hostile_argv(rng: random.Random) -> list[str]:
    text, poll = hostile_frame(rng)
    argv = ["sas", "decode", text, "--poll", poll if rng.random() < 0.6 else rng.choice(POLLS)]
    roll = rng.random()
    if roll < 0.5:
        argv += ["--address", str(rng.choice([1, 1, 1, 2, 4, 5, 0, 127, 128, 1000, -1, rng.randint(-5, 1100)]))]
    elif roll < 0.55:
        argv += ["--address", rng.choice(["abc", "", "1e3", "\udcff", "0x10"])]
    if rng.random() < 0.3:
        argv.append("--json")
    return argv


def test_ten_thousand_hostile_inputs_give_a_reply_or_a_clear_error():
    cli, rng = InProcessCli(), random.Random(SEED)
    decoded = refused = 0
    for _ in range(INPUTS):
        argv = hostile_argv(rng)
        outcome = cli.run(argv)
        if outcome.code == 0:
            decoded += 1
            assert outcome.out and not outcome.err
            if "--json" in argv:
                assert json.loads(outcome.out)["type"]
        else:
            refused += 1
            assert outcome.code == 2 and not outcome.out, (argv, outcome)
            lines = outcome.err.splitlines()
            # ours: one line naming the command; argparse's: its usage, then one error line
            assert lines[-1].startswith(("tablehw sas: error: ", "tablehw sas decode: error: ")), (argv, outcome)
    assert decoded > INPUTS // 20 and refused > INPUTS // 2  # both outcomes were exercised


def run_tablehw(argv: list) -> subprocess.CompletedProcess:
    tablehw = str(Path(sys.executable).with_name("tablehw"))
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    return subprocess.run([tablehw, *argv], capture_output=True, timeout=60, env=env)


def test_an_address_out_of_range_is_the_protocols_error_in_a_real_run():
    result = run_tablehw(["sas", "decode", "01 1A 00 00 12 34 00 00", "--poll", "0x1A", "--address", "1000"])
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr == b"tablehw sas: error: SAS address 1000 is outside 1..127\n"


def test_non_utf8_and_out_of_range_arguments_in_real_runs():
    for argv, message in [
        ([b"sas", b"decode", b"01 \xff\xfe", b"--poll", b"0x1A"], b"is not hex bytes"),
        ([b"sas", b"decode", b"01 1A", b"--poll", b"0x\xff"], b"give a long poll as 0xNN"),
        ([b"sas", b"decode", b"01 1A", b"--poll", b"0x1FF"], b"give a long poll as 0xNN (one byte)"),
        ([b"sas", b"decode", b"00 1A 00 00", b"--poll", b"0x1A"], b"is not a machine address (1..127)"),
    ]:
        result = run_tablehw(argv)
        assert result.returncode == 2 and b"Traceback" not in result.stderr
        assert result.stderr.startswith(b"tablehw sas: error: ") and message in result.stderr
        assert result.stderr.count(b"\n") == 1
