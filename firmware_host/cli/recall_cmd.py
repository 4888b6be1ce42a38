"""`tablehw recall --config FILE [--last 10] [--json]`: the last rounds from the table's journal."""

from __future__ import annotations

import argparse
import os

import msgspec

from ..config import load_config
from ..journal import Journal, JournalError, load_key
from ..mqtt.contract import RecalledRound
from ..recall import recall_rounds
from ..service_config import StorageSection, storage_path

ERRORS = (JournalError,)


def register(subparsers) -> None:
    parser = subparsers.add_parser("recall", help="the last rounds of a table, from its journal",
                                   description="Game recall: results (with evidence), bets and settlements of the "
                                               "last rounds, read from the journal (the service may be running).")
    parser.add_argument("--config", required=True, help="the table's TOML config (for its storage path)")
    parser.add_argument("--last", type=int, default=10, metavar="N", help="how many rounds (default 10)")
    parser.add_argument("--json", action="store_true", help="JSON, as the MQTT recall response's rounds")
    parser.set_defaults(func=run)


def render(recalled: RecalledRound) -> list[str]:
    lines = []
    for result in recalled.results:
        if result.void:
            what = f"void ({result.reason})"
        elif result.faces is not None:
            what = f"faces {'-'.join(map(str, result.faces))} total {result.total}"
        elif result.number is not None:
            what = f"number {result.number} {result.outcome.get('colour', '')}"
        elif result.cards:
            what = f"cards {result.cards} -> {result.outcome.get('winner')}"
        else:
            what = "void"
        evidence = f"  evidence {result.evidence.ref} sha256 {result.evidence.sha256[:16]}…" if result.evidence else ""
        manual = f"  MANUAL by {result.manual.who}: {result.manual.why}" if result.manual else ""
        lines.append(f"  {result.utc}  attempt {result.attempt}: {what}{evidence}{manual}")
    settlement = recalled.settlement
    if settlement is None:
        lines.append("  (in progress: not settled)")
    else:
        t = settlement.totals
        lines.append(f"  settlement{' (void: stakes returned)' if settlement.void else ''}: {len(settlement.bets)} bets,"
                     f" staked {t.staked} paid {t.paid} returned {t.returned} kept {t.kept} {settlement.currency}")
        for line in settlement.bets:
            number = f" {line.number}" if line.number is not None else ""
            lines.append(f"    {line.ticket:<24} {line.owner:<10} {line.bet + number:<16} stake {line.stake:>9} "
                         f"{line.result:<8} paid {line.paid:>9} returned {line.returned:>9}")
    for event in recalled.events:
        if event.who or event.kind in ("void", "round_voided", "supervisor_override", "dealer_action", "misdeal",
                                       "recovered"):
            who = f" by {event.who}" if event.who else ""
            why = f": {event.why}" if event.why else ""
            lines.append(f"  event {event.utc} {event.kind}{who}{why} {event.detail}")
    return lines


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    if config.table is None:
        raise JournalError(f"{args.config}: no [table] section, so no journal to recall from")
    if not 1 <= args.last <= 1000:
        raise JournalError(f"--last must be between 1 and 1000, got {args.last}")
    path = storage_path(config.table.id, config.storage or StorageSection(), os.environ.get("STATE_DIRECTORY"))
    journal_file = path / "journal.sqlite"
    if not journal_file.exists():
        raise JournalError(f"{journal_file}: no journal (has the table run yet?)")
    storage = config.storage or StorageSection()
    journal = Journal.open(journal_file, key=load_key(storage.journal_key_file), create=False)
    try:
        rounds = recall_rounds(journal, args.last)
    finally:
        journal.close()
    if args.json:
        print(msgspec.json.encode(rounds).decode())
        return 0
    if not rounds:
        print(f"{config.table.id}: no rounds in the journal")
    for recalled in rounds:
        print(f"round {recalled.round_id}")
        for line in render(recalled):
            print(line)
    return 0
