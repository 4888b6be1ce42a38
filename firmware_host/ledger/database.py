"""The books' database: SQLite (`sqlite:///path`) or PostgreSQL (`postgresql://...`) behind one small interface.

    books = Database.connect("postgresql://ledger@db-host/books")     # or "sqlite:///var/books.sqlite"
    rows = books.run(lambda s: s.all("SELECT round FROM rounds WHERE table_id = ?", ("craps-1",)))

SQL is written once, with `?` placeholders (turned into `%s` for psycopg), in the subset both engines
share: `INSERT ... ON CONFLICT DO NOTHING`, `RETURNING`, partial indexes, row values. `run` executes a
unit of work in one transaction and retries it when the database says to (a deadlock or a racing insert
between two ledger instances, a busy SQLite file) or when the PostgreSQL connection was lost.

SQLite URLs follow SQLAlchemy's convention: `sqlite:///books.sqlite` is relative to the working
directory, `sqlite:////var/lib/tablehw-ledger/books.sqlite` is absolute. A PostgreSQL URL is handed to
libpq as it is, so its password can stay out of the URL (PGPASSFILE, ~/.pgpass, PGPASSWORD).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar
from urllib.parse import urlsplit

from ..errors import ConfigError
from .errors import BooksUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")
SQLITE_PREFIX = "sqlite:///"
MAX_PARAMETERS = 30_000  # per statement: under SQLite's 32,766 and PostgreSQL's 65,535
POSTGRES_SCHEMES = ("postgresql", "postgres")


class Session:
    """One open transaction: run statements, read rows."""

    def __init__(self, database: Database, cursor: Any, raw: Any = None) -> None:
        self._database = database
        self._cursor = cursor
        self._raw = raw  # PostgreSQL: a cursor taking $n placeholders as they are (no client-side parsing)

    @property
    def dialect(self) -> str:
        return self._database.dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        cursor = self._cursor.execute(self._database.sql(sql), tuple(params))
        return cursor.rowcount

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._cursor.executemany(self._database.sql(sql), [tuple(r) for r in rows])

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return list(self._cursor.execute(self._database.sql(sql), tuple(params)).fetchall())

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        return self._cursor.execute(self._database.sql(sql), tuple(params)).fetchone()

    def value(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.one(sql, params)
        return row[0] if row else None

    def batched(self, sql: str, rows: Sequence[Sequence[Any]], lead: Sequence[Any] = ()) -> list[tuple]:
        """One statement for many rows: `{values}` in `sql` becomes `(?, ?), (?, ?) ...` (as many statements as
        the engines' parameter limits need; `lead` fills the placeholders before it); the rows the statements
        return (RETURNING, SELECT)."""
        if not rows:
            return []
        width = len(rows[0])
        per_statement = max(1, MAX_PARAMETERS // width)
        out: list[tuple] = []
        for start in range(0, len(rows), per_statement):
            chunk = rows[start:start + per_statement]
            group = "(" + ", ".join("?" * width) + ")"
            text = sql.replace("{values}", ", ".join([group] * len(chunk)))
            params = [*lead, *(value for row in chunk for value in row)]
            if self._raw is not None:  # psycopg would parse 30,000 `%s` in Python: number them for the server
                pieces = text.split("?")
                text = pieces[0] + "".join(f"${n}{piece}" for n, piece in enumerate(pieces[1:], start=1))
                cursor = self._raw.execute(text, params)
            else:
                cursor = self._cursor.execute(text, params)
            if cursor.description is not None:
                out.extend(cursor.fetchall())
        return out

    def script(self, text: str) -> None:
        """Several statements (a migration file), run one by one inside this transaction."""
        for statement in split_statements(text):
            self._cursor.execute(statement)


def split_statements(text: str) -> list[str]:
    """SQL text cut into complete statements (sqlite3's own test of completeness, so a `;` inside a
    string or comment does not cut); comment-only lines are dropped."""
    statements, buffer = [], ""
    for line in text.splitlines(keepends=True):
        if not buffer and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise ConfigError(f"unterminated SQL statement: {buffer.strip()[:80]!r}")
    return statements


def wal_mode(conn: sqlite3.Connection, wait_s: float = 30.0) -> str:
    """Switch the books to WAL; the journal mode in force after. SQLite does not call its busy handler
    for this switch, so when another instance is opening the same new file at the same moment it answers
    "database is locked" at once: try again for up to `wait_s`."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Database:
    """A connection to the books (not shared between threads: each thread connects its own)."""

    def __init__(self, url: str, *, name: str = "tablehw-ledger") -> None:
        self.url = url
        self.name = name
        scheme = urlsplit(url).scheme
        if url.startswith(SQLITE_PREFIX) and len(url) > len(SQLITE_PREFIX):
            self.dialect = "sqlite"
            self.path = Path(url[len(SQLITE_PREFIX):])
        elif scheme in POSTGRES_SCHEMES:
            self.dialect = "postgresql"
            self.path = None
        else:
            raise ConfigError(f"books URL {redact(url)!r}: expected sqlite:///path or postgresql://user@host/db")
        self._conn: Any = None
        self._sql_cache: dict[str, str] = {}

    @classmethod
    def connect(cls, url: str, *, name: str = "tablehw-ledger") -> Database:
        database = cls(url, name=name)
        database._open()
        return database

    # --- connection ------------------------------------------------------------------------------
    def _open(self) -> None:
        if self.dialect == "sqlite":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=30.0)
                conn.execute("PRAGMA busy_timeout = 30000")
                mode = wal_mode(conn)
                if mode.lower() != "wal":
                    raise BooksUnavailable(f"{self.path}: cannot switch the books to WAL mode (got {mode})")
                conn.execute("PRAGMA synchronous = FULL")
            except (sqlite3.Error, OSError) as exc:
                raise BooksUnavailable(f"{self.path}: cannot open the books: {exc}") from None
            self._conn = conn
            return
        import psycopg

        try:
            self._conn = psycopg.connect(self.url, autocommit=True, application_name=self.name, connect_timeout=10)
        except psycopg.Error as exc:
            raise BooksUnavailable(f"{redact(self.url)}: cannot connect to the books: {exc}") from None

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def sql(self, text: str) -> str:
        """The statement in this driver's placeholder style."""
        if self.dialect == "sqlite":
            return text
        cached = self._sql_cache.get(text)
        if cached is None:
            assert "%" not in text, "no literal % in the books' SQL (psycopg placeholders)"
            cached = self._sql_cache[text] = text.replace("?", "%s")
        return cached

    # --- transactions ----------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        if self._conn is None:
            self._open()
        if self.dialect == "sqlite":
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield Session(self, conn.cursor())
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return
        import psycopg

        with self._conn.transaction(), self._conn.cursor() as cursor, psycopg.RawCursor(self._conn) as raw:
            yield Session(self, cursor, raw)

    def run(self, work: Callable[[Session], T], *, attempts: int = 8) -> T:
        """`work(session)` in one transaction, retried (with a short backoff) when two writers collided
        or the connection was lost. Raises `BooksUnavailable` when the database stays out of reach."""
        delay = 0.05
        for attempt in range(1, attempts + 1):
            try:
                with self.transaction() as session:
                    return work(session)
            except Exception as exc:  # only database errors are retried; the rest are bugs and propagate
                kind = self.classify(exc)
                if kind is None:
                    raise
                if kind == "lost":
                    self.close()
                if attempt == attempts:
                    raise BooksUnavailable(f"{self.where()}: {exc}") from exc
                log.info("books: %s (%s), retrying (attempt %d)", kind, str(exc).splitlines()[0], attempt)
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
        raise AssertionError("unreachable")

    def classify(self, exc: BaseException) -> str | None:
        """'conflict' (retry at once), 'lost' (reconnect, retry) or None (not the database's doing)."""
        if isinstance(exc, BooksUnavailable):
            return "lost"
        if self.dialect == "sqlite":
            text = str(exc)
            if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
                return "conflict"
            if isinstance(exc, sqlite3.OperationalError) and ("disk I/O" in text or "unable to open" in text):
                return "lost"
            return None
        import psycopg
        from psycopg import errors

        if isinstance(exc, (errors.DeadlockDetected, errors.SerializationFailure, errors.UniqueViolation)):
            return "conflict"
        if isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)):
            return "lost"
        return None

    def where(self) -> str:
        return str(self.path) if self.dialect == "sqlite" else redact(self.url)


def redact(url: str) -> str:
    """A URL with any password replaced, for messages and logs."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return parts._replace(netloc=netloc).geturl()
    return url
