"""The ledger against the real controller (`tablehw run --simulate`): booked cent for cent, gaps filled with
the controller's `messages` answers, and the retained anchor the controller checks at start (docs/mqtt.md)."""

from __future__ import annotations

import shutil

from tests.schema.payload_schemas import payload_problems
from tests.service.broker import MosquittoBroker
from tests.service.listener import Listener
from tests.service.table_run import run_table, start_table, stop_table, table_config

from . import rig

PACE = {"action_seconds": 0.02, "betting_seconds": 0.05, "camera": "random"}
ANCHOR = "tablehw/ledger/anchors/sim-roulette"


def roulette(tmp_path, broker):
    (tmp_path / "table").mkdir()
    return table_config(tmp_path / "table", "roulette", broker.url, sections={
        "access": {"back_office": ["backoffice"]}, "storage": {"anchor_wait_s": 10}}, **PACE)


def journal(tmp_path):
    return tmp_path / "table" / "storage" / "journal.sqlite"


def retained_anchor(url: str) -> dict:
    listener = Listener(url, [ANCHOR])
    try:
        assert listener.wait_for(lambda got: got, 15), "no retained anchor"
        return listener.snapshot()[-1].json()
    finally:
        listener.close()


def test_a_lost_journal_is_locked_out_by_the_ledgers_anchor_alone(tmp_path):
    """The broker loses every retained message (no persistence); the ledger publishes its anchor again from the
    books; the table whose journal was lost refuses to start, naming the ledger's anchor."""
    broker = MosquittoBroker(tmp_path / "broker", persistence=False).start()
    url = rig.prepare_books(f"sqlite:///{tmp_path / 'books.sqlite'}")
    ledger = rig.start_ledger(url, broker.url, "backoffice", tmp_path)
    try:
        assert rig.wait_online(broker.url, "backoffice")
        config = roulette(tmp_path, broker)
        played = run_table(config, rounds=6, timeout_s=300, log_level="WARNING")
        assert played.returncode == 0, played.stderr[-3000:]
        settled = rig.journal_settlements(journal(tmp_path))
        assert len(settled) == 6
        assert rig.wait_until(lambda: rig.same_books(settled, rig.booked_settlements(url)) == [], 60), \
            rig.same_books(settled, rig.booked_settlements(url))
        newest = rig.books_value(url, "SELECT epoch, seq, records, head, round FROM states ORDER BY seq DESC LIMIT 1")
        assert rig.wait_until(lambda: rig.books_value(url, "SELECT epoch, seq, records, head, round FROM anchors "
                                                          "WHERE published_utc IS NOT NULL") == newest, 60)
        anchor = retained_anchor(broker.url)
        assert payload_problems(anchor) == []  # docs/schema/mqtt/anchor.json
        assert (anchor["epoch"], anchor["seq"], anchor["records"], anchor["head"], anchor["round"]) == newest[0]
        assert rig.books_value(url, "SELECT COUNT(*) FROM anomalies") == [(0,)]

        rig.stop(ledger)
        broker.kill()
        broker.start()  # nothing retained any more: not the table's state, not the anchor
        ledger = rig.start_ledger(url, broker.url, "backoffice", tmp_path)
        assert retained_anchor(broker.url) == anchor  # published again from the books
        for suffix in ("", "-wal", "-shm"):
            lost = journal(tmp_path).with_name(journal(tmp_path).name + suffix)
            if lost.exists():
                shutil.move(lost, tmp_path / f"lost-journal.sqlite{suffix}")
        refused = run_table(config, rounds=1, timeout_s=120, log_level="WARNING")
        assert refused.returncode == 78 and "LOCKED OUT" in refused.stderr, refused.stderr[-3000:]
        assert "the ledger's anchor" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr[-3000:]
    finally:
        assert rig.stop(ledger) == 0
        broker.kill()


def test_what_a_killed_ledger_missed_is_asked_of_the_real_controller(tmp_path):
    """The ledger is killed while the table plays and the broker forgets its session: once back it books what it
    missed from the controller's `messages` answers (its start-up audit or a gap), each round once, cent for cent."""
    broker = MosquittoBroker(tmp_path / "broker", persistence=False).start()
    url = rig.prepare_books(f"sqlite:///{tmp_path / 'books.sqlite'}")
    ledger = rig.start_ledger(url, broker.url, "backoffice", tmp_path)
    table = None
    try:
        assert rig.wait_online(broker.url, "backoffice")
        table = start_table(roulette(tmp_path, broker), log_level="WARNING")
        assert rig.wait_until(lambda: len(rig.booked_settlements(url)) >= 2, 120), ledger.log.read_text()[-3000:]
        rig.kill(ledger)
        seen = len(rig.journal_settlements(journal(tmp_path)))
        assert rig.wait_until(lambda: len(rig.journal_settlements(journal(tmp_path))) >= seen + 8, 120)
        broker.kill()
        broker.start()  # the ledger's session and its queued messages are gone
        missed = rig.journal_settlements(journal(tmp_path))
        ledger = rig.start_ledger(url, broker.url, "backoffice", tmp_path)

        def missed_booked():  # asked of the controller while it still plays and answers `messages` requests
            booked = rig.booked_settlements(url)
            return rig.same_books(missed, {key: booked[key] for key in missed if key in booked}) == []
        assert rig.wait_until(missed_booked, 120, every_s=1.0), ledger.log.read_text()[-3000:]
        assert rig.wait_until(lambda: len(rig.journal_settlements(journal(tmp_path))) >= len(missed) + 2, 120)
        stop_table(table, 60)

        def caught_up():
            return rig.same_books(rig.journal_settlements(journal(tmp_path)), rig.booked_settlements(url)) == [] and \
                rig.books_value(url, "SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL") == [(0,)]
        assert rig.wait_until(caught_up, 120, every_s=1.0), (
            rig.same_books(rig.journal_settlements(journal(tmp_path)), rig.booked_settlements(url))[:5],
            ledger.log.read_text()[-3000:])
        assert rig.books_value(url, "SELECT COUNT(*) FROM messages WHERE via = 'recall'")[0][0] > 0
        assert rig.books_value(url, "SELECT kind FROM anomalies") == []
    finally:
        if table is not None:
            stop_table(table, 60)
        assert rig.stop(ledger) == 0
        broker.kill()
