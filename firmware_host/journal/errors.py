"""The journal's errors: each one is a reason the table locks out, worded for the operator who reads it."""

from __future__ import annotations

from ..errors import TableError


class JournalError(TableError):
    """The journal cannot be used (cannot open, cannot write)."""


class JournalCorrupt(JournalError):
    """The journal failed its integrity check (or was written with another key): the table must not play."""


class JournalMissing(JournalError):
    """There is no journal file where one is expected."""


class JournalBehindAnchor(JournalError):
    """The journal holds less than what it already published (the broker's retained state or the ledger's
    anchor): it was rolled back, truncated or replaced. Only a supervisor's new epoch reopens the table."""


class StorageFailure(JournalError):
    """The disk refused a write (full, read-only, I/O error): nothing of that write was kept or published."""
