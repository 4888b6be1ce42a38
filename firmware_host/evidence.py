"""Evidence files: the annotated images (or sensor logs) behind each reading, kept for the retention period.

Images are JPEG, stamped with table, round, attempt and UTC (vision/evidence.py: quality 85, at most
150 kB a frame); sensor logs (wheel, shoe) are JSON.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path
from typing import Any, Callable

from .clock import SystemClock
from .rounds.inputs import Evidence

log = logging.getLogger(__name__)


class EvidenceStore:
    """Files under `<storage>/evidence/`, referenced from results by relative path and SHA-256."""

    def __init__(self, storage: Path, retention_days: int, on_failure: Callable[[str], None] | None = None,
                 table: str = "", clock: SystemClock | None = None) -> None:
        self.storage = Path(storage)
        self.table, self.clock = table, clock or SystemClock()
        self.folder = self.storage / "evidence"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.retention_days = retention_days
        self.on_failure = on_failure  # the disk watch: a refused write locks the table out

    def save(self, name: str, content: bytes) -> Evidence | None:
        """Write durably (fsync) and return the reference a result carries; None (reported to `on_failure`)
        when the disk refuses the write, so the device thread that called goes on and the table locks out."""
        path = self.folder / name
        tmp = path.with_suffix(path.suffix + ".tmp")
        try:
            with open(tmp, "wb") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            reason = f"{path}: cannot write evidence: {exc.strerror or exc}"
            log.error("%s", reason)
            tmp.unlink(missing_ok=True)
            if self.on_failure:
                self.on_failure(reason)
            return None
        return Evidence(str(path.relative_to(self.storage)), hashlib.sha256(content).hexdigest())

    def save_frame(self, game: str, round_no: int, attempt: int, image: Any) -> Evidence | None:
        """An annotated frame (BGR array) as `<game>-<round>-<attempt>.jpg`, stamped (vision/evidence.py)."""
        return self.save_encoded(game, round_no, attempt, self.encode_frame(game, round_no, attempt, image))

    def encode_frame(self, game: str, round_no: int, attempt: int, image: Any, calibration: str | None = None) -> bytes:
        """The stamped JPEG `save_frame` writes, encoded now (stamped with the time now) to be saved later; a camera's
        frame is stamped with the SHA-256 of the `calibration` it was read with too."""
        from vision.evidence import EvidenceStamp, encode_evidence

        stamp = EvidenceStamp(self.table or game, round_no, attempt, self.clock.utc(), calibration)
        return encode_evidence(image, stamp)

    def save_encoded(self, game: str, round_no: int, attempt: int, jpeg: bytes) -> Evidence | None:
        """A frame from `encode_frame`, saved under the name `save_frame` gives it."""
        return self.save(f"{game}-{round_no:08d}-{attempt}.jpg", jpeg)

    def prune(self, now: float | None = None) -> int:
        """Delete evidence older than the retention period; returns how many files went."""
        limit = (now or time.time()) - self.retention_days * 86_400
        removed = 0
        for path in self.folder.iterdir():
            if path.is_file() and path.stat().st_mtime < limit:
                path.unlink()
                removed += 1
        if removed:
            log.info("evidence retention: %d files older than %d days removed", removed, self.retention_days)
        return removed
