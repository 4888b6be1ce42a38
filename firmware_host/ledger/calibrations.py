"""A dice table's camera calibration, as its starts told it: another than the start before is a `calibration_changed`.

At every start a dice table's camera publishes what it reads with (an `events` message, kind `device`, notice
`camera_calibration`: the SHA-256 of its calibration file and of its empty-table photo, docs/vision.md "Calibration").
The Pi's disk can be edited, and some edits (the middle line moved in the file's layout) no check on the Pi can see.
So the books compare each such notice with the table's one before and after it, in journal order (the epoch's number,
then seq), whichever was booked first: each change is an anomaly, and so an alarm. A calibration redone on purpose
alarms too: the back office acknowledges it against the calibration it approved for the table.
"""

from __future__ import annotations

import json

from .anomalies import Anomaly
from .database import Session

NOTICE = "camera_calibration"
DIGESTS = ("sha256", "empty_table_sha256")


def calibration_changes(session: Session, events: list, found: list[Anomaly]) -> None:
    """Compare each newly booked `camera_calibration` notice in `events` (booked `event` messages) with its table's
    neighbours in the books; append a `calibration_changed` for each pair whose digests differ."""
    notices = [m for m in events if m.body.kind == "device" and is_notice(m.body.detail)]
    for table in sorted({m.table for m in notices}):
        told = told_calibrations(session, table)
        for m in (m for m in notices if m.table == table):
            at = next((i for i, (key, epoch, _) in enumerate(told) if (epoch, key[1]) == (m.epoch, m.seq)), None)
            if at is None:
                continue  # not in the books as a notice (another instance's row won: it compares)
            for earlier, later in ((at - 1, at), (at, at + 1)):
                if earlier >= 0 and later < len(told) and digests(told[earlier][2]) != digests(told[later][2]):
                    anomaly = changed(table, told[earlier], told[later])
                    if all(a.anomaly_id != anomaly.anomaly_id for a in found):  # both of a pair booked in one batch
                        found.append(anomaly)


def is_notice(detail) -> bool:
    return isinstance(detail, dict) and detail.get("notice") == NOTICE


def digests(detail: dict) -> tuple:
    return tuple(detail.get(name) for name in DIGESTS)


def told_calibrations(session: Session, table: str) -> list[tuple[tuple[int, int], str, dict]]:
    """The table's booked calibration notices in journal order: ((epoch number, seq), epoch, detail)."""
    return [(order, epoch, detail) for _, order, epoch, _, detail in calibration_notices(session, (table,))]


def calibration_notices(session: Session, tables: tuple[str, ...] = ()
                        ) -> list[tuple[str, tuple[int, int], str, str, dict]]:
    """The booked calibration notices of `tables` (all when empty), by table and in journal order:
    (table, (epoch number, seq), epoch, utc, detail)."""
    only = (" AND e.table_id IN (" + ", ".join("?" * len(tables)) + ")") if tables else ""
    rows = session.all(
        "SELECT e.table_id, p.ordinal, e.seq, e.epoch, e.utc, e.detail FROM events e JOIN epochs p "
        "ON p.table_id = e.table_id AND p.epoch = e.epoch WHERE e.kind = 'device' AND e.detail LIKE ?" + only,
        (f"%{NOTICE}%", *tables))
    out = []
    for table, ordinal, seq, epoch, utc, text in rows:
        detail = json.loads(text)
        if is_notice(detail):
            out.append((table, (int(ordinal), int(seq)), epoch, utc, detail))
    return sorted(out, key=lambda row: row[:2])


def changed(table: str, before: tuple, after: tuple) -> Anomaly:
    """The calibration told at `after` differs from the one told at `before` (the start before it)."""
    (_, seq_before), epoch_before, old = before
    (_, seq), epoch, new = after
    return Anomaly("calibration_changed", table, epoch, seq, {
        "previous_epoch": epoch_before, "previous_seq": seq_before,
        "previous_sha256": old.get("sha256"), "sha256": new.get("sha256"),
        "previous_empty_table_sha256": old.get("empty_table_sha256"),
        "empty_table_sha256": new.get("empty_table_sha256")},
        subject=f"{epoch_before}:{seq_before}")
