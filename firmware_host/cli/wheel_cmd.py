"""`tablehw wheel decode`: a wheel's read-protocol lines on stdin -> one JSON object per change on stdout."""

from __future__ import annotations

import argparse
import sys

from drivers.cammegh import decode_lines
from drivers.errors import DeviceError
from drivers.events import to_json

ERRORS = (DeviceError,)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("wheel", help="roulette wheel tools")
    wheel_sub = p.add_subparsers(dest="wheel_command", required=True, metavar="ACTION")
    d = wheel_sub.add_parser("decode", help="decode a wheel's status lines from stdin, one JSON object per change")
    d.add_argument("--protocol", choices=["cammegh"], required=True, help="the wheel's status protocol")
    d.add_argument("--name", default="wheel", help="device name put in each event (default: wheel)")
    d.add_argument("--min-revolutions", type=int, default=3, help="fewer ball revolutions is a no_spin")
    d.set_defaults(func=run_decode)


def run_decode(args: argparse.Namespace) -> int:
    """Bad lines are reported on stderr by line number and skipped; the exit status is 1 if there were any.

    stdin is read as bytes, line by line: the wheel speaks ASCII, and a byte that is not (line noise,
    the wrong baud rate) is the protocol's error for that line, whatever the terminal's locale.
    """
    rejected = 0
    for number, outcome in decode_lines(sys.stdin.buffer, name=args.name, min_revolutions=args.min_revolutions):
        if isinstance(outcome, Exception):
            rejected += 1
            print(f"tablehw wheel decode: line {number}: {outcome}", file=sys.stderr)
            continue
        for event in outcome:
            sys.stdout.write(to_json(event).decode() + "\n")
        sys.stdout.flush()
    return 1 if rejected else 0
