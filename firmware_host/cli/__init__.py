"""`tablehw` command line: one subcommand per module (`<name>_cmd`, each with `register(subparsers)`).

Only the module of the command being run is imported, so `tablehw --help` and the light commands
never load OpenCV or the device stack; the others are listed from `COMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import PackageNotFoundError, version

from ..errors import TableError
from ..rules.errors import RulesError

# Each command's one-line help, in the order `tablehw --help` lists them. A module may define ERRORS,
# a tuple of exception types it reports as a user error (exit 2) rather than a crash.
COMMANDS = {
    "run": "run one table (the service systemd starts)",
    "config": "check table configuration files: every problem with its key path",
    "edge": "exact odds, payouts and house edge of every bet in a config",
    "settle": "settle throws against bets and print every outcome",
    "board": "the board a sequence of results gives (roads, statistics, history); "
             "with --publish, play them to a broker as a stand-in table",
    "recall": "the last rounds of a table, from its journal",
    "journal": "verify, archive or start a new epoch of a table's journal",
    "devices": "device tools",
    "vision": "read dice in images, score a dataset, calibrate the camera",
    "sim": "run a device simulator on a pty (for tests, `make run`, bench checks)",
    "wheel": "roulette wheel tools",
    "sas": "SAS slot machines: poll, decode, simulate, serve",
    "ledger": "the back office: book every round of every table (docs/ledger.md)",
}


def installed_version() -> str:
    try:
        return version("tablehw")
    except PackageNotFoundError:
        return "unknown (not installed)"


def chosen_command(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> tuple[argparse.ArgumentParser, tuple[type[BaseException], ...]]:
    """The parser for `argv`: the command it names in full, the others as names with their help.
    Without `argv`, every command in full (for tools and tests that parse many command lines)."""
    parser = argparse.ArgumentParser(prog="tablehw", description="Live casino table controller.")
    parser.add_argument("--version", action="version",
                        version=f"tablehw {installed_version()} (Python {sys.version.split()[0]})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = None if argv is None else chosen_command(argv)
    errors: tuple[type[BaseException], ...] = (TableError, RulesError)
    for name, help_text in COMMANDS.items():
        if argv is not None and name != chosen:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(f"{__name__}.{name}_cmd")
        module.register(sub)
        errors += getattr(module, "ERRORS", ())
    return parser, errors


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser, errors = build_parser(argv)
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
