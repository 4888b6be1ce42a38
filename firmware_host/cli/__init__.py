"""`tablehw` command line: one subcommand per module, each with `register(subparsers)`."""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import TableError
from ..rules.errors import RulesError

# Subcommand modules (in this package). Each defines register(subparsers) and may define
# ERRORS, a tuple of exception types it reports as a user error (exit 2) rather than a crash.
COMMANDS = ["edge", "settle", "board", "run", "recall", "sas", "sim", "wheel", "devices", "vision", "ledger"]


def build_parser() -> tuple[argparse.ArgumentParser, tuple[type[BaseException], ...]]:
    parser = argparse.ArgumentParser(prog="tablehw", description="Live casino table controller.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    errors: tuple[type[BaseException], ...] = (TableError, RulesError)
    for name in COMMANDS:
        module = importlib.import_module(f"{__name__}.{name}_cmd")
        module.register(sub)
        errors += getattr(module, "ERRORS", ())
    return parser, errors


def main(argv: list[str] | None = None) -> int:
    parser, errors = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except errors as exc:
        print(f"tablehw {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
