"""The journal file: atomic transactions, epochs and sequence stamps, the chain, damage found at open."""

from __future__ import annotations

import sqlite3

import msgspec
import pytest

from firmware_host.journal import Journal, JournalCorrupt
from firmware_host.mqtt.contract import EventPayload


def fill(path, n=20, key=None):
    journal = Journal.open(path, key=key)
    for i in range(n):
        with journal.transaction() as txn:
            txn.record("bet_accepted", {"ticket": f"t{i}", "stake": 100 * (i + 1)}, round=i // 5 + 1)
            txn.publish("t/events", EventPayload(table="T1", seq=0, utc="", kind="x", detail={"i": i}))
    journal.close()


def test_pragmas_are_wal_and_full(tmp_path):
    journal = Journal.open(tmp_path / "j.sqlite")
    assert journal._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_records_and_messages_commit_together_or_not_at_all(tmp_path):
    journal = Journal.open(tmp_path / "j.sqlite")
    with pytest.raises(RuntimeError):
        with journal.transaction() as txn:
            txn.record("settlement", {"round": 1}, round=1)
            txn.publish("t/result", b"{}")
            raise RuntimeError("crash before commit")
    assert [r.kind for r in journal.records()] == ["epoch_started"] and journal.messages() == []
    with journal.transaction() as txn:
        txn.record("settlement", {"round": 1}, round=1)
        seq = txn.publish("t/result", EventPayload(table="T1", seq=0, utc="u", kind="k"))
    assert [r.kind for r in journal.records()] == ["epoch_started", "settlement", "outbox"]
    (message,) = journal.messages()
    assert message.seq == seq == 1
    payload = msgspec.json.decode(message.payload)
    assert payload["seq"] == 1 and payload["epoch"] == journal.epoch and payload["prev_seq"] == 0
    journal.close()
    assert Journal.open(tmp_path / "j.sqlite").verify() == 3


def test_epoch_is_random_and_prev_seq_follows_each_topic(tmp_path):
    journal = Journal.open(tmp_path / "j.sqlite")
    assert len(journal.epoch) == 32 and journal.epoch != Journal.open(tmp_path / "k.sqlite").epoch
    topics = ["t/result", "t/events", "t/events", "t/state", "t/result", "t/events"]
    with journal.transaction() as txn:
        for topic in topics[:3]:
            txn.publish(topic, EventPayload(table="T1", seq=0, utc="u"))
    journal.close()
    journal = Journal.open(tmp_path / "j.sqlite")  # the topic heads come back from the file
    with journal.transaction() as txn:
        for topic in topics[3:]:
            txn.publish(topic, EventPayload(table="T1", seq=0, utc="u"))
    got = [(m.topic, msgspec.json.decode(m.payload)["seq"], msgspec.json.decode(m.payload)["prev_seq"])
           for m in journal.messages()]
    assert got == [("t/result", 1, 0), ("t/events", 2, 0), ("t/events", 3, 2), ("t/state", 4, 0),
                   ("t/result", 5, 1), ("t/events", 6, 3)]


def test_sequences_continue_after_reopen(tmp_path):
    fill(tmp_path / "j.sqlite", 3)
    journal = Journal.open(tmp_path / "j.sqlite")
    with journal.transaction() as txn:
        assert txn.record("x", {}) == 8  # epoch_started, then per fill: bet_accepted + outbox
        assert txn.publish("t", b"{}") == 4
    assert journal.verify() == 9


def corrupt(path, sql, *args):
    conn = sqlite3.connect(path)
    conn.execute(sql, args)
    conn.commit()
    conn.close()


@pytest.mark.parametrize("sql, expected", [
    ("UPDATE records SET body = CAST('{\"ticket\":\"t3\",\"stake\":999900}' AS BLOB) WHERE seq = 4",
     "record 4 .* fails its checksum"),
    ("DELETE FROM records WHERE seq = 7", "record 7 is missing"),
    ("DELETE FROM records WHERE seq = 41", "chain ends at record 40 .* records were removed"),
    ("UPDATE records SET round = 9 WHERE seq = 2", "record 2 .* fails its checksum"),
    ("UPDATE outbox SET payload = CAST('{}' AS BLOB) WHERE seq = 5", "outbox message 5 .* fails its checksum"),
])
def test_tampered_record_is_detected_at_open(tmp_path, sql, expected):
    path = tmp_path / "j.sqlite"
    fill(path)
    corrupt(path, sql)
    with pytest.raises(JournalCorrupt, match=expected):
        Journal.open(path)


def test_damaged_file_is_detected_at_open(tmp_path):
    path = tmp_path / "j.sqlite"
    fill(path, 200)
    conn = sqlite3.connect(path)  # fold the WAL into the main file so the damage hits real pages
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    for offset in range(4096 + 100, len(data), 4096):  # scribble over every page after the first
        data[offset:offset + 64] = b"\xa5" * 64
    path.write_bytes(bytes(data))
    with pytest.raises(JournalCorrupt):
        Journal.open(path)


def test_not_a_database(tmp_path):
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalCorrupt, match="not a readable journal"):
        Journal.open(path)


def test_keyed_chain_refuses_a_rebuilt_chain(tmp_path):
    """With a key, someone who edits a record and recomputes plain SHA-256 hashes is still caught."""
    path = tmp_path / "j.sqlite"
    fill(path, 5, key=b"secret")
    assert Journal.open(path, key=b"secret").verify() == 11
    with pytest.raises(JournalCorrupt, match="written with a key"):
        Journal.open(path)  # no key


def test_every_published_state_is_a_point_on_the_chain(tmp_path):
    """`state.journal` names a record and its hash: each one the table published is an anchor its journal holds."""
    from .rig import played_journal

    journal = played_journal(tmp_path / "j.sqlite", 4).journal
    states = [msgspec.json.decode(m.payload) for m in journal.messages() if m.topic.endswith("/state")]
    assert len(states) > 10
    for state in states:
        point = state["journal"]
        assert journal.record_hash(point["records"]).hex() == point["head"] and state["epoch"] == journal.epoch


def test_open_without_create_never_makes_a_journal(tmp_path):
    from firmware_host.journal import JournalMissing

    with pytest.raises(JournalMissing):
        Journal.open(tmp_path / "absent.sqlite", create=False)
    assert not (tmp_path / "absent.sqlite").exists()


def test_a_sent_mark_is_written_once(tmp_path):
    journal = Journal.open(tmp_path / "j.sqlite")
    with journal.transaction() as txn:
        txn.publish("t/a", b"{}")
    journal.mark_sent([1])
    first = journal.messages()[0].sent_utc
    journal.mark_sent([1])  # a duplicate PUBACK after a re-send does not move it
    assert journal.messages()[0].sent_utc == first and journal.verify() == 2  # epoch_started, outbox
