"""A `tablehw` subcommand called in-process thousands of times, as `tablehw` calls it, for the CLI fuzz tests.

`firmware_host.cli.main` builds its parser on every call (about 6 ms); the fuzz tests run ten thousand
inputs, so the parser and the tuple of errors `main` reports as a clear message (exit 2) are built once
here, and each input goes through `args.func(args)` exactly as `main` runs it. Anything else a command
raises escapes `run` and fails the test with its traceback, which is the point.
"""

from __future__ import annotations

import contextlib
import io
import sys
from dataclasses import dataclass

from firmware_host.cli import build_parser


@dataclass(frozen=True)
class CliOutcome:
    code: int
    out: str
    err: str


class InProcessCli:
    def __init__(self) -> None:
        self.parser, self.errors = build_parser()

    def run(self, argv: list[str], stdin: bytes = b"") -> CliOutcome:
        out, err = io.StringIO(), io.StringIO()
        saved_stdin = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict")  # a UTF-8 locale
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    args = self.parser.parse_args(argv)
                except SystemExit as exc:  # argparse's own usage error
                    return CliOutcome(int(exc.code or 0), out.getvalue(), err.getvalue())
                try:
                    code = int(args.func(args) or 0)
                except self.errors as exc:
                    print(f"tablehw {args.command}: error: {exc}", file=sys.stderr)
                    code = 2
        finally:
            sys.stdin = saved_stdin
        return CliOutcome(code, out.getvalue(), err.getvalue())
