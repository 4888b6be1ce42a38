"""Schema migrations: the SQL files of `migrations/` applied in order, each recorded in `schema_version`.

A file is `NNNN_name.sql` (versions 1, 2, ... with no hole). Each is applied in its own transaction with
its row in `schema_version` (version, name, SHA-256 of the file, UTC), so a crash leaves either all of it
or none. Books migrated by an edited file, or by a newer release than this one, are refused with the
reason: the schema of the books is evidence too. Two instances starting together are serialised (a
PostgreSQL advisory lock; SQLite's write lock).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from ..clock import SystemClock
from .database import Database, Session
from .errors import MigrationError

MIGRATIONS = Path(__file__).with_name("migrations")
FILE_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
ADVISORY_LOCK = 0x7461626C65687721  # any constant shared by every ledger instance ("tablehw!")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    sha256: str


def available(folder: Path = MIGRATIONS) -> list[Migration]:
    """The migrations shipped with this release, in order."""
    found = []
    for path in sorted(folder.glob("*.sql")):
        match = FILE_NAME.match(path.name)
        if not match:
            raise MigrationError(f"{path}: a migration is named NNNN_name.sql")
        text = path.read_text(encoding="utf-8")
        found.append(Migration(int(match.group(1)), path.name, text, hashlib.sha256(text.encode()).hexdigest()))
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise MigrationError(f"{folder}: migration {expected} is missing (found {migration.name})")
    return found


def migrate(database: Database, clock=None, folder: Path = MIGRATIONS) -> list[str]:
    """Bring the books up to this release's schema; the names of the migrations applied now."""
    clock = clock or SystemClock()
    applied: list[str] = []
    for migration in available(folder):
        if database.run(lambda s, m=migration: _apply(s, m, clock.utc())):
            applied.append(migration.name)
    database.run(lambda s: _refuse_newer(s, len(available(folder))))
    return applied


def current_version(database: Database) -> int:
    """The highest version applied to the books (0: none)."""
    def read(session: Session) -> int:
        _ensure_table(session)
        return int(session.value("SELECT COALESCE(MAX(version), 0) FROM schema_version") or 0)
    return database.run(read)


def _ensure_table(session: Session) -> None:
    if session.dialect == "postgresql":
        session.execute("SELECT pg_advisory_xact_lock(?)", (ADVISORY_LOCK,))
    session.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                    "sha256 TEXT NOT NULL, applied_utc TEXT NOT NULL)")


def _apply(session: Session, migration: Migration, utc: str) -> bool:
    _ensure_table(session)
    row = session.one("SELECT name, sha256 FROM schema_version WHERE version = ?", (migration.version,))
    if row is not None:
        if row[1] != migration.sha256:
            raise MigrationError(f"the books were migrated by a different {migration.name} (recorded as {row[0]}, "
                                 f"sha256 {row[1][:12]}…; this release's is {migration.sha256[:12]}…): "
                                 "a shipped migration was edited")
        return False
    session.script(migration.sql)
    session.execute("INSERT INTO schema_version (version, name, sha256, applied_utc) VALUES (?, ?, ?, ?)",
                    (migration.version, migration.name, migration.sha256, utc))
    return True


def _refuse_newer(session: Session, known: int) -> None:
    newest = session.value("SELECT MAX(version) FROM schema_version")
    if newest is not None and newest > known:
        raise MigrationError(f"the books are at schema version {newest}, newer than this release knows ({known}): "
                             "run a newer tablehw")
