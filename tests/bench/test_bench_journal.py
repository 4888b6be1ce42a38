"""Benchmarks of the journal (printed; they assert only that something was measured):

1. bytes per round: the live journal, its archive, and evidence (rendered craps frames as JPEG);
2. a busy table's year, ~300,000 craps rounds with 12 bets each, written through the production
   Transaction API (fsync off while generating: the write path is not what is timed here) and rotated
   daily by the production `rotate`; then the production start-up check timed on it (target <= 10 s
   here; a Pi is ~4x slower, systemd waits 120 s), and the full walk of every archive
   (`tablehw journal verify --archives`, not done at start) timed beside it.
"""

from __future__ import annotations

import os
import statistics
import time

from firmware_host.evidence import EvidenceStore
from firmware_host.journal import Journal, load_key
from firmware_host.journal.anchor import Anchor, behind
from firmware_host.journal.archive import RotationPolicy, archived_hash, archives, due, rotate, verify_archives
from firmware_host.simulation.rendered_camera import RenderedCamera
from tests.journal.rig import played_journal

KEY = bytes(range(32))
BETS = 12
YEAR_ROUNDS = 300_000
ROUNDS_PER_DAY = 822  # 300,000 / 365


class SimClock:
    """Wall time of the simulated year: each round 100 s after the last (822 rounds a day)."""

    def __init__(self, start: float) -> None:
        self.now = start

    def utc(self) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(self.now))

    def monotonic(self) -> float:
        return self.now


def size_mb(path) -> float:
    return os.path.getsize(path) / 1e6


def template_round(tmp_path):
    """One real craps round of 12 bets, written by the round engine: its transactions as (records, messages)."""
    from tests.journal.rig import play
    from tests.service.engine_harness import bet, feed

    engine = played_journal(tmp_path / "template.sqlite", 2, key=KEY)
    journal = engine.journal
    start_record, start_seq = journal.head_seq, journal.last_seq
    feed(engine, *[bet(engine, f"x{n}", "field", 5000) for n in range(BETS - 1)])  # a burst: one transaction
    play(engine, 1)
    records = list(journal.records(after=start_record))
    messages = {m.seq: m for m in journal.messages(after=start_seq)}
    txns, current = [], []
    for record in records:
        if record.kind == "outbox":
            seal = record.data()
            txns.append((current, [messages[s] for s in range(seal["first"], seal["last"] + 1)]))
            current = []
        else:
            current.append(record)
    if current:
        txns.append((current, []))
    journal.close()
    return txns


def write_round(journal: Journal, txns, round_no: int) -> None:
    for records, messages in txns:
        with journal.transaction() as txn:
            for record in records:
                txn.record(record.kind, record.body, round=round_no if record.round is not None else None)
            for m in messages:
                txn.publish(m.topic, m.payload, retain=m.retain, qos=m.qos, properties=m.properties)


def test_bytes_per_round(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 2, key=KEY)
    engine.journal.close()
    txns = template_round(tmp_path)
    journal = Journal.open(tmp_path / "journal.sqlite", key=KEY)
    rounds = 400
    for n in range(rounds):
        write_round(journal, txns, 100 + n)
    journal.mark_sent([m.seq for m in journal.messages(pending_only=True)])
    journal._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    live = os.path.getsize(journal.path) / rounds
    archive = rotate(journal, tmp_path, RotationPolicy(keep_rounds=10), force=True)
    archived = os.path.getsize(archive) / (rounds - 10)
    journal.close()
    camera = RenderedCamera("craps", seed=5)
    store = EvidenceStore(tmp_path / "ev", 30, table="craps-1")
    sizes = []
    for n in range(30):
        shot = camera.throw("valid")
        evidence = store.save_frame("craps", n + 1, 1, shot.image)
        sizes.append(os.path.getsize(tmp_path / "ev" / evidence.ref))
    per_frame = statistics.mean(sizes)
    print(f"\n[journal] craps, {BETS} bets a round: live journal {live / 1024:.1f} kB/round, archived "
          f"{archived / 1024:.1f} kB/round (replies dropped); evidence JPEG {per_frame / 1024:.1f} kB/frame "
          f"(max {max(sizes) / 1024:.1f} kB, 1280x720 rendered frames, ~1.05 frames a round with 5% void throws)")
    year = YEAR_ROUNDS
    print(f"[journal] a year of {year:,} rounds: archives {archived * year / 1e9:.2f} GB, evidence "
          f"{per_frame * 1.05 * year / 1e9:.2f} GB, live journal <= {live * ROUNDS_PER_DAY / 1e6:.0f} MB (one day)")
    assert live > 0 and archived > 0 and per_frame > 0


def generate_year(tmp_path, storage) -> float:
    """A busy year written into `storage` (key file `storage/key`); returns the seconds it took."""
    txns = template_round(tmp_path)
    storage.mkdir()
    (storage / "key").write_bytes(KEY)
    clock = SimClock(time.time() - 366 * 86_400)
    journal = Journal.open(storage / "journal.sqlite", key=KEY, clock=clock)
    journal._conn.execute("PRAGMA synchronous = OFF")  # generation only: the checks timed below are not affected
    policy = RotationPolicy(rotate_days=1, rotate_mb=64, keep_rounds=10, archive_days=3650)
    started = time.monotonic()
    for n in range(1, YEAR_ROUNDS + 1):
        write_round(journal, txns, n)
        clock.now += 86_400 / ROUNDS_PER_DAY
        if n % ROUNDS_PER_DAY == 0:
            journal.mark_sent([m.seq for m in journal.messages(pending_only=True)])
            assert rotate(journal, storage, policy, force=True) is not None
    journal.mark_sent([m.seq for m in journal.messages(pending_only=True)])
    journal.close()
    return time.monotonic() - started


def time_startup(storage) -> dict:
    """The production start-up check on `storage` (less the broker round trip), three times, and the full walk
    of every archive. The anchor is the newest point the table published: its last message and record."""
    policy = RotationPolicy(rotate_days=1, rotate_mb=64, keep_rounds=10, archive_days=3650)
    journal = Journal.open(storage / "journal.sqlite", key=KEY, create=False)
    published = Anchor("the broker's retained state", journal.epoch, journal.last_seq, journal.head_seq,
                       journal.record_hash(journal.head_seq).hex())
    old = Anchor("the ledger's anchor (a month old)", journal.epoch, journal.base.seq - 30 * ROUNDS_PER_DAY * 21,
                 journal.base.records - 30 * ROUNDS_PER_DAY * 23,
                 archived_hash(storage, journal, journal.base.records - 30 * ROUNDS_PER_DAY * 23).hex())
    journal.close()
    timings = []
    for _ in range(3):
        began = time.monotonic()
        key = load_key(storage / "key")
        journal = Journal.open(storage / "journal.sqlite", key=key, create=False)
        reasons = [behind(journal, a, lambda n: archived_hash(storage, journal, n)) for a in (published, old)]
        due(journal, policy)
        timings.append(time.monotonic() - began)
        live_records = journal.head_seq - journal.base.records
        journal.close()
        assert reasons == [None, None]
    journal = Journal.open(storage / "journal.sqlite", key=KEY, create=False)
    began = time.monotonic()
    lines = verify_archives(storage, journal)
    walked = time.monotonic() - began
    records = journal.head_seq
    journal.close()
    files = archives(storage)
    return {"timings": timings, "walked": walked, "archives": len(lines), "records": records,
            "live_records": live_records, "files": len(files),
            "bytes": sum(os.path.getsize(a.path) for a in files) + os.path.getsize(storage / "journal.sqlite")}


def report_year(figures: dict, generated: float | None) -> None:
    made = f"; generated in {generated:.0f} s" if generated is not None else ""
    print(f"\n[journal] a year: {YEAR_ROUNDS:,} rounds ({BETS} bets each), {figures['records']:,} records, "
          f"{figures['files']} daily archives, {figures['bytes'] / 1e9:.2f} GB on disk{made}")
    print(f"[journal] start-up check (key, open + verify of the live file: {figures['live_records']:,} records; "
          f"anchor compare with the newest state and a month-old ledger anchor; rotation check): median "
          f"{statistics.median(figures['timings']):.2f} s, max {max(figures['timings']):.2f} s (target <= 10 s here)")
    print(f"[journal] full walk of every archive (tablehw journal verify --archives, not at start): "
          f"{figures['walked']:.0f} s for {figures['archives']} archives")


def test_startup_verification_after_a_busy_year(tmp_path):
    storage = tmp_path / "storage"
    generated = generate_year(tmp_path, storage)
    figures = time_startup(storage)
    report_year(figures, generated)
    assert figures["timings"] and figures["archives"] == figures["files"] > 300
