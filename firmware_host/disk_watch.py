"""The disk watch: free space on the table's storage, a warning in `state`, and a lock-out before it is full.

    watch = DiskWatch(storage, warning_mb=1024, minimum_mb=128)
    watch.check()          # each turn of the engine's loop: raises StorageFailure below the minimum,
                           # on a read-only file system, or after a write the disk refused (`report`)
    watch.space()          # DiskSpace(free_mb, warning) for `state.disk`
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from .journal import StorageFailure
from .mqtt.contract import DiskSpace

log = logging.getLogger(__name__)


class DiskWatch:
    """Looks at the file system every `every_s` seconds at most (statvfs is cheap, but the loop is hot)."""

    def __init__(self, storage: Path, *, warning_mb: int, minimum_mb: int, every_s: float = 2.0) -> None:
        self.storage = Path(storage)
        self.warning_mb, self.minimum_mb, self.every_s = warning_mb, minimum_mb, every_s
        self.failure: str | None = None
        self._checked_at = -1e9
        self._space = self._measure()

    def report(self, what: str) -> None:
        """A write elsewhere (evidence) was refused by the disk; the next `check` locks the table out."""
        self.failure = what

    def space(self) -> DiskSpace:
        return self._space

    def check(self) -> None:
        if self.failure:
            raise StorageFailure(self.failure)
        now = time.monotonic()
        if now - self._checked_at < self.every_s:
            return
        self._checked_at = now
        was_warning = self._space.warning
        self._space = self._measure()
        if self._space.warning and not was_warning:
            log.warning("storage %s: %d MB free, below the warning level of %d MB", self.storage,
                        self._space.free_mb, self.warning_mb)
        stat = os.statvfs(self.storage)
        if stat.f_flag & os.ST_RDONLY:
            raise StorageFailure(f"{self.storage}: the file system is read-only")
        if self._space.free_mb < self.minimum_mb:
            raise StorageFailure(f"{self.storage}: {self._space.free_mb} MB free, below the minimum of "
                                 f"{self.minimum_mb} MB ([storage] disk_minimum_mb)")

    def _measure(self) -> DiskSpace:
        stat = os.statvfs(self.storage)
        free_mb = stat.f_bavail * stat.f_frsize // (1024 * 1024)
        return DiskSpace(free_mb, free_mb < self.warning_mb)
