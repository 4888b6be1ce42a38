"""`tablehw config check FILE...`: every problem of each table config, with its key path and the valid choices.

Exit status 0 when every file is good, 1 when any has a problem (so `ExecStartPre=` or a deploy
script can refuse a bad file before the table restarts on it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..config import BancaFrancesaGame, CrapsGame, CussecGame, TableConfig, config_problems, parse_config, read_toml
from ..errors import ConfigError
from ..schema_check import Problem


def register(subparsers) -> None:
    parser = subparsers.add_parser("config", help="check table configuration files: every problem with its key path")
    actions = parser.add_subparsers(dest="config_command", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check", help="check table configs: schema, rule book, the files they name",
        description="Check table configuration files and list every problem with its key path and the valid "
                    "choices: the schema (docs/config.md, docs/schema/config.json), the rule book's own checks, "
                    "and that the files a config names (password, TLS, journal key, camera calibration) can be "
                    "read by whoever runs the check. Exit 0: all good; 1: some file has problems.")
    check.add_argument("files", nargs="+", type=Path, metavar="FILE")
    check.add_argument("--json", action="store_true", help="one JSON document: per file, its problems")
    check.set_defaults(func=run_check)


def check_file(path: Path) -> tuple[list[Problem], str]:
    """The problems of one config file, and a one-line description of it when it has none."""
    try:
        data = read_toml(path)
    except ConfigError as exc:
        return exc.problems, ""
    found = config_problems(data)
    if found:
        return found, ""
    config = parse_config(data, str(path))
    found = rule_book_problems(config, str(path)) + named_file_problems(config)
    if not any(p.path == "table.camera_calibration" for p in found):
        found += camera_problems(config)
    return found, describe(config)


def rule_book_problems(config: TableConfig, source: str) -> list[Problem]:
    """What the rule book refuses (a payout it does not allow, a bet it has not ...), and for a
    table that runs ([table]), a game `tablehw run` cannot run."""
    from ..games import build_dice_game, build_table_game

    try:
        if isinstance(config.game, (CrapsGame, CussecGame, BancaFrancesaGame)):
            build_dice_game(config, source)
        else:
            build_table_game(config, source)
        if config.table is not None:
            from ..rounds.setup import family_factory
            family_factory(config, source)
    except ConfigError as exc:
        return [Problem(*split_source(str(exc), source))]
    return []


def split_source(message: str, source: str) -> tuple[str, str]:
    """("key.path", "message") from a ConfigError's "source: key.path: message"."""
    rest = message.removeprefix(f"{source}: ")
    path, _, text = rest.partition(": ")
    return (path, text) if text and " " not in path else ("", rest)


def named_file_problems(config: TableConfig) -> list[Problem]:
    """Files the config names that cannot be read (the service would stop on them at start)."""
    named = []
    if config.mqtt is not None:
        named += [(f"mqtt.{key}", getattr(config.mqtt, key)) for key in
                  ("password_file", "tls_ca", "tls_cert", "tls_key")]
    if config.storage is not None:
        named.append(("storage.journal_key_file", config.storage.journal_key_file))
    if config.table is not None:
        named.append(("table.camera_calibration", config.table.camera_calibration))
    found = []
    for key, name in named:
        if not name:
            continue
        try:
            with open(name, "rb"):
                pass
        except OSError as exc:
            found.append(Problem(key, f"cannot read {name}: {exc.strerror or exc}"))
    return found


def camera_problems(config: TableConfig) -> list[Problem]:
    """What the camera would refuse at start in the calibration the config names: a file it cannot use, a camera
    leaning more off straight down than the reader was validated for (vision/camera_check.py), or an empty-table photo
    of a felt the reader was not validated on (vision/felt_check.py), each unless the config says it was checked
    (`table.camera_unvalidated_tilt`, `table.camera_unvalidated_felt`)."""
    if config.table is None or not config.table.camera_calibration:
        return []
    from vision.calibration import Calibration
    from vision.errors import CalibrationError

    from ..camera_validation import FELT_OVERRIDE, TILT_OVERRIDE, felt_refused, tilt_refused

    try:
        calibration = Calibration.load(config.table.camera_calibration)
        empty = calibration.empty_table_frame()
        felt = None if empty is None else felt_refused(empty, calibration, config.table.camera_unvalidated_felt)
    except CalibrationError as exc:
        return [Problem("table.camera_calibration", str(exc))]
    tilt = tilt_refused(calibration, config.table.camera_unvalidated_tilt)
    return [Problem("table.camera_calibration", f"{why}; {override}")
            for why, override in ((tilt, TILT_OVERRIDE), (felt, FELT_OVERRIDE)) if why is not None]


def describe(config: TableConfig) -> str:
    game = type(config.game).__struct_config__.tag
    table = f"table {config.table.id}, " if config.table else ""
    return f"{table}{game} ({config.game.rulebook}), {config.money.currency}"


def run_check(args: argparse.Namespace) -> int:
    results = [(path, *check_file(path)) for path in args.files]
    if args.json:
        print(json.dumps({"files": [{"file": str(path), "ok": not found,
                                     "problems": [{"path": p.path, "message": p.message} for p in found]}
                                    for path, found, _ in results]}, indent=2))
    else:
        for path, found, what in results:
            if not found:
                print(f"{path}: ok: {what}")
                continue
            print(f"{path}: {len(found)} problem{'s' if len(found) > 1 else ''}:")
            for problem in found:
                print(f"  {problem}")
    return 1 if any(found for _, found, _ in results) else 0
