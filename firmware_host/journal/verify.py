"""The walk that checks a journal file or an archive: key, base, record chain, outbox checksums and sent marks.

What it proves, with a key: no record, message or sent mark was added, changed or removed inside the
file, and the file continues exactly from its base. Without a key, a forger can recompute every plain
SHA-256, so the same walk only catches accidents and careless edits; the anchor (anchor.py) then
catches a rewritten history up to the point the table last published.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from .chain import Chain, outbox_digest
from .errors import JournalCorrupt
from .rows import OUTBOX_RECORD, Base

if TYPE_CHECKING:
    from .store import Journal


class OutboxSeal(msgspec.Struct, frozen=True):
    """The body of an `outbox` record: one transaction's messages."""

    first: int
    last: int
    digest: str


@dataclass(frozen=True)
class WalkEnd:
    """Where a verified file ends."""

    records: int
    head: bytes
    last_seq: int


def verify_file(journal: Journal) -> int:
    """Verify the live journal (see the module docstring); the number of records in its chain."""
    path = journal.path
    try:
        problems = [r[0] for r in journal._conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise JournalCorrupt(f"{path}: SQLite integrity check failed: {'; '.join(problems[:5])}")
        check_key(path, journal.chain, journal.epoch, journal._key_check)
        check_base(path, journal.chain, journal.epoch, journal.base, journal._base_mac)
        records, head, seals = walk_records(journal._conn, journal.chain, journal.base, path)
        if records != journal._head_seq or head != journal._head_hash:
            raise JournalCorrupt(f"{path}: the chain ends at record {records} but the journal's head says "
                                 f"{journal._head_seq}: records were removed or the head was altered")
        walk_outbox(journal._conn, journal.chain, journal.base, path, seals, archived=False)
    except sqlite3.DatabaseError as exc:
        raise JournalCorrupt(f"{path}: unreadable journal: {exc}") from None
    return records


def check_key(path: Path, chain: Chain, epoch: str, stored: str | None) -> None:
    """A wrong or missing key is its own lock-out reason, told apart from a tampered record."""
    if chain.keyed and stored is None:
        raise JournalCorrupt(f"{path}: this journal was written without a key, but storage.journal_key_file is set "
                             "(a keyed journal's key check was removed, or the key file is new)")
    if not chain.keyed and stored is not None:
        raise JournalCorrupt(f"{path}: this journal was written with a key: set storage.journal_key_file to it")
    if chain.keyed and chain.key_check(epoch) != stored:
        raise JournalCorrupt(f"{path}: wrong journal key: storage.journal_key_file is not the key this journal "
                             "was written with")


def check_base(path: Path, chain: Chain, epoch: str, base: Base, mac: str) -> None:
    body = msgspec.json.encode(base)
    if chain.sealed(epoch.encode() + b"\0" + body) != mac:
        raise JournalCorrupt(f"{path}: the journal's base (where its chain starts) was altered")
    if base.records == 0 and bytes.fromhex(base.head) != chain.genesis(epoch):
        raise JournalCorrupt(f"{path}: the chain does not start at epoch {epoch}'s genesis (epoch altered?)")


def walk(conn: sqlite3.Connection, chain: Chain, base: Base, path: Path, *, archived: bool) -> WalkEnd:
    """Re-hash every record from the base, then every message against its transaction's `outbox` record."""
    records, head, seals = walk_records(conn, chain, base, path)
    return WalkEnd(records, head, walk_outbox(conn, chain, base, path, seals, archived=archived))


def walk_records(conn: sqlite3.Connection, chain: Chain, base: Base,
                 path: Path) -> tuple[int, bytes, list[tuple[int, OutboxSeal]]]:
    """The record chain from the base: (records, head hash, the `outbox` records met)."""
    previous, expected = bytes.fromhex(base.head), base.records + 1
    seals: list[tuple[int, OutboxSeal]] = []
    cursor = conn.execute("SELECT seq, kind, round, utc, body, hash FROM records ORDER BY seq")
    for seq, kind, round_, utc, body, digest in cursor:
        if seq != expected:
            raise JournalCorrupt(f"{path}: record {expected} is missing (next is {seq})")
        if not isinstance(body, bytes) or chain.link(previous, seq, kind, round_, utc, body) != digest:
            raise JournalCorrupt(f"{path}: record {seq} ({kind}, round {round_}) fails its checksum")
        if kind == OUTBOX_RECORD:
            seals.append((seq, msgspec.json.decode(body, type=OutboxSeal)))
        previous, expected = digest, seq + 1
    return expected - 1, previous, seals


def walk_outbox(conn: sqlite3.Connection, chain: Chain, base: Base, path: Path, seals: list[tuple[int, OutboxSeal]],
                *, archived: bool) -> int:
    """Every message against its checksum, its sent mark and its transaction's `outbox` record; the last seq.
    An archive may lack the payloads of replies (dropped when archived: their checksums stay chained)."""
    next_seq, index, group = base.seq + 1, 0, []
    cursor = conn.execute("SELECT seq, topic, qos, retain, properties, payload, checksum, sent_utc, sent_mac "
                          "FROM outbox ORDER BY seq")
    for seq, topic, qos, retain, props, payload, checksum, sent_utc, sent_mac in cursor:
        if seq != next_seq:
            raise JournalCorrupt(f"{path}: outbox message {next_seq} is missing (next is {seq})")
        if payload is None and not archived:
            raise JournalCorrupt(f"{path}: outbox message {seq} on {topic} has no payload")
        if payload is not None and chain.message(seq, topic, qos, bool(retain), props, payload) != checksum:
            raise JournalCorrupt(f"{path}: outbox message {seq} on {topic} fails its checksum")
        if (sent_utc is None) != (sent_mac is None) or (sent_utc is not None
                                                        and chain.sent(checksum, sent_utc) != sent_mac):
            raise JournalCorrupt(f"{path}: outbox message {seq} on {topic}: its sent mark is not the journal's "
                                 "(marked sent or altered by hand)")
        if index >= len(seals) or (not group and seals[index][1].first != seq):
            raise JournalCorrupt(f"{path}: outbox message {seq} on {topic} belongs to no transaction (inserted?)")
        group.append(checksum)
        record, seal = seals[index]
        if seq == seal.last:
            if outbox_digest(group) != seal.digest:
                raise JournalCorrupt(f"{path}: outbox messages {seal.first}-{seal.last} do not match record {record}")
            index, group = index + 1, []
        next_seq += 1
    if index < len(seals):
        record, seal = seals[index]
        raise JournalCorrupt(f"{path}: outbox messages {max(seal.first, next_seq)}-{seal.last} of record {record} "
                             "are missing (deleted?)")
    return next_seq - 1
