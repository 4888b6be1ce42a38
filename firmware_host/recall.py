"""Game recall: the last rounds (results with evidence, bets, settlement, events) read back from the journal.

Served over MQTT (`T/recall`, docs/mqtt.md) and by `tablehw recall --config FILE [--last 10]`.
"""

from __future__ import annotations

import msgspec

from .journal import Journal
from .mqtt.contract import EventPayload, RecalledRound, ResultPayload, SettlementPayload


def recall_rounds(journal: Journal, last: int = 10) -> list[RecalledRound]:
    """The newest `last` rounds, newest first (a round still in progress has no settlement yet)."""
    out = []
    for round_no in journal.rounds(last):
        results, bets, events, settlement, table = [], [], [], None, ""
        for record in journal.records(round=round_no, kinds=("result", "bet_accepted", "event", "settlement")):
            if record.kind == "result":
                results.append(msgspec.json.decode(record.body, type=ResultPayload))
            elif record.kind == "bet_accepted":
                bets.append(record.data())
            elif record.kind == "event":
                events.append(msgspec.json.decode(record.body, type=EventPayload))
            else:
                settlement = msgspec.json.decode(record.body, type=SettlementPayload)
        for payload in (*results, *events):
            table = table or payload.table
        out.append(RecalledRound(round_no, f"{table}-{round_no:08d}" if table else str(round_no), results, bets,
                                 settlement, events))
    return out
