"""`tablehw run --config FILE [--simulate [--seed N]] [--mqtt URL] [--rounds N]`: run one table.

Prints where the table starts from (a new journal, or an earlier run's it carries on from; the
simulation's seed), one line per round (run_report.py) and a summary when it stops.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from drivers.errors import DeviceError

from ..config import load_config

ERRORS = (DeviceError,)  # a device that cannot be set up: exit 2, systemd restarts the table


def register(subparsers) -> None:
    parser = subparsers.add_parser("run", help="run one table (the service systemd starts)",
                                   description="Run one table: rounds, journal, MQTT. Prints one line per round "
                                               "and a summary when it stops.")
    parser.add_argument("--config", required=True, help="the table's TOML config")
    parser.add_argument("--simulate", action="store_true",
                        help="simulated devices, dealer and betting terminals instead of hardware")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="with --simulate: play this seed (default [simulation] seed, else a new one each run)")
    parser.add_argument("--mqtt", metavar="URL", help="broker URL, overriding [mqtt] url (mqtt://host:port)")
    parser.add_argument("--rounds", type=int, metavar="N", help="stop after N rounds")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.set_defaults(func=run)


def earlier_round(journal: Path, key_file: str | None) -> int | None:
    """The last round an existing journal holds (None: no journal yet, or one the service must judge)."""
    from ..errors import ConfigError
    from ..journal import Journal, JournalError, load_key

    if not journal.exists():
        return None
    try:
        opened = Journal(journal, key=load_key(key_file), create=False)
    except (JournalError, ConfigError):
        return None  # the service's start-up check decides (a corrupt journal locks the table out)
    try:
        return next(iter(opened.rounds(1)), 0)
    finally:
        opened.close()


def starting_lines(service, simulate: bool) -> list[str]:
    config = service.config
    lines = [f"table {service.table_id}: {type(config.game).__struct_config__.tag} ({config.game.rulebook}), "
             f"amounts in {config.money.currency}{', simulated' if simulate else ''}"]
    if simulate:
        lines.append(f"simulation seed {service.sim.seed} (replay with --seed {service.sim.seed})")
    if config.metrics is not None:
        lines.append(f"metrics: http://{config.metrics.address}:{config.metrics.port}/metrics (docs/metrics.md)")
    journal = service.storage / "journal.sqlite"
    last = earlier_round(journal, config.storage.journal_key_file if config.storage else None)
    if last is None and journal.exists():
        lines.append(f"journal {journal}: an earlier one, not readable here: the start-up check judges it")
    elif not last:
        lines.append(f"journal {journal}: {'new' if last is None else 'no round played yet'}")
    else:
        fresh = f"; remove {service.storage} to start afresh" if simulate else ""
        lines.append(f"journal {journal}: carrying on from an earlier run (last round {last}): the board, the "
                     f"game's state and the bets on the layout carry over{fresh}")
    return lines


def run(args: argparse.Namespace) -> int:
    from ..service import TableService
    from .run_report import RunReport

    logging.basicConfig(level=getattr(logging, args.log_level), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.rounds is not None and args.rounds < 1:
        raise SystemExit("tablehw run: error: --rounds must be at least 1")
    if args.seed is not None and not args.simulate:
        raise SystemExit("tablehw run: error: --seed needs --simulate (it seeds the simulated table)")
    config = load_config(args.config)
    report = RunReport(config, sys.stdout)
    service = TableService(config, args.config, mqtt_url=args.mqtt, simulate=args.simulate, rounds=args.rounds,
                           observer=report, seed=args.seed)
    for line in starting_lines(service, args.simulate):
        report.say(line)
    status = service.run()
    if status != 0:
        return status
    for line in report.summary(service.table_id, service.storage, service.topics.board, args.config,
                               service.sim.seed if args.simulate else None):
        report.say(line)
    return status
