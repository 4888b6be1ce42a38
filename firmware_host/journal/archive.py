"""Rotation: the live journal's older part moves into a sealed archive file per period, the chain carried across.

    rotate(journal, storage, policy)    # when due: archive up to the close of the round `keep_rounds` back
    verify_archives(storage, key)       # walk every archive and the live file's link to the newest one
    archived_hash(storage, journal, n)  # record n's hash from the archives (the anchor check of an old anchor)

An archive (`archive/journal-<epoch>-<first record>-<last record>.sqlite`) holds the records and messages
of its period exactly as the live file held them (same rows, same hashes), except that the payloads of
replies (bet, console, recall and messages responses) are dropped: their checksums stay chained, so the
archive still verifies, and what they said is in the records (bets accepted) or was a refusal. It starts
where the previous one ended (its base), is walked once when written, and carries a seal (MAC'd) naming
its range. The live file's base then names the archive and its last hash: the chain goes on unbroken.
Only whole rounds move, never one of the last `keep_rounds`, never a table message not yet sent.
"""

from __future__ import annotations

import calendar
import logging
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import msgspec

from .errors import JournalCorrupt, JournalError
from .folder import archive_folder
from .rows import OUTBOX_RECORD, SCHEMA, Base, Record, connect, disk_failure
from .verify import check_base, check_key, walk

if TYPE_CHECKING:
    from .store import Journal

log = logging.getLogger(__name__)

NAME = re.compile(r"^journal-(?P<epoch>[0-9a-f]{32})-(?P<first>\d{10})-(?P<last>\d{10})\.sqlite$")
REPLY_TYPES = ("bet_response", "console_response", "recall_response", "messages_response")


@dataclass(frozen=True)
class RotationPolicy:
    """From [storage]: when to rotate, what stays live, how long archives are kept."""

    rotate_days: int = 1
    rotate_mb: int = 64
    keep_rounds: int = 10
    archive_days: int = 3650


class Seal(msgspec.Struct, frozen=True):
    """An archive's summary, MAC'd under the key: its range and the hash it ends on."""

    epoch: str
    first_record: int
    last_record: int
    head: str
    first_seq: int
    last_seq: int
    first_utc: str
    last_utc: str
    rounds: list[int]  # [first, last] round with records in it ([] when none)
    replies_dropped: int


@dataclass(frozen=True)
class ArchiveFile:
    path: Path
    epoch: str
    first: int
    last: int


def archives(storage: Path, epoch: str | None = None) -> list[ArchiveFile]:
    """The archive files of the folder (of one epoch), oldest first."""
    folder = archive_folder(storage)
    found = []
    for path in folder.iterdir() if folder.is_dir() else ():
        match = NAME.match(path.name)
        if match and (epoch is None or match["epoch"] == epoch):
            found.append(ArchiveFile(path, match["epoch"], int(match["first"]), int(match["last"])))
    return sorted(found, key=lambda a: (a.epoch, a.first))


def archived_hash(storage: Path, journal: Journal, seq: int) -> bytes | None:
    """Record `seq`'s hash in this epoch's archives; None when no archive kept here holds it."""
    for archive in archives(storage, journal.epoch):
        if archive.first <= seq <= archive.last:
            conn = sqlite3.connect(f"file:{archive.path}?mode=ro", uri=True)
            try:
                row = conn.execute("SELECT hash FROM records WHERE seq = ?", (seq,)).fetchone()
            finally:
                conn.close()
            return row[0] if row else None
    return None


def archived_records(storage: Path, journal: Journal, after: int, where: str, args: list) -> Iterator[Record]:
    """Records with `seq > after` from this epoch's archives (for readers reaching before the live file)."""
    for archive in archives(storage, journal.epoch):
        if archive.last <= after:
            continue
        conn = sqlite3.connect(f"file:{archive.path}?mode=ro", uri=True)
        try:
            rows = conn.execute(f"SELECT seq, kind, round, utc, body FROM records WHERE seq > ? AND {where} "
                                "ORDER BY seq", [after, *args]).fetchall()
        finally:
            conn.close()
        yield from (Record(*row) for row in rows)


def due(journal: Journal, policy: RotationPolicy, now: float | None = None) -> bool:
    """The live file is older than `rotate_days` at its start, or bigger than `rotate_mb`."""
    size = sum(p.stat().st_size for p in (journal.path, Path(f"{journal.path}-wal")) if p.exists())
    if size > policy.rotate_mb * 1024 * 1024:
        return True
    with journal._lock:
        first = journal._conn.execute("SELECT utc FROM records ORDER BY seq LIMIT 1").fetchone()
    if first is None:
        return False
    started = calendar.timegm(time.strptime(first[0][:19], "%Y-%m-%dT%H:%M:%S"))
    return (now or time.time()) - started > policy.rotate_days * 86_400


def rotate(journal: Journal, storage: Path, policy: RotationPolicy, *, force: bool = False) -> Path | None:
    """Archive the live file's older part when due (or `force`); returns the archive written, if any."""
    if not force and not due(journal, policy):
        return None
    cut = _cut(journal, policy.keep_rounds)
    if cut is None:
        return None
    last_record, last_seq = cut
    base = journal.base
    path = archive_folder(storage) / f"journal-{journal.epoch}-{base.records + 1:010d}-{last_record:010d}.sqlite"
    try:
        _write(journal, path, last_record, last_seq)
        _advance(journal, path, last_record, last_seq)
    except sqlite3.Error as exc:
        raise (disk_failure(path, exc) or JournalError(f"{path}: cannot archive: {exc}")) from None
    except OSError as exc:
        raise JournalError(f"{path}: cannot archive: {exc.strerror or exc}") from None
    log.info("journal archived: records %d-%d, messages %d-%d -> %s", base.records + 1, last_record, base.seq + 1,
             last_seq, path.name)
    prune(storage, journal, policy.archive_days)
    return path


def _cut(journal: Journal, keep_rounds: int) -> tuple[int, int] | None:
    """Where to cut: the `outbox` record closing the round `keep_rounds` before the newest closed one,
    if every table message up to it has been sent (replies never hold a rotation up)."""
    with journal._lock:
        conn = journal._conn
        if conn.in_transaction:
            return None
        closed = conn.execute("SELECT seq FROM records WHERE kind = 'round_closed' ORDER BY seq DESC LIMIT 1 OFFSET ?",
                              (keep_rounds,)).fetchone()
        if closed is None:
            return None
        row = conn.execute("SELECT seq, body FROM records WHERE kind = ? AND seq > ? ORDER BY seq LIMIT 1",
                           (OUTBOX_RECORD, closed[0])).fetchone()
        if row is None:
            return None
        last_seq = msgspec.json.decode(row[1])["last"]
        unsent = conn.execute("SELECT count(*) FROM outbox WHERE seq <= ? AND sent_utc IS NULL AND "
                              f"json_extract(payload, '$.type') NOT IN {REPLY_TYPES}", (last_seq,)).fetchone()[0]
    if unsent:
        log.info("journal rotation waits: %d table messages up to seq %d are not sent yet", unsent, last_seq)
        return None
    return row[0], last_seq


def _write(journal: Journal, path: Path, last_record: int, last_seq: int) -> None:
    """The archive file, written beside its final name, walked, then renamed into place (fsynced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    base = journal.base
    conn = connect(tmp, mode="DELETE")
    try:
        for statement in filter(str.strip, SCHEMA.split(";")):
            conn.execute(statement)
        conn.execute("ATTACH DATABASE ? AS live", (str(journal.path),))
        conn.execute("BEGIN")  # deferred: reading the live file never takes its write lock from the table
        conn.execute("INSERT INTO records SELECT * FROM live.records WHERE seq > ? AND seq <= ?",
                     (base.records, last_record))
        conn.execute("INSERT INTO outbox SELECT seq, topic, CASE WHEN json_extract(payload, '$.type') IN "
                     f"{REPLY_TYPES} THEN NULL ELSE payload END, qos, retain, properties, created_utc, checksum, "
                     "sent_utc, sent_mac FROM live.outbox WHERE seq > ? AND seq <= ?", (base.seq, last_seq))
        head = conn.execute("SELECT hash FROM records WHERE seq = ?", (last_record,)).fetchone()[0]
        span = conn.execute("SELECT min(utc), max(utc), min(round), max(round) FROM records").fetchone()
        dropped = conn.execute("SELECT count(*) FROM outbox WHERE payload IS NULL").fetchone()[0]
        seal = msgspec.json.encode(Seal(journal.epoch, base.records + 1, last_record, head.hex(), base.seq + 1,
                                        last_seq, span[0], span[1], [span[2], span[3]] if span[2] else [], dropped))
        meta = {"format": "2", "epoch": journal.epoch, "chain_length": str(last_record), "chain_head": head.hex(),
                **journal.base_meta(journal.epoch, base), "seal": seal.decode(),
                "seal_mac": journal.chain.sealed(seal)}
        if journal.chain.keyed:
            meta["key_check"] = journal.chain.key_check(journal.epoch)
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", list(meta.items()))
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE live")
        walk(conn, journal.chain, base, tmp, archived=True)
    finally:
        conn.close()
    os.replace(tmp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _advance(journal: Journal, archive: Path, last_record: int, last_seq: int) -> None:
    """The live file forgets what the archive holds and continues from it (one transaction)."""
    with journal._lock:
        conn = journal._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            head = conn.execute("SELECT hash FROM records WHERE seq = ?", (last_record,)).fetchone()[0]
            topics = dict(journal.base.topics)
            topics.update(conn.execute("SELECT topic, max(seq) FROM outbox WHERE seq <= ? GROUP BY topic",
                                       (last_seq,)))
            base = msgspec.structs.replace(journal.base, records=last_record, head=head.hex(), seq=last_seq,
                                           topics=topics, archive=archive.name)
            conn.execute("DELETE FROM records WHERE seq <= ?", (last_record,))
            conn.execute("DELETE FROM outbox WHERE seq <= ?", (last_seq,))
            conn.executemany("UPDATE meta SET value = ? WHERE key = ?",
                             [(v, k) for k, v in journal.base_meta(journal.epoch, base).items()])
            conn.execute("COMMIT")
        except BaseException:
            journal._rollback()
            raise
        journal.base = base
        journal._base_mac = journal.base_meta(journal.epoch, base)["base_mac"]


def prune(storage: Path, journal: Journal, archive_days: int) -> int:
    """Delete archive files older than `archive_days` (never the one the live file continues)."""
    limit = time.time() - archive_days * 86_400
    removed = 0
    for archive in archives(storage):
        if archive.path.name != journal.base.archive and archive.path.stat().st_mtime < limit:
            archive.path.unlink()
            removed += 1
    if removed:
        log.info("journal retention: %d archive files older than %d days removed", removed, archive_days)
    return removed


def verify_archives(storage: Path, journal: Journal) -> list[str]:
    """Walk every archive of the journal's epoch in order, each continuing the previous, the last one
    continued by the live file; one line per archive. Raises `JournalCorrupt` at the first fault."""
    lines, previous = [], None
    for archive in archives(storage, journal.epoch):
        conn = sqlite3.connect(f"file:{archive.path}?mode=ro", uri=True)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            base = msgspec.json.decode(meta["base"], type=Base)
            check_key(archive.path, journal.chain, journal.epoch, meta.get("key_check"))
            check_base(archive.path, journal.chain, journal.epoch, base, meta["base_mac"])
            if journal.chain.sealed(meta["seal"].encode()) != meta["seal_mac"]:
                raise JournalCorrupt(f"{archive.path}: its seal was altered")
            seal = msgspec.json.decode(meta["seal"], type=Seal)
            if previous is not None and (base.records, base.head) != previous:
                raise JournalCorrupt(f"{archive.path}: does not continue the archive before it (an archive is "
                                     "missing or was replaced)")
            end = walk(conn, journal.chain, base, archive.path, archived=True)
        except (sqlite3.DatabaseError, KeyError, msgspec.DecodeError) as exc:
            raise JournalCorrupt(f"{archive.path}: unreadable archive: {exc}") from None
        finally:
            conn.close()
        if (end.records, end.head.hex(), end.last_seq) != (seal.last_record, seal.head, seal.last_seq):
            raise JournalCorrupt(f"{archive.path}: ends at record {end.records}, its seal says {seal.last_record}")
        previous = (end.records, end.head.hex())
        lines.append(f"{archive.path.name}: records {seal.first_record}-{seal.last_record}, messages "
                     f"{seal.first_seq}-{seal.last_seq}, rounds {seal.rounds}, {seal.first_utc} .. {seal.last_utc}: ok")
    if previous is not None and previous != (journal.base.records, journal.base.head):
        raise JournalCorrupt(f"{journal.path}: the live journal does not continue the newest archive")
    return lines

