"""`tablehw wheel decode` fed 10,000 hostile inputs: only the protocol's own errors, never a traceback.

Inputs are mutations (bit flips, random bytes, cuts, insertions, non-ASCII and control bytes) of real
wheel lines (studio-sdp-mirror's logs; the SlingShot 2 read-protocol codec's line types) and plain random
bytes, from a seeded generator so a failure is reproducible. The bulk runs the command's entry function
in-process with stdin decoded as strict UTF-8 (a Raspberry Pi OS locale); a few real subprocess runs show
that nothing but the error lines reaches the terminal.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from drivers.events import DeviceEvent

from .cli_harness import InProcessCli

SEED = 19
INPUTS = 10_000
ARGV = ["wheel", "decode", "--protocol", "cammegh"]
REAL_LINES = [
    b"*X;1;011;34;0;157;0", b"*X;2;011;34;0;078;1", b"*X;3;011;34;0;141;1", b"*X;4;011;34;0;139;1", b"27",
    b"*X;5;011;27;0;136;1", b"*X;2;013;16;0;152;0", b" 6", b"*X;5;013; 6;0;177;1", b"*X;2;001;  ;0;174;0",
    b"*X;4;001;  ;4;000;0", b"*X;6;017; 0;0;004;0", b"*P 1", b"*P OK", b"*P NO", b"*o 1158", b"*o BUSY",
    b"*O 6 1 60 1158", b"*u OK", b"*T s 14.0 17.50000", b"00;0", b"*Y;3;x50", b"*F 12", b"*X;5;002;12;F;146;1",
]
SEPARATORS = [b"\r\n", b"\n", b"\r", b""]
ERROR_LINE = re.compile(r"tablehw wheel decode: line \d+: .+")
EVENT_TYPES = {cls.__struct_config__.tag for cls in DeviceEvent.__subclasses__()}


def mutate(rng: random.Random, data: bytearray) -> bytearray:
    for _ in range(rng.randint(0, 4)):
        if not data:
            break
        where = rng.randrange(len(data))
        choice = rng.randrange(6)
        if choice == 0:
            data[where] ^= 1 << rng.randrange(8)
        elif choice == 1:
            data[where] = rng.randrange(256)
        elif choice == 2:
            data[where:where] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif choice == 3:
            del data[where:where + rng.randint(1, 6)]
        elif choice == 4:
            data[where:where] = rng.choice([b"\xff", b"\xc3\xa9", b"\x00", b"*", b";", b"\x1b[2J"])
        else:
            del data[where:]
    return data


def hostile_input(rng: random.Random) -> bytes:
    if rng.random() < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 80)))
    lines = [rng.choice(REAL_LINES) for _ in range(rng.randint(1, 6))]
    data = bytearray(b"".join(line + rng.choice(SEPARATORS) for line in lines))
    return bytes(mutate(rng, data))


def check(outcome) -> None:
    assert outcome.code in (0, 1), outcome
    for line in outcome.err.splitlines():
        assert ERROR_LINE.fullmatch(line), line
    for line in outcome.out.splitlines():
        event = json.loads(line)
        assert event["type"] in EVENT_TYPES
        if event["type"] == "wheel_result" and event["number"] is not None:
            assert 0 <= event["number"] <= 36


def test_ten_thousand_hostile_inputs_give_only_the_protocols_errors():
    cli, rng = InProcessCli(), random.Random(SEED)
    errors = events = 0
    for _ in range(INPUTS):
        outcome = cli.run(ARGV, hostile_input(rng))
        check(outcome)
        errors += len(outcome.err.splitlines())
        events += len(outcome.out.splitlines())
    assert errors > INPUTS // 4 and events > INPUTS // 4  # the inputs reached both sides of the decoder


def run_tablehw(argv: list[str], stdin: bytes) -> subprocess.CompletedProcess:
    tablehw = str(Path(sys.executable).with_name("tablehw"))
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"}
    return subprocess.run([tablehw, *argv], input=stdin, capture_output=True, timeout=60, env=env)


def test_a_non_ascii_byte_in_a_real_run_is_a_line_error_and_the_rest_is_decoded():
    stdin = b"*X;4;001;00;0;146;1\n*X;5;001;17;0;146;1\n\xff\xfe garbage\n*X;2;002;17;0;146;0\n"
    result = run_tablehw(ARGV, stdin)
    assert result.returncode == 1
    assert result.stderr.decode() == ("tablehw wheel decode: line 3: byte 0xff at column 1 is not printable "
                                      "ASCII: not a wheel line\n")
    types = [json.loads(line)["type"] for line in result.stdout.decode().splitlines()]
    assert types == ["wheel_phase", "wheel_result", "wheel_phase"]


def test_random_bytes_in_real_runs_never_print_a_traceback():
    rng = random.Random(SEED)
    for _ in range(3):
        result = run_tablehw(ARGV, bytes(rng.randrange(256) for _ in range(4096)))
        assert result.returncode in (0, 1) and b"Traceback" not in result.stderr
        assert all(ERROR_LINE.fullmatch(line) for line in result.stderr.decode().splitlines())
