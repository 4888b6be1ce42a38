"""Rotation: sealed archive files per period, the chain carried across, the last rounds always live."""

from __future__ import annotations

import json
import sqlite3

import pytest

from firmware_host.journal import Journal, JournalCorrupt
from firmware_host.journal.archive import RotationPolicy, archives, rotate, verify_archives
from firmware_host.recall import recall_rounds

from .rig import anchor_reason, play, played_journal, retained_state

KEY = b"k" * 32
KEEP = RotationPolicy(keep_rounds=10)


def sent_all(journal):
    journal.mark_sent([m.seq for m in journal.messages(pending_only=True)])


def test_archive_carries_the_chain_and_keeps_the_last_rounds(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 25, key=KEY)
    journal = engine.journal
    old_state = retained_state(journal)  # an anchor that will fall into the archive
    play(engine, 5)
    sent_all(journal)
    records, last_seq = journal.head_seq, journal.last_seq
    written = rotate(journal, tmp_path, KEEP, force=True)
    assert written is not None and written.parent == tmp_path / "archive"
    assert journal.base.records > 0 and (journal.head_seq, journal.last_seq) == (records, last_seq)
    journal.close()
    journal = Journal.open(tmp_path / "journal.sqlite", key=KEY)  # the live file verifies from its base
    assert [r.round for r in recall_rounds(journal, 10)] == list(range(31, 21, -1))  # 30 closed + round 31 open
    assert anchor_reason(journal, old_state) is None  # an archived anchor point is found in the archive
    lines = verify_archives(tmp_path, journal)
    assert len(lines) == 1 and lines[0].endswith(": ok")
    everything = list(journal.records(kind="settlement"))  # readers reaching back read through the archive
    assert [r.round for r in everything] == list(range(1, 31))
    with journal.transaction() as txn:  # and the chain goes on
        txn.record("x", {})
    journal.close()
    assert Journal.open(tmp_path / "journal.sqlite", key=KEY).verify() == records + 1


def test_replies_are_dropped_from_the_archive_but_stay_chained(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 15)
    sent_all(engine.journal)
    path = rotate(engine.journal, tmp_path, KEEP, force=True)
    conn = sqlite3.connect(path)
    kinds = {json.loads(p)["type"] if p else None for (p,) in conn.execute("SELECT payload FROM outbox")}
    conn.close()
    assert None in kinds and "bet_response" not in kinds and {"result", "settlement", "state"} <= kinds


def test_unsent_table_messages_hold_the_rotation_up(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 15)
    assert rotate(engine.journal, tmp_path, KEEP, force=True) is None
    assert not archives(tmp_path)


def test_an_edited_archive_is_caught_by_verify_archives(tmp_path):
    """Start-up does not walk the archives (stated): `tablehw journal verify --archives` does."""
    engine = played_journal(tmp_path / "journal.sqlite", 15)
    sent_all(engine.journal)
    path = rotate(engine.journal, tmp_path, KEEP, force=True)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE records SET body = CAST('{}' AS BLOB) WHERE kind = 'settlement'")
    conn.commit()
    conn.close()
    engine.journal.close()
    journal = Journal.open(tmp_path / "journal.sqlite")
    with pytest.raises(JournalCorrupt, match="fails its checksum"):
        verify_archives(tmp_path, journal)


def test_a_missing_middle_archive_is_caught_by_verify_archives(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 15)
    written = []
    for _ in range(3):
        sent_all(engine.journal)
        written.append(rotate(engine.journal, tmp_path, KEEP, force=True))
        play(engine, 6)
    assert all(written)
    written[1].unlink()
    with pytest.raises(JournalCorrupt, match="does not continue the archive before it"):
        verify_archives(tmp_path, engine.journal)
