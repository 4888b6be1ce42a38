"""The issue's tamper cases on a journal the round engine wrote: each caught locally (at open) or by the anchor.

"Locally": `Journal.open` refuses the file (`JournalCorrupt`). "By the anchor": the file passes its own
check, but the broker's retained `state` (what the table last published) names a point the journal
does not hold; `anchor.behind` gives the lock-out reason (tests/journal/test_startup.py runs the same
through the real service and broker).
"""

from __future__ import annotations

import pytest

from firmware_host.journal import Journal, JournalCorrupt
from firmware_host.journal.chain import Chain

from .rig import anchor_reason, cut_newest_rounds, played_journal, rebuild_chain, retained_state, rows, sql

KEY = bytes(range(32))


def settled(path):
    return rows(path, "SELECT seq, body FROM records WHERE kind = 'settlement' ORDER BY seq")


def edit_settlement(path):
    """The operator "fixes" round 3's settlement: the bet paid ten times; record and published copy edited."""
    seq, body = settled(path)[2]
    forged = body.replace(b'"paid":5000', b'"paid":50000')
    assert forged != body
    sql(path, ("UPDATE records SET body = ? WHERE seq = ?", forged, seq),
        ("UPDATE outbox SET payload = ? WHERE payload = ?", forged, body))
    return seq


def test_settlement_edited_and_sha_chain_recomputed_without_key_is_caught_by_the_anchor(tmp_path):
    """No key: the forger recomputes every SHA-256: the file passes locally (stated: undetectable on the
    Pi), but the head hash the table published in `state` no longer matches."""
    path = tmp_path / "journal.sqlite"
    engine = played_journal(path, 6)
    published = retained_state(engine.journal)
    engine.journal.close()
    edit_settlement(path)
    rebuild_chain(path, Chain(None))
    journal = Journal.open(path)  # locally consistent
    assert "history was rewritten" in anchor_reason(journal, published)


def test_settlement_edited_and_sha_chain_recomputed_with_key_is_caught_locally(tmp_path):
    path = tmp_path / "journal.sqlite"
    played_journal(path, 6, key=KEY).journal.close()
    edit_settlement(path)
    rebuild_chain(path, Chain(None))  # the forger has no key
    with pytest.raises(JournalCorrupt, match="record 1 .* fails its checksum"):
        Journal.open(path, key=KEY)


def test_settlement_edited_without_recomputing_is_caught_locally(tmp_path):
    path = tmp_path / "journal.sqlite"
    played_journal(path, 6).journal.close()
    seq = edit_settlement(path)
    with pytest.raises(JournalCorrupt, match=f"record {seq} .* fails its checksum"):
        Journal.open(path)


@pytest.mark.parametrize("key", [None, KEY], ids=["no key", "key"])
def test_newest_rounds_deleted_and_head_pointed_back_is_caught_by_the_anchor(tmp_path, key):
    """Consistent with itself (with either chain): only what was published shows that rounds are gone.
    The next round would otherwise be played a second time with the same number."""
    path = tmp_path / "journal.sqlite"
    engine = played_journal(path, 12, key=key)
    published = retained_state(engine.journal)
    engine.journal.close()
    assert cut_newest_rounds(path, 5) == 7
    journal = Journal.open(path, key=key)  # passes locally: stated
    assert "rolled back, truncated or lost committed writes" in anchor_reason(journal, published)


def test_unsent_settlement_marked_sent_is_caught_locally_with_a_key(tmp_path):
    path = tmp_path / "journal.sqlite"
    played_journal(path, 3, key=KEY).journal.close()
    (seq,) = rows(path, "SELECT max(seq) FROM outbox WHERE topic LIKE '%/settlement'")[0]
    sql(path, ("UPDATE outbox SET sent_utc = '2026-01-01T00:00:00.000Z', sent_mac = zeroblob(32) WHERE seq = ?", seq))
    with pytest.raises(JournalCorrupt, match=f"outbox message {seq} .* sent mark is not the journal's"):
        Journal.open(path, key=KEY)


def test_unsent_settlement_marked_sent_without_key_is_served_to_the_ledger(tmp_path):
    """No key: a forged SHA sent mark passes locally (stated), so the settlement is never sent; the ledger
    sees the seq gap and the messages request serves it from the journal (tests/journal/test_messages.py)."""
    from firmware_host.journal.chain import Chain as Plain

    path = tmp_path / "journal.sqlite"
    played_journal(path, 3).journal.close()
    (seq, checksum), = rows(path, "SELECT seq, checksum FROM outbox WHERE topic LIKE '%/settlement' "
                                  "ORDER BY seq DESC LIMIT 1")
    utc = "2026-01-01T00:00:00.000Z"
    sql(path, ("UPDATE outbox SET sent_utc = ?, sent_mac = ? WHERE seq = ?", utc, Plain(None).sent(checksum, utc), seq))
    journal = Journal.open(path)
    assert seq not in [m.seq for m in journal.messages(pending_only=True)]
    assert [s for s, *_ in journal.published(seq - 1, [journal.messages()[seq - 1].topic], 10)][:1] == [seq]


def test_sent_message_deleted_is_caught_locally(tmp_path):
    path = tmp_path / "journal.sqlite"
    played_journal(path, 3).journal.close()
    (seq,) = rows(path, "SELECT min(seq) FROM outbox WHERE topic LIKE '%/settlement'")[0]
    sql(path, ("DELETE FROM outbox WHERE seq = ?", seq))
    with pytest.raises(JournalCorrupt, match=f"outbox message {seq} is missing"):
        Journal.open(path)


def test_journal_zeroed_is_caught_locally(tmp_path):
    path = tmp_path / "journal.sqlite"
    played_journal(path, 2).journal.close()
    path.write_bytes(b"")
    with pytest.raises(JournalCorrupt, match="empty \\(0 bytes\\)"):
        Journal.open(path)


def test_replaced_by_another_journal_is_caught_by_the_anchor(tmp_path):
    """A fresh (or another table's) journal put in its place is valid by itself; its epoch is not the one
    the table published."""
    path = tmp_path / "journal.sqlite"
    engine = played_journal(path, 3)
    published = retained_state(engine.journal)
    engine.journal.close()
    path.unlink()
    played_journal(tmp_path / "other.sqlite", 5).journal.close()
    (tmp_path / "other.sqlite").rename(path)
    assert "names an epoch this journal" in anchor_reason(Journal.open(path), published)


def test_restored_older_copy_of_the_same_epoch_is_caught_by_the_anchor(tmp_path):
    path = tmp_path / "journal.sqlite"
    engine = played_journal(path, 3)
    backup = tmp_path / "backup.sqlite"
    engine.journal._conn.execute("VACUUM INTO ?", (str(backup),))
    from .rig import play

    play(engine, 3)
    published = retained_state(engine.journal)
    engine.journal.close()
    backup.replace(path)
    assert "rolled back" in anchor_reason(Journal.open(path), published)


def test_an_intact_journal_matches_its_anchor(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 4, key=KEY)
    assert anchor_reason(engine.journal, retained_state(engine.journal)) is None
