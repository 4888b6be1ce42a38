"""The journal's schema and rows: the SQLite tables, the row types, the connection, disk errors told apart."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from .errors import JournalError, StorageFailure

FORMAT = "2"
OUTBOX_RECORD = "outbox"
EPOCH_RECORD = "epoch_started"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, round INTEGER, utc TEXT NOT NULL,
    body BLOB NOT NULL, hash BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS records_round ON records(round, seq) WHERE round IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_kind ON records(kind, seq);
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload BLOB, qos INTEGER NOT NULL,
    retain INTEGER NOT NULL, properties BLOB NOT NULL, created_utc TEXT NOT NULL,
    checksum BLOB NOT NULL, sent_utc TEXT, sent_mac BLOB);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(seq) WHERE sent_utc IS NULL;
CREATE INDEX IF NOT EXISTS outbox_topic ON outbox(topic, seq);
"""

# SQLite's primary result codes for a disk that refuses writes: full, read-only, I/O error, cannot open.
_DISK_CODES = {13: "the disk is full", 8: "the disk is read-only", 10: "disk I/O error", 14: "cannot open a file"}


class MessageProperties(msgspec.Struct, frozen=True, omit_defaults=True):
    """The MQTT 5 properties an outgoing message carries (stored with it in the outbox)."""

    response_topic: str | None = None  # for requests the service itself makes (none today)
    correlation_data: bytes | None = None  # echoed back on responses
    message_expiry_s: int | None = None
    user_properties: list[tuple[str, str]] = []


class Base(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where this file's chain and sequence start (MAC'd in meta): the epoch's genesis, or the end of the
    archive it continues."""

    records: int
    head: str  # hex: the hash of record `records` (the genesis when 0)
    seq: int  # the last message seq before this file
    round_base: int = 0  # a new epoch's rounds continue after this
    topics: dict[str, int] = {}  # last seq per topic, for topics whose newest message is archived
    archive: str | None = None  # the archive file (name, in the archive folder) this file continues
    superseded: list[str] = []  # the epochs this epoch replaced, oldest first


@dataclass(frozen=True, slots=True)
class Record:
    """One journal record as stored."""

    seq: int
    kind: str
    round: int | None
    utc: str
    body: bytes

    def data(self) -> Any:
        return msgspec.json.decode(self.body)


@dataclass(frozen=True, slots=True)
class OutgoingMessage:
    """One outbox row."""

    seq: int
    topic: str
    payload: bytes
    qos: int
    retain: bool
    properties: MessageProperties
    created_utc: str
    sent_utc: str | None


def connect(path: Path, synchronous: str = "FULL", mode: str = "WAL") -> sqlite3.Connection:
    """A connection in WAL mode (archives: DELETE) with the given durability; autocommit (transactions
    are explicit)."""
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA busy_timeout = 30000")
    got = conn.execute(f"PRAGMA journal_mode = {mode}").fetchone()[0]
    if got.lower() != mode.lower():
        raise JournalError(f"{path}: cannot switch the journal to {mode} mode (got {got})")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    return conn


def disk_failure(path: Path, exc: sqlite3.Error) -> StorageFailure | None:
    """A `StorageFailure` when SQLite's error is the disk's (full, read-only, I/O), else None."""
    code = getattr(exc, "sqlite_errorcode", None)
    what = _DISK_CODES.get(code & 0xFF) if isinstance(code, int) else None
    return StorageFailure(f"{path}: cannot write the journal: {what} ({exc})") if what else None


def read_messages(conn: sqlite3.Connection, after: int, pending_only: bool, limit: int) -> list[OutgoingMessage]:
    sql = ("SELECT seq, topic, payload, qos, retain, properties, created_utc, sent_utc FROM outbox WHERE seq > ?"
           + (" AND sent_utc IS NULL" if pending_only else "") + " ORDER BY seq LIMIT ?")
    out = []
    for seq, topic, payload, qos, retain, props, created, sent in conn.execute(sql, (after, limit)):
        out.append(OutgoingMessage(seq, topic, payload, qos, bool(retain),
                                   msgspec.json.decode(props, type=MessageProperties), created, sent))
    return out
