"""The report's camera calibrations: what each dice table reads with, and the changes the books found in the period.

At every start a dice table's camera tells its calibration (the SHA-256 of the calibration file and of its
empty-table photo: docs/vision.md "Calibration"); the books compare each start with the one before
(`calibrations.py`, anomaly `calibration_changed`). The report lists, per table, the calibration told at its last start
before the period's end (for the back office to compare with the digests approved at installation, which
`tablehw vision calibrate` printed) and every change told in the period, with when its alarm went out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .calibrations import NOTICE, is_notice
from .database import Session


@dataclass(frozen=True)
class CalibrationTold:
    """A start's calibration: when (the controller's utc) and where in the journal it was told, its digests."""

    utc: str
    epoch: str
    seq: int
    sha256: str | None
    empty_table_sha256: str | None


@dataclass(frozen=True)
class CalibrationChange:
    """A start on another calibration than the start before it (a `calibration_changed` anomaly)."""

    told: CalibrationTold
    previous_sha256: str | None
    previous_empty_table_sha256: str | None
    alarmed_utc: str | None  # when the alarm was acknowledged by the broker (None: not yet sent)


@dataclass(frozen=True)
class TableCalibrations:
    table: str
    in_use: CalibrationTold  # told at the table's last start before the period's end
    changes: tuple[CalibrationChange, ...]  # told in the period, in journal order


def calibrations_of(session: Session, start: str, end: str, tables: tuple[str, ...]) -> list[TableCalibrations]:
    """Each table (of `tables`; all when empty) that told a calibration before `end`: the one in use, and the changes
    told in [start, end)."""
    only = ""
    if tables:
        only = " AND e.table_id IN (" + ", ".join("?" * len(tables)) + ")"
    told: dict[str, list[CalibrationTold]] = {}
    for table, epoch, seq, utc, text in session.all(
            "SELECT e.table_id, e.epoch, e.seq, e.utc, e.detail FROM events e JOIN epochs p ON p.table_id = e.table_id "
            "AND p.epoch = e.epoch WHERE e.kind = 'device' AND e.detail LIKE ? AND e.utc < ?" + only +
            " ORDER BY e.table_id, p.ordinal, e.seq", (f"%{NOTICE}%", end, *tables)):
        detail = json.loads(text)
        if is_notice(detail):
            told.setdefault(table, []).append(CalibrationTold(
                utc, epoch, int(seq), digest(detail.get("sha256")), digest(detail.get("empty_table_sha256"))))
    alarms = {(table, epoch, int(seq)): (json.loads(detail), alarmed) for table, epoch, seq, detail, alarmed in
              session.all("SELECT table_id, epoch, seq, detail, alarmed_utc FROM anomalies WHERE "
                          "kind = 'calibration_changed'" + only.replace("e.table_id", "table_id"), tables)}
    out = []
    for table, notices in sorted(told.items()):
        changes = []
        for notice in notices:
            found = alarms.get((table, notice.epoch, notice.seq))
            if found is not None and start <= notice.utc:
                detail, alarmed = found
                changes.append(CalibrationChange(notice, digest(detail.get("previous_sha256")),
                                                 digest(detail.get("previous_empty_table_sha256")), alarmed))
        out.append(TableCalibrations(table, notices[-1], tuple(changes)))
    return out


HEX = frozenset("0123456789abcdef")


def digest(value) -> str | None:
    """A SHA-256 as told (64 lower-case hex digits); None when none was; whatever else a notice carried there (the
    books keep what was sent) shown as not one, its first 64 characters as JSON (a report line stays short)."""
    if value is None or (isinstance(value, str) and len(value) == 64 and HEX.issuperset(value)):
        return value
    return "not a digest: " + json.dumps(value)[:64]
