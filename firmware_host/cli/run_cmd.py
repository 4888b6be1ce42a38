"""`tablehw run --config FILE [--simulate] [--mqtt mqtt://host:port] [--rounds N]`: run one table."""

from __future__ import annotations

import argparse
import logging
import sys

from drivers.errors import DeviceError

from ..config import load_config
from ..rounds.engine import RoundSummary

ERRORS = (DeviceError,)  # a device that cannot be set up: exit 2, systemd restarts the table


def register(subparsers) -> None:
    parser = subparsers.add_parser("run", help="run one table (the service systemd starts)",
                                   description="Run one table: rounds, journal, MQTT. Prints one line per round.")
    parser.add_argument("--config", required=True, help="the table's TOML config")
    parser.add_argument("--simulate", action="store_true",
                        help="simulated devices, dealer and betting terminals instead of hardware")
    parser.add_argument("--mqtt", metavar="URL", help="broker URL, overriding [mqtt] url (mqtt://host:port)")
    parser.add_argument("--rounds", type=int, metavar="N", help="stop after N rounds")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.set_defaults(func=run)


def describe(summary: RoundSummary) -> str:
    """One line per round: the result and what the bets did."""
    f = summary.fields
    if summary.void:
        what = f"VOID ({summary.reason})"
    elif "faces" in f:
        what = f"{'-'.join(map(str, f['faces']))} = {f['total']}"
        outcome = f.get("outcome", {})
        if "point_after" in outcome:
            what += f"  point {outcome['point_before'] or '-'} -> {outcome['point_after'] or '-'}  shooter {outcome['shooter_after']}"
        elif outcome.get("chance"):
            what += f"  {outcome['chance']}"
    elif "number" in f:
        o = f.get("outcome", {})
        what = f"{f['number']} {o.get('colour', '')} {o.get('direction') or ''}".rstrip()
    elif "cards" in f and "dealer" in f["cards"]:  # blackjack: the dealer's hand, each box's hands
        o, d = f["outcome"], f["outcome"]["dealer"]
        boxes = " ".join(f"{b['box']}:{'/'.join(str(h['total']) for h in b['hands'])}" for b in o["boxes"])
        what = (f"dealer {' '.join(d['cards'])} ({d['total']}{' bust' if d['bust'] else ''}"
                f"{' blackjack' if d['blackjack'] else ''})  boxes {boxes}")
    elif "cards" in f:
        o = f.get("outcome", {})
        what = (f"player {' '.join(f['cards']['player'])} ({o.get('player_points')})  banker "
                f"{' '.join(f['cards']['banker'])} ({o.get('banker_points')})  -> {o.get('winner')}")
    else:
        what = "?"
    attempts = f"  [{summary.attempts} attempts]" if summary.attempts > 1 else ""
    return (f"{summary.round_id}  {what}{attempts}  | {summary.bets} bets: paid {summary.paid}"
            f" kept {summary.kept} returned {summary.returned}")


def run(args: argparse.Namespace) -> int:
    from ..service import TableService

    logging.basicConfig(level=getattr(logging, args.log_level), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = load_config(args.config)
    if args.rounds is not None and args.rounds < 1:
        raise SystemExit("tablehw run: --rounds must be at least 1")

    def line(summary: RoundSummary) -> None:
        print(describe(summary), flush=True)

    return TableService(config, args.config, mqtt_url=args.mqtt, simulate=args.simulate, rounds=args.rounds,
                        on_round=line).run()
