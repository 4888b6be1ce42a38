"""The journal file: create (a new epoch), open and verify, commit transactions, mark messages sent, read back.

Integrity (docs/mqtt.md, "Delivery guarantees" and "Lock-out"): each record carries
`hash = MAC(previous hash, seq, kind, round, utc, body)`, starting from a genesis bound to the
journal's epoch; every transaction that queues messages ends with an `outbox` record holding one
hash over their checksums, so the chain covers the outbox too; a message's "sent" mark carries a
MAC bound to that message. MAC is HMAC-SHA-256 with the key file, plain SHA-256 without one.
`Journal.open` verifies all of it (verify.py) before anything is read or written.

`publish` fills `seq` (+1 across all topics), `epoch` and `prev_seq` (the previous `seq` on the same
topic in this epoch, 0 when none) into a Struct payload before encoding it; a payload journalled as
a record too is stamped first with `Transaction.stamp` and published as the same bytes.
"""

from __future__ import annotations

import itertools
import secrets
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import msgspec

from ..clock import SystemClock
from .chain import Chain
from .errors import JournalCorrupt, JournalError, JournalMissing
from .rows import (EPOCH_RECORD, FORMAT, OUTBOX_RECORD, SCHEMA, Base, MessageProperties, OutgoingMessage, Record,
                   connect, disk_failure, read_messages)
from .transaction import Transaction

__all__ = ["OUTBOX_RECORD", "Base", "Journal", "MessageProperties", "OutgoingMessage", "Record", "Transaction",
           "connect", "read_messages"]


class Journal:
    """The journal file. One writer at a time (transactions are serialised by a lock)."""

    def __init__(self, path: str | Path, *, key: bytes | None = None, clock: Any = None, create: bool = True) -> None:
        self.path = Path(path)
        self.chain = Chain(key)
        self.clock = clock or SystemClock()
        self.anchor_status = "unchecked"  # set by the start-up anchor check (service.py)
        self._lock = threading.RLock()
        self._listeners: list[Callable[[], None]] = []
        existed = self.path.exists()
        if not existed and not create:
            raise JournalMissing(f"{self.path}: no journal")
        if existed and self.path.stat().st_size == 0:
            raise JournalCorrupt(f"{self.path}: the journal is empty (0 bytes): it was truncated")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = connect(self.path)
            if not existed:
                self._initialise(secrets.token_hex(16), Base(0, "", 0), {"why": "first start"})
            meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            failure = disk_failure(self.path, exc)
            if failure:
                raise failure from None
            raise JournalCorrupt(f"{self.path}: not a readable journal: {exc}") from None
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from None
        self._load(meta)

    def _initialise(self, epoch: str, base: Base, opened: dict[str, Any]) -> None:
        """A new file of a new epoch: schema, meta, and its first record (who/why, what it supersedes)."""
        head = self.chain.genesis(epoch)
        base = msgspec.structs.replace(base, records=0, head=head.hex())
        meta = {"format": FORMAT, "epoch": epoch, "chain_length": "0", "chain_head": head.hex(),
                **self.base_meta(epoch, base)}
        if self.chain.keyed:
            meta["key_check"] = self.chain.key_check(epoch)
        self._conn.execute("BEGIN IMMEDIATE")
        for statement in filter(str.strip, SCHEMA.split(";")):
            self._conn.execute(statement)
        self._conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", list(meta.items()))
        self._load(meta)
        txn = Transaction(self)
        txn.record(EPOCH_RECORD, {"epoch": epoch, "round_base": base.round_base, "superseded": base.superseded,
                                  **opened})
        self._conn.executemany("UPDATE meta SET value = ? WHERE key = ?",
                               [(str(txn._head_seq), "chain_length"), (txn._head_hash.hex(), "chain_head")])
        self._conn.execute("COMMIT")

    def base_meta(self, epoch: str, base: Base) -> dict[str, str]:
        """The meta rows that hold `base` and its MAC (bound to the epoch)."""
        body = msgspec.json.encode(base)
        return {"base": body.decode(), "base_mac": self.chain.sealed(epoch.encode() + b"\0" + body)}

    def _load(self, meta: dict[str, str]) -> None:
        if "format" not in meta:
            raise JournalCorrupt(f"{self.path}: not a journal (empty, truncated or another file)")
        if meta["format"] != FORMAT:
            raise JournalCorrupt(f"{self.path}: journal format {meta['format']!r}, expected {FORMAT}: archive it "
                                 "and start a new epoch (`tablehw journal new-epoch`)")
        try:
            self.epoch = meta["epoch"]
            self.base = msgspec.json.decode(meta["base"], type=Base)
            self._base_mac = meta.get("base_mac", "")
            self._key_check = meta.get("key_check")
            self._head_seq = int(meta["chain_length"])
            self._head_hash = bytes.fromhex(meta["chain_head"])
        except (KeyError, ValueError, msgspec.DecodeError) as exc:
            raise JournalCorrupt(f"{self.path}: the journal's meta is damaged ({exc})") from None
        row = self._conn.execute("SELECT max(seq) FROM outbox").fetchone() if self._has_tables() else (None,)
        self._next_message = (row[0] or self.base.seq) + 1
        self._topic_heads = dict(self.base.topics)
        if self._has_tables():
            self._topic_heads.update(self._conn.execute("SELECT topic, max(seq) FROM outbox GROUP BY topic"))

    def _has_tables(self) -> bool:
        return self._conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'outbox'").fetchone()[0] == 1

    @classmethod
    def open(cls, path: str | Path, *, key: bytes | None = None, clock: Any = None, verify: bool = True,
             create: bool = True) -> Journal:
        """Open (creating a new epoch's file only where there is no file) and, unless told not to, verify
        the whole journal. An existing file that is empty or not a journal is `JournalCorrupt`."""
        journal = cls(path, key=key, clock=clock, create=create)
        if verify:
            try:
                journal.verify()
            except BaseException:
                journal.close()
                raise
        return journal

    @classmethod
    def start_epoch(cls, path: str | Path, *, key: bytes | None, base: Base, opened: dict[str, Any],
                    clock: Any = None) -> Journal:
        """A new file at `path` (which must not exist) for a new epoch continuing rounds after `base`."""
        path = Path(path)
        if path.exists():
            raise JournalError(f"{path}: a journal is already there; move it aside first")
        journal = cls.__new__(cls)
        journal.path, journal.chain, journal.clock = path, Chain(key), clock or SystemClock()
        journal.anchor_status, journal._lock, journal._listeners = "unchecked", threading.RLock(), []
        journal._conn = connect(path)
        journal._initialise(secrets.token_hex(16), base, opened)
        return journal

    # --- writing -----------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Records and messages written inside commit together (fsync), or not at all. A disk that
        refuses the write raises `StorageFailure` (nothing of the transaction is kept)."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                txn = Transaction(self)
                try:
                    yield txn
                    txn.seal_outbox()
                    if txn.records_written:
                        self._conn.executemany("UPDATE meta SET value = ? WHERE key = ?",
                                               [(str(txn._head_seq), "chain_length"),
                                                (txn._head_hash.hex(), "chain_head")])
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
            except sqlite3.Error as exc:
                failure = disk_failure(self.path, exc)
                if failure:
                    raise failure from None
                raise
            self._head_seq, self._head_hash = txn._head_seq, txn._head_hash
            self._next_message = txn._next_message
            self._topic_heads.update(txn._topic_heads)
        if txn.messages_written:
            for listener in list(self._listeners):
                listener()

    def _rollback(self) -> None:
        try:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # a full disk can refuse even the rollback; SQLite rolls back itself on the next open

    def mark_sent(self, seqs: Iterable[int], conn: sqlite3.Connection | None = None) -> None:
        """The broker acknowledged these messages: mark them sent, each mark MAC'd to its message.
        `conn`: the caller's own connection (the outbox sender's), else the journal's."""
        seqs = sorted(set(seqs))
        if not seqs:
            return
        utc = self.clock.utc()
        own = conn is None
        conn = conn or self._conn
        with self._lock if own else _nothing():
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for start in range(0, len(seqs), 500):
                        chunk = seqs[start:start + 500]
                        rows = conn.execute(f"SELECT seq, checksum FROM outbox WHERE sent_utc IS NULL AND seq IN "
                                            f"({','.join('?' * len(chunk))})", chunk).fetchall()
                        conn.executemany("UPDATE outbox SET sent_utc = ?, sent_mac = ? WHERE seq = ?",
                                         [(utc, self.chain.sent(checksum, utc), seq) for seq, checksum in rows])
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise (disk_failure(self.path, exc) or exc) from None

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
        live = [Record(*row) for row in rows]
        if after >= self.base.records or self.base.archive is None or (round is not None and live):
            return iter(live)  # a round is never split across files: found live, it is all live
        from .archive import archived_records  # a reader reaching before this file reads the archives first

        older = archived_records(self.path.parent, self, after, " AND ".join(where[1:]) or "1", args[1:])
        return itertools.chain([r for r in older if r.seq <= self.base.records], live)

    def last_record(self, kinds: tuple[str, ...]) -> Record | None:
        """The newest record of any of these kinds."""
        with self._lock:
            row = self._conn.execute(f"SELECT seq, kind, round, utc, body FROM records WHERE kind IN "
                                     f"({','.join('?' * len(kinds))}) ORDER BY seq DESC LIMIT 1", kinds).fetchone()
        if row is None and self.base.archive is not None:
            older = list(self.records(kinds=kinds, after=0))
            return older[-1] if older else None
        return Record(*row) if row else None

    def rounds(self, last: int) -> list[int]:
        """The numbers of the newest `last` rounds that have records, newest first."""
        with self._lock:
            rows = self._conn.execute("SELECT DISTINCT round FROM records WHERE round IS NOT NULL "
                                      "ORDER BY round DESC LIMIT ?", (last,)).fetchall()
        return [r[0] for r in rows]

    def record_hash(self, seq: int) -> bytes | None:
        """The stored hash of record `seq` (the base's head for the record this file continues from)."""
        if seq == self.base.records:
            return bytes.fromhex(self.base.head)
        with self._lock:
            row = self._conn.execute("SELECT hash FROM records WHERE seq = ?", (seq,)).fetchone()
        return row[0] if row else None

    def messages(self, after: int = 0, pending_only: bool = False, limit: int = -1) -> list[OutgoingMessage]:
        """Outbox rows in sequence order (for tests and tools; the sender has its own reader)."""
        with self._lock:
            return read_messages(self._conn, after, pending_only, limit)

    def pending_messages(self) -> int:
        """How many outbox messages the broker has not acknowledged yet (the outbox depth)."""
        with self._lock:
            return self._conn.execute("SELECT count(*) FROM outbox WHERE sent_utc IS NULL").fetchone()[0]

    def published(self, after: int, topics: list[str] | None, limit: int) -> list[tuple[int, str, bytes]]:
        """(seq, topic, payload) of the live outbox's messages after `after`, on `topics` (all when None)."""
        where, args = "seq > ?", [after]
        if topics is not None:
            where += f" AND topic IN ({','.join('?' * len(topics))})"
            args += topics
        with self._lock:
            return self._conn.execute(f"SELECT seq, topic, payload FROM outbox WHERE {where} ORDER BY seq LIMIT ?",
                                      [*args, limit]).fetchall()

    @property
    def head_seq(self) -> int:
        return self._head_seq

    @property
    def last_seq(self) -> int:
        """The newest message's `seq` (the base's when this file has none yet)."""
        return self._next_message - 1

    @property
    def first_available(self) -> int:
        """The oldest `seq` still in this file (older ones are archived)."""
        return self.base.seq + 1

    @property
    def round_base(self) -> int:
        return self.base.round_base

    # --- integrity ---------------------------------------------------------------------------
    def verify(self) -> int:
        """Check pages, the key, the base, the record chain, every message and sent mark; return the number
        of records. Raises `JournalCorrupt` naming the first bad record."""
        from .verify import verify_file

        with self._lock:
            return verify_file(self)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


@contextmanager
def _nothing() -> Iterator[None]:
    yield
