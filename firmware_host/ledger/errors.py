"""The ledger's errors, under the service's one root (`TableError`)."""

from __future__ import annotations

from ..errors import TableError


class LedgerError(TableError):
    """Root of every error the ledger raises."""


class BooksUnavailable(LedgerError):
    """The database cannot be reached or written; nothing was acknowledged, so nothing is lost."""


class MigrationError(LedgerError):
    """The books' schema cannot be brought up to date (a missing, edited or unknown migration)."""


class ReportError(LedgerError, ValueError):
    """A report asked for with bad arguments; the message names the argument."""
