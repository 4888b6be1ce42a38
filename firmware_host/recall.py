"""Game recall and messages since a seq, read back from the journal (docs/mqtt.md, `recall` and `messages`).

Recall: the last rounds (results with evidence, bets, settlement, events), served over MQTT and by
`tablehw recall --config FILE [--last 10]`. Messages: every message the table published on some of its
topics after a `seq`, exact bytes, bounded in count and size (the ledger fills its gaps with it).
"""

from __future__ import annotations

import msgspec

from .journal import Journal
from .mqtt.contract import (MESSAGE_TOPICS, EventPayload, MessageCopy, MessagesRequest, MessagesResponse, RecalledRound,
                            ResultPayload, SettlementPayload)

MESSAGES_MAX_BYTES = 256_000  # about: one message bigger than this is still sent, alone


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


def messages_since(journal: Journal, table_base: str, request: MessagesRequest, response: MessagesResponse
                   ) -> MessagesResponse:
    """Fill `response` (table, utc already set) with the messages `request` asks for: in seq order, at most
    `limit` and about 256 kB; `next_after` is the last seq covered (the newest one when nothing is left)."""
    first = journal.first_available
    done = msgspec.structs.replace(response, after=request.after, first_available=first)
    if request.epoch not in (None, journal.epoch):
        return msgspec.structs.replace(done, next_after=request.after, reason="unknown_epoch",
                                       message=f"epoch {request.epoch} is not this journal's ({journal.epoch})")
    names = request.topics or list(MESSAGE_TOPICS)
    newest = journal.last_seq
    rows = journal.published(request.after, [f"{table_base}/{name}" for name in names], request.limit + 1)
    copies, size = [], 0
    for seq, topic, payload in rows[:request.limit]:
        text = payload.decode()
        size += len(text) + text.count('"') + text.count("\\") + len(topic) + 40  # as it is escaped on the wire
        if copies and size > MESSAGES_MAX_BYTES:
            break
        copies.append(MessageCopy(seq, topic, text))
    more = len(copies) < len(rows)
    next_after = copies[-1].seq if more else max(newest, request.after)
    return msgspec.structs.replace(done, messages=copies, next_after=next_after, more=more)
