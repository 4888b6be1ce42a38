"""The table's storage folder: where the journal, its archives and evidence live, and the lock a running
table holds on it (so a supervisor's `tablehw journal new-epoch` never runs under a live table)."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import JournalError, StorageFailure

JOURNAL_FILE = "journal.sqlite"
ARCHIVE_FOLDER = "archive"
LOCK_FILE = "journal.lock"


class StorageBusy(JournalError):
    """Another process (a running table) holds the storage folder."""


def journal_path(storage: Path) -> Path:
    return Path(storage) / JOURNAL_FILE


def archive_folder(storage: Path) -> Path:
    return Path(storage) / ARCHIVE_FOLDER


@contextmanager
def holding(storage: Path, what: str) -> Iterator[None]:
    """Hold the folder's lock for the duration; `StorageBusy` when someone else holds it."""
    try:
        Path(storage).mkdir(parents=True, exist_ok=True)
        fd = os.open(Path(storage) / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o640)
    except OSError as exc:
        raise StorageFailure(f"{storage}: cannot use the storage folder: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StorageBusy(f"{storage}: in use by another process (is the table running? stop it before "
                              f"{what})") from None
        yield
    finally:
        os.close(fd)
