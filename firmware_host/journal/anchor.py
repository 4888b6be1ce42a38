"""The anchor: what the table already published about its journal, held outside the Pi, compared at start-up.

Two holders (docs/mqtt.md, "Lock-out"): the broker's retained `T/state` (its `epoch`, `seq` and
`journal` = records + head) and the back-office ledger's retained anchor
(`<prefix>/ledger/anchors/<table>`: `epoch`, `seq`, `records`, `head`, `round`). A journal is behind
its anchor when it does not know the anchor's epoch, ends before the anchor's `seq` or record, or holds
another hash at that record: it was rolled back, truncated, lost its WAL, or was replaced.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable

import msgspec

if TYPE_CHECKING:
    from .store import Journal

log = logging.getLogger(__name__)

class Anchor(msgspec.Struct, frozen=True):
    """One point the table published: epoch, message seq, record count and the head hash there."""

    source: str  # "the broker's retained state" / "the ledger's anchor"
    epoch: str
    seq: int
    records: int
    head: str
    round: int = 0

class _Point(msgspec.Struct):
    records: int
    head: str

class _State(msgspec.Struct):
    epoch: str
    seq: int
    journal: _Point
    round: int = 0

class _Ledger(msgspec.Struct):
    epoch: str
    seq: int
    records: int
    head: str
    round: int = 0

def from_state(payload: bytes) -> Anchor | None:
    """The anchor in a retained `state` payload; None (logged) when it carries none."""
    try:
        state = msgspec.json.decode(payload, type=_State)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        log.warning("the retained state carries no journal anchor (%s): not compared", exc)
        return None
    return Anchor("the broker's retained state", state.epoch, state.seq, state.journal.records, state.journal.head,
                  state.round)

def from_ledger(payload: bytes) -> Anchor | None:
    """The ledger's retained anchor; None (logged) when it is not one."""
    try:
        anchor = msgspec.json.decode(payload, type=_Ledger)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        log.error("the ledger's retained anchor is unreadable (%s): not compared", exc)
        return None
    return Anchor("the ledger's anchor", anchor.epoch, anchor.seq, anchor.records, anchor.head, anchor.round)

def behind(journal: Journal, anchor: Anchor, archived_hash: Callable[[int], bytes | None]) -> str | None:
    """Why `journal` is behind `anchor` (a lock-out reason), or None when it holds everything the anchor
    names. `archived_hash(n)`: record n's hash from the archives, for an anchor older than the live file."""
    where = f"{anchor.source} (epoch {anchor.epoch}, seq {anchor.seq}, record {anchor.records})"
    if anchor.epoch != journal.epoch:
        if anchor.epoch in journal.base.superseded:
            return None
        return (f"{where} names an epoch this journal (epoch {journal.epoch}) does not know: the journal was "
                "replaced or re-created")
    if anchor.seq > journal.last_seq:
        return (f"{where}: the journal's messages end at seq {journal.last_seq}: it was rolled back, truncated "
                "or lost committed writes")
    if anchor.records > journal.head_seq:
        return (f"{where}: the journal's chain ends at record {journal.head_seq}: it was rolled back, truncated "
                "or lost committed writes")
    stored = journal.record_hash(anchor.records) if anchor.records >= journal.base.records else \
        archived_hash(anchor.records)
    if stored is None:
        log.warning("%s: record %d is in no archive kept here: its hash cannot be compared", where, anchor.records)
        return None
    if stored.hex() != anchor.head:
        return f"{where}: the journal holds another record {anchor.records}: its history was rewritten"
    return None
