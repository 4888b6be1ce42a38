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

from .calibrations import calibration_notices
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
    told: dict[str, list[CalibrationTold]] = {}
    for table, (_, seq), epoch, utc, detail in calibration_notices(session, tables):
        if utc < end:
            told.setdefault(table, []).append(CalibrationTold(
                utc, epoch, seq, digest(detail.get("sha256")), digest(detail.get("empty_table_sha256"))))
    only = (" AND table_id IN (" + ", ".join("?" * len(tables)) + ")") if tables else ""
    alarms = {(table, epoch, int(seq)): (json.loads(detail), alarmed) for table, epoch, seq, detail, alarmed in
              session.all("SELECT table_id, epoch, seq, detail, alarmed_utc FROM anomalies WHERE "
                          "kind = 'calibration_changed'" + only, tables)}
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


def is_sha256(value) -> bool:
    """64 lower-case hex digits: a SHA-256 as the camera tells it."""
    return isinstance(value, str) and len(value) == 64 and HEX.issuperset(value)


def digest(value) -> str | None:
    """A SHA-256 as told; None when none was; whatever else a notice carried there (the books keep what was sent)
    shown as not one, its first 64 characters as JSON (a report line stays short)."""
    if value is None or is_sha256(value):
        return value
    return "not a digest: " + json.dumps(value)[:64]
