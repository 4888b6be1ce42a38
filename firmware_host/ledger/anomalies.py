"""Anomalies: whatever does not add up is a row in `anomalies` and an alarm on MQTT, never a silent overwrite.

An anomaly's id is the SHA-256 of its kind and subject, so the same finding made twice (a redelivery,
two instances, a retried transaction) is one row. The warden publishes each row once on
`<prefix>/ledger/alarms` (QoS 1) and marks it alarmed on the broker's acknowledgement.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from msgspec import Struct

from .database import Session

MAX_EVIDENCE_BYTES = 65_536

KINDS = {
    "malformed": "a payload that is not the contract's (not booked; its bytes kept as evidence)",
    "oversized": "a payload larger than the ledger books",
    "table_mismatch": "a payload naming another table (or machine) than its topic",
    "type_mismatch": "a payload of another type than its topic carries",
    "seq_replayed": "a (table, epoch, seq) seen again with other bytes: the first booking stands",
    "epoch_change": "a table started a new journal epoch",
    "chain_behind": "a state whose journal chain is shorter than an earlier state's in the same epoch",
    "chain_forked": "two states at the same chain length with different heads",
    "chain_conflict": "prev_seq links that contradict each other (a message between two linked ones, or "
                      "a prev_seq naming a message on another topic)",
    "round_settled_twice": "a second settlement for a round already booked: the first stands",
    "settlement_inconsistent": "a settlement whose totals are not the sum of its bets, or with negative money",
    "gap_unfillable": "messages the ledger lacks that the controller can no longer give",
    "recall_mismatch": "a controller's messages response that does not match what was asked",
    "calibration_changed": "a dice table's camera started on another calibration (file or empty-table photo) than at "
                           "its start before",
}


@dataclass(frozen=True)
class Anomaly:
    kind: str
    table: str | None
    epoch: str | None
    seq: int | None
    detail: dict[str, Any] = field(default_factory=dict)
    evidence: bytes | None = None
    subject: str = ""  # what else tells two findings of one kind at one seq apart (a payload hash ...)

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind

    @property
    def anomaly_id(self) -> str:
        key = f"{self.kind}|{self.table}|{self.epoch}|{self.seq}|{self.subject}"
        return hashlib.sha256(key.encode()).hexdigest()


class LedgerAlarm(Struct, tag_field="type", tag="ledger_alarm", omit_defaults=False):
    """Published (QoS 1, not retained) on `<prefix>/ledger/alarms` for every anomaly."""

    id: str
    kind: str
    table: str | None
    epoch: str | None
    seq: int | None
    detected_utc: str
    detected_by: str
    detail: dict[str, Any]
    schema: int = 1


def evidence_text(data: bytes | None) -> str | None:
    if data is None:
        return None
    return data[:MAX_EVIDENCE_BYTES].decode("utf-8", errors="backslashreplace")


def record(session: Session, anomalies: list[Anomaly], instance: str, utc: str) -> None:
    """Insert findings not yet on record (the first detection's time and instance stand)."""
    session.executemany(
        "INSERT INTO anomalies (anomaly_id, kind, table_id, epoch, seq, detected_utc, detected_by, detail, evidence) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (anomaly_id) DO NOTHING",
        [(a.anomaly_id, a.kind, a.table, a.epoch, a.seq, utc, instance, json.dumps(a.detail, sort_keys=True),
          evidence_text(a.evidence)) for a in anomalies])
