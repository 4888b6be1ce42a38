"""The journal: one SQLite file (WAL, synchronous=FULL) of chained critical records and the outbox.

Everything the service must not lose is written here *before* it is acted on or published:
accepted bets, readings, verdicts, results, settlements, dealer and supervisor actions (as
*records*) and every outgoing MQTT message (as *outbox* rows). A transaction commits records and
messages together, so a result is never published without being journalled and never journalled
without being published.

    journal = Journal.open("/var/lib/tablehw/craps-1/journal.sqlite")   # verifies, or JournalCorrupt
    with journal.transaction() as txn:            # BEGIN IMMEDIATE ... COMMIT (fsync)
        txn.record("bet_accepted", {"ticket": "t-1", ...}, round=42)
        txn.publish("tablehw/tables/craps-1/result", payload, retain=True)
    for record in journal.records(kind="settlement", round=42): record.data()

`payload` is bytes or a msgspec Struct with a `seq` field, which `publish` fills in with the message's
outbox sequence number before encoding (so consumers can de-duplicate). Messages leave through
`outbox.OutboxSender` in sequence order. Other services (slots, boards) use the same API with a
journal file of their own or the table's.

Integrity: each record carries `hash = H(previous hash, seq, kind, round, utc, body)` (SHA-256, or
HMAC-SHA-256 when a key file is configured), and `meta` holds the chain's head. `Journal.open`
runs SQLite's quick_check and re-walks the chain; any mismatch, gap, truncation or unreadable page
raises `JournalCorrupt`, and the service locks out (see docs/mqtt.md, "Lock-out").
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
import struct
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import msgspec

from .clock import SystemClock
from .errors import TableError

FORMAT = "1"
GENESIS = bytes(32)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, round INTEGER, utc TEXT NOT NULL,
    body BLOB NOT NULL, hash BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS records_round ON records(round, seq) WHERE round IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_kind ON records(kind, seq);
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload BLOB NOT NULL, qos INTEGER NOT NULL,
    retain INTEGER NOT NULL, properties BLOB NOT NULL, created_utc TEXT NOT NULL,
    checksum BLOB NOT NULL, sent_utc TEXT);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(seq) WHERE sent_utc IS NULL;
"""


class JournalError(TableError):
    """The journal cannot be used (cannot open, cannot write)."""


class JournalCorrupt(JournalError):
    """The journal failed its integrity check: the service must not play (lock out)."""


class MessageProperties(msgspec.Struct, frozen=True, omit_defaults=True):
    """The MQTT 5 properties an outgoing message carries (stored with it in the outbox)."""

    response_topic: str | None = None  # for requests the service itself makes (none today)
    correlation_data: bytes | None = None  # echoed back on responses
    message_expiry_s: int | None = None
    user_properties: list[tuple[str, str]] = []


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


def connect(path: Path, synchronous: str = "FULL") -> sqlite3.Connection:
    """A connection in WAL mode with the given durability; autocommit (transactions are explicit)."""
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA busy_timeout = 30000")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise JournalError(f"{path}: cannot switch the journal to WAL mode (got {mode})")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    return conn


class Chain:
    """The record hash: SHA-256, or HMAC-SHA-256 with a secret key so a forger cannot rebuild it."""

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key

    def digest(self, data: bytes) -> bytes:
        if self.key:
            return hmac.new(self.key, data, hashlib.sha256).digest()
        return hashlib.sha256(data).digest()

    def link(self, previous: bytes, seq: int, kind: str, round_: int | None, utc: str, body: bytes) -> bytes:
        head = struct.pack(">32sqq", previous, seq, -1 if round_ is None else round_)
        return self.digest(head + kind.encode() + b"\x00" + utc.encode() + b"\x00" + body)

    def message(self, seq: int, topic: str, qos: int, retain: bool, properties: bytes, payload: bytes) -> bytes:
        head = struct.pack(">qbb", seq, qos, int(retain))
        return self.digest(head + topic.encode() + b"\x00" + properties + b"\x00" + payload)


class Transaction:
    """One atomic write: records and outbox messages, committed (and fsynced) together."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._conn = journal._conn
        self._head_seq, self._head_hash = journal._head_seq, journal._head_hash
        self._next_message = journal._next_message
        self.records_written = 0
        self.messages_written = 0
        self.utc = journal.clock.utc()

    def record(self, kind: str, body: Any, round: int | None = None) -> int:
        """Append a chained critical record; `body` is bytes or anything msgspec encodes as JSON."""
        data = body if isinstance(body, bytes) else msgspec.json.encode(body)
        seq = self._head_seq + 1
        digest = self._journal.chain.link(self._head_hash, seq, kind, round, self.utc, data)
        self._conn.execute("INSERT INTO records (seq, kind, round, utc, body, hash) VALUES (?, ?, ?, ?, ?, ?)",
                           (seq, kind, round, self.utc, data, digest))
        self._head_seq, self._head_hash = seq, digest
        self.records_written += 1
        return seq

    def next_message_seq(self) -> int:
        """The `seq` the next `publish` in this transaction will get."""
        return self._next_message

    def publish(self, topic: str, payload: Any, *, retain: bool = False, qos: int = 1,
                properties: MessageProperties | None = None) -> int:
        """Queue an outgoing message in the outbox; returns its sequence number. A Struct payload
        with a `seq` field gets this number; bytes are stored as given."""
        seq = self._next_message
        if not isinstance(payload, bytes):
            if hasattr(payload, "seq"):
                payload = msgspec.structs.replace(payload, seq=seq)
            payload = msgspec.json.encode(payload)
        props = msgspec.json.encode(properties or MessageProperties())
        checksum = self._journal.chain.message(seq, topic, qos, retain, props, payload)
        self._conn.execute(
            "INSERT INTO outbox (seq, topic, payload, qos, retain, properties, created_utc, checksum) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (seq, topic, payload, qos, int(retain), props, self.utc, checksum))
        self._next_message = seq + 1
        self.messages_written += 1
        return seq


class Journal:
    """The journal file. One writer at a time (transactions are serialised by a lock)."""

    def __init__(self, path: str | Path, *, key: bytes | None = None, clock: Any = None) -> None:
        self.path = Path(path)
        self.chain = Chain(key)
        self.clock = clock or SystemClock()
        self._lock = threading.RLock()
        self._listeners: list[Callable[[], None]] = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = connect(self.path)
            self._conn.executescript(SCHEMA)
            self._conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('format', ?)", (FORMAT,))
            meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise JournalCorrupt(f"{self.path}: not a readable journal: {exc}") from None
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from None
        if meta.get("format") != FORMAT:
            raise JournalCorrupt(f"{self.path}: journal format {meta.get('format')!r}, expected {FORMAT}")
        self._head_seq = int(meta.get("chain_length", "0"))
        self._head_hash = bytes.fromhex(meta.get("chain_head", GENESIS.hex()))
        last = self._conn.execute("SELECT max(seq) FROM outbox").fetchone()[0]
        self._next_message = (last or 0) + 1

    @classmethod
    def open(cls, path: str | Path, *, key: bytes | None = None, clock: Any = None, verify: bool = True) -> Journal:
        """Open (creating if needed) and, unless told not to, verify the whole journal."""
        journal = cls(path, key=key, clock=clock)
        if verify:
            try:
                journal.verify()
            except BaseException:
                journal.close()
                raise
        return journal

    # --- writing -----------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Records and messages written inside commit together (fsync), or not at all."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            txn = Transaction(self)
            try:
                yield txn
                if txn.records_written:
                    self._conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                           [("chain_length", str(txn._head_seq)),
                                            ("chain_head", txn._head_hash.hex())])
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._head_seq, self._head_hash = txn._head_seq, txn._head_hash
            self._next_message = txn._next_message
        if txn.messages_written:
            for listener in list(self._listeners):
                listener()

    def on_messages(self, listener: Callable[[], None]) -> None:
        """Call `listener()` (from the committing thread) after each commit that queued messages."""
        self._listeners.append(listener)

    # --- reading -----------------------------------------------------------------------------
    def records(self, kind: str | None = None, round: int | None = None, after: int = 0,
                kinds: tuple[str, ...] | None = None) -> Iterator[Record]:
        """Records in sequence order, filtered by kind(s), round and/or `seq > after`."""
        where, args = ["seq > ?"], [after]
        if kind is not None:
            where.append("kind = ?")
            args.append(kind)
        if kinds:
            where.append(f"kind IN ({','.join('?' * len(kinds))})")
            args.extend(kinds)
        if round is not None:
            where.append("round = ?")
            args.append(round)
        with self._lock:
            rows = self._conn.execute(f"SELECT seq, kind, round, utc, body FROM records WHERE {' AND '.join(where)} "
                                      "ORDER BY seq", args).fetchall()
        return iter([Record(*row) for row in rows])

    def last_record(self, kinds: tuple[str, ...]) -> Record | None:
        """The newest record of any of these kinds."""
        with self._lock:
            row = self._conn.execute(f"SELECT seq, kind, round, utc, body FROM records WHERE kind IN "
                                     f"({','.join('?' * len(kinds))}) ORDER BY seq DESC LIMIT 1", kinds).fetchone()
        return Record(*row) if row else None

    def rounds(self, last: int) -> list[int]:
        """The numbers of the newest `last` rounds that have records, newest first."""
        with self._lock:
            rows = self._conn.execute("SELECT DISTINCT round FROM records WHERE round IS NOT NULL "
                                      "ORDER BY round DESC LIMIT ?", (last,)).fetchall()
        return [r[0] for r in rows]

    def messages(self, after: int = 0, pending_only: bool = False, limit: int = -1) -> list[OutgoingMessage]:
        """Outbox rows in sequence order (for tests and tools; the sender has its own reader)."""
        with self._lock:
            return read_messages(self._conn, after, pending_only, limit)

    def pending_messages(self) -> int:
        """How many outbox messages the broker has not acknowledged yet (the outbox depth)."""
        with self._lock:
            return self._conn.execute("SELECT count(*) FROM outbox WHERE sent_utc IS NULL").fetchone()[0]

    @property
    def head_seq(self) -> int:
        return self._head_seq

    # --- integrity ---------------------------------------------------------------------------
    def verify(self) -> int:
        """Check pages, the record chain and every outbox checksum; return the number of records.
        Raises `JournalCorrupt` naming the first bad record."""
        with self._lock:
            try:
                problems = [r[0] for r in self._conn.execute("PRAGMA quick_check").fetchall()]
                if problems != ["ok"]:
                    raise JournalCorrupt(f"{self.path}: SQLite integrity check failed: {'; '.join(problems[:5])}")
                count = self._verify_chain()
                self._verify_outbox()
            except sqlite3.DatabaseError as exc:
                raise JournalCorrupt(f"{self.path}: unreadable journal: {exc}") from None
        return count

    def _verify_chain(self) -> int:
        previous, expected = GENESIS, 1
        cursor = self._conn.execute("SELECT seq, kind, round, utc, body, hash FROM records ORDER BY seq")
        for seq, kind, round_, utc, body, digest in cursor:
            if seq != expected:
                raise JournalCorrupt(f"{self.path}: record {expected} is missing (next is {seq})")
            if not isinstance(body, bytes) or self.chain.link(previous, seq, kind, round_, utc, body) != digest:
                raise JournalCorrupt(f"{self.path}: record {seq} ({kind}, round {round_}) fails its checksum")
            previous, expected = digest, seq + 1
        count = expected - 1
        if count != self._head_seq or previous != self._head_hash:
            raise JournalCorrupt(f"{self.path}: the chain ends at record {count} but the journal's head says "
                                 f"{self._head_seq}: records were removed or the head was altered")
        return count

    def _verify_outbox(self) -> None:
        cursor = self._conn.execute("SELECT seq, topic, qos, retain, properties, payload, checksum FROM outbox")
        for seq, topic, qos, retain, props, payload, checksum in cursor:
            if self.chain.message(seq, topic, qos, bool(retain), props, payload) != checksum:
                raise JournalCorrupt(f"{self.path}: outbox message {seq} on {topic} fails its checksum")

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def read_messages(conn: sqlite3.Connection, after: int, pending_only: bool, limit: int) -> list[OutgoingMessage]:
    sql = ("SELECT seq, topic, payload, qos, retain, properties, created_utc, sent_utc FROM outbox WHERE seq > ?"
           + (" AND sent_utc IS NULL" if pending_only else "") + " ORDER BY seq LIMIT ?")
    out = []
    for seq, topic, payload, qos, retain, props, created, sent in conn.execute(sql, (after, limit)):
        out.append(OutgoingMessage(seq, topic, payload, qos, bool(retain),
                                   msgspec.json.decode(props, type=MessageProperties), created, sent))
    return out
