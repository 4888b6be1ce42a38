"""The ledger as processes on a real Mosquitto: booked end to end, anchored, caught up, shared, alarmed."""

from __future__ import annotations

import json

import paho.mqtt.client as mqtt

from firmware_host.cli import main
from tests.service.broker import MosquittoBroker, free_port
from tests.service.listener import Listener

from . import rig
from .postgres import PostgresCluster


def test_every_round_is_booked_cent_for_cent_and_anchored(books_url, broker, tmp_path):
    url = rig.prepare_books(books_url)
    ledger = rig.start_ledger(url, broker.url, "ledger-a", tmp_path)
    assert rig.wait_online(broker.url, "ledger-a")
    table = rig.start_stand_in("craps-1", broker.url, tmp_path / "craps-1", 25, tmp_path, "--pace", "0.02")
    try:
        assert rig.wait_until(lambda: len(rig.booked_settlements(url)) >= 25, 90), ledger.log.read_text()[-3000:]
        journal = rig.journal_settlements(tmp_path / "craps-1" / "journal.sqlite")
        assert len(journal) == 25 and rig.same_books(journal, rig.booked_settlements(url)) == []
        newest_state = rig.books_value(url, "SELECT epoch, seq, records, head, round FROM states ORDER BY seq DESC "
                                            "LIMIT 1")[0]
        assert rig.wait_until(lambda: rig.books_value(url, "SELECT epoch, seq, records, head, round FROM anchors "
                                                          "WHERE published_utc IS NOT NULL") == [newest_state], 30)
        retained = Listener(broker.url, ["tablehw/ledger/anchors/craps-1"])
        try:
            assert retained.wait_for(lambda got: got, 10)
            anchor = retained.snapshot()[0].json()
        finally:
            retained.close()
        assert anchor["type"] == "anchor" and anchor["schema"] == 1 and anchor["table"] == "craps-1"
        assert (anchor["epoch"], anchor["seq"], anchor["records"], anchor["head"], anchor["round"]) == newest_state
        assert rig.books_value(url, "SELECT COUNT(*) FROM gaps") == [(0,)]
        assert rig.books_value(url, "SELECT COUNT(*) FROM anomalies") == [(0,)]
    finally:
        rig.stop(table)
        assert rig.stop(ledger) == 0


def test_a_ledger_that_lost_its_session_catches_up_from_the_controller(tmp_path):
    """The broker forgets the ledger's session (restarted without persistence): what it missed is asked for."""
    broker = MosquittoBroker(tmp_path / "broker", persistence=False).start()
    url = rig.prepare_books(f"sqlite:///{tmp_path / 'books.sqlite'}")
    ledger = rig.start_ledger(url, broker.url, "ledger-a", tmp_path)
    assert rig.wait_online(broker.url, "ledger-a")
    table = rig.start_stand_in("roul-1", broker.url, tmp_path / "roul-1", 60, tmp_path, "--pace", "0.1")
    try:
        assert rig.wait_until(lambda: len(rig.booked_settlements(url)) >= 5, 60)
        rig.kill(ledger)
        assert rig.wait_until(lambda: len(rig.journal_settlements(tmp_path / "roul-1" / "journal.sqlite")) >= 25, 60)
        broker.kill()
        broker.start()
        ledger = rig.start_ledger(url, broker.url, "ledger-a", tmp_path)
        assert rig.wait_until(lambda: len(rig.journal_settlements(tmp_path / "roul-1" / "journal.sqlite")) >= 60, 90)
        journal = lambda: rig.journal_settlements(tmp_path / "roul-1" / "journal.sqlite")  # noqa: E731
        assert rig.wait_until(lambda: rig.same_books(journal(), rig.booked_settlements(url)) == [], 90), \
            rig.same_books(journal(), rig.booked_settlements(url))[:5]
        filled = rig.books_value(url, "SELECT COUNT(*), SUM(CASE WHEN filled_via = 'recall' THEN 1 ELSE 0 END) FROM "
                                      "gaps WHERE filled_utc IS NOT NULL")[0]
        assert filled[0] > 0 and filled[1] > 0, filled
        assert rig.books_value(url, "SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL") == [(0,)]
        recalled = rig.books_value(url, "SELECT COUNT(*) FROM messages WHERE via = 'recall'")[0][0]
        assert recalled > 50
    finally:
        rig.stop(table)
        rig.stop(ledger)
        broker.kill()


def test_what_the_controller_archived_is_reported_as_a_gap_it_cannot_fill(broker, tmp_path):
    url = rig.prepare_books(f"sqlite:///{tmp_path / 'books.sqlite'}")
    storage = tmp_path / "bac-1"
    first = rig.start_stand_in("bac-1", broker.url, storage, 10, tmp_path, "--pace", "0")
    assert rig.wait_until(lambda: len(rig.journal_settlements(storage / "journal.sqlite")) >= 10, 60)
    rig.stop(first)
    ledger = rig.start_ledger(url, broker.url, "ledger-a", tmp_path)
    assert rig.wait_online(broker.url, "ledger-a")
    table = rig.start_stand_in("bac-1", broker.url, storage, 15, tmp_path, "--pace", "0.2", "--archive-below", "60")
    alarms = Listener(broker.url, ["tablehw/ledger/alarms"])
    try:
        assert rig.wait_until(lambda: rig.books_value(url, "SELECT COUNT(*) FROM anomalies WHERE kind = "
                                                           "'gap_unfillable'")[0][0] > 0, 60), ledger.log.read_text()[-3000:]
        (detail,), = rig.books_value(url, "SELECT detail FROM anomalies WHERE kind = 'gap_unfillable'")
        assert json.loads(detail)["first_available"] == 60
        assert alarms.wait_for(lambda got: any(m.json()["kind"] == "gap_unfillable" for m in got), 30)
        assert rig.wait_until(lambda: rig.books_value(url, "SELECT alarmed_utc IS NOT NULL FROM anomalies") == [(1,)],
                              30)
        assert rig.wait_until(lambda: len(rig.journal_settlements(storage / "journal.sqlite")) == 15, 60)
        journal = rig.journal_settlements(storage / "journal.sqlite")
        still_there = {key: payload for key, payload in journal.items() if payload["seq"] >= 60}
        assert 0 < len(still_there) < 15
        assert rig.wait_until(lambda: rig.same_books(still_there, rig.booked_settlements(url)) == [], 60), \
            rig.same_books(still_there, rig.booked_settlements(url))
    finally:
        alarms.close()
        rig.stop(table)
        rig.stop(ledger)


def test_two_instances_in_one_group_book_each_round_once(postgres, broker, tmp_path):
    url = rig.prepare_books(postgres.database())
    ledgers = [rig.start_ledger(url, broker.url, user, tmp_path) for user in ("ledger-a", "ledger-b")]
    assert all(rig.wait_online(broker.url, user) for user in ("ledger-a", "ledger-b"))
    tables = [rig.start_stand_in(t, broker.url, tmp_path / t, 30, tmp_path, "--pace", "0.02")
              for t in ("craps-1", "bac-1")]
    try:
        journals = lambda: rig.journal_settlements(*(tmp_path / t / "journal.sqlite" for t in ("craps-1", "bac-1")))  # noqa: E731
        assert rig.wait_until(lambda: len(journals()) == 60 and rig.same_books(journals(), rig.booked_settlements(url))
                              == [], 120), rig.same_books(journals(), rig.booked_settlements(url))[:5]
        by_instance = dict(rig.books_value(url, "SELECT booked_by, COUNT(*) FROM messages GROUP BY booked_by"))
        assert set(by_instance) == {"ledger-a", "ledger-b"}, by_instance
        holders = rig.books_value(url, "SELECT holder FROM leases WHERE name = 'warden'")
        assert holders and holders[0][0] in ("ledger-a", "ledger-b")
    finally:
        for process in tables + ledgers:
            rig.stop(process)


def test_a_retained_anchor_that_differs_from_the_books_is_published_again(broker, tmp_path):
    url = rig.prepare_books(f"sqlite:///{tmp_path / 'books.sqlite'}")
    ledger = rig.start_ledger(url, broker.url, "ledger-a", tmp_path)
    assert rig.wait_online(broker.url, "ledger-a")
    table = rig.start_stand_in("craps-2", broker.url, tmp_path / "craps-2", 5, tmp_path, "--pace", "0")
    topic = "tablehw/ledger/anchors/craps-2"
    try:
        assert rig.wait_until(lambda: rig.books_value(url, "SELECT COUNT(*) FROM anchors WHERE published_utc IS NOT "
                                                           "NULL")[0][0] == 1, 60)
        rig.wait_until(lambda: len(rig.booked_settlements(url)) >= 5, 60)
        forger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        forger.connect("127.0.0.1", broker.port)
        forger.loop_start()
        stale = {"schema": 1, "type": "anchor", "table": "craps-2", "epoch": "0" * 32, "seq": 1, "records": 1,
                 "head": "0" * 64, "round": 1, "utc": "2026-01-01T00:00:00.000Z"}
        forger.publish(topic, json.dumps(stale), qos=1, retain=True).wait_for_publish(10)
        forger.disconnect()
        forger.loop_stop()
        def retained_is_the_books():
            listener = Listener(broker.url, [topic])
            try:
                listener.wait_for(lambda got: got, 5)
                got = listener.snapshot()
                books = rig.books_value(url, "SELECT epoch, seq FROM anchors")
                return bool(got) and [(got[-1].json()["epoch"], got[-1].json()["seq"])] == books
            finally:
                listener.close()
        assert rig.wait_until(retained_is_the_books, 30)
    finally:
        rig.stop(table)
        rig.stop(ledger)


def test_while_the_books_are_down_nothing_is_acknowledged_and_nothing_is_lost(broker, tmp_path):
    cluster = PostgresCluster().start()  # its own server: this test crashes it
    try:
        url = rig.prepare_books(cluster.database())
        ledger = rig.start_ledger(url, broker.url, "ledger-a", tmp_path)
        assert rig.wait_online(broker.url, "ledger-a")
        table = rig.start_stand_in("craps-3", broker.url, tmp_path / "craps-3", 30, tmp_path, "--pace", "0.1")
        journal = lambda: rig.journal_settlements(tmp_path / "craps-3" / "journal.sqlite")  # noqa: E731
        assert rig.wait_until(lambda: len(rig.booked_settlements(url)) >= 3, 60)
        cluster.halt()
        assert rig.wait_until(lambda: len(journal()) >= 20, 90)
        assert ledger.poll() is None, "the instance must wait for its books, not exit"
        cluster.resume()
        assert rig.wait_until(lambda: len(journal()) == 30 and rig.same_books(journal(), rig.booked_settlements(url))
                              == [], 120), rig.same_books(journal(), rig.booked_settlements(url))[:5]
        assert "books: lost" in ledger.log.read_text()  # it saw them gone and kept trying
        assert rig.books_value(url, "SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL") == [(0,)]
        rig.stop(table)
        assert rig.stop(ledger) == 0
    finally:
        cluster.stop()


def test_the_command_refuses_missing_or_unreachable_books_naming_them(capsys):
    assert main(["ledger", "--mqtt", "mqtt://127.0.0.1:1"]) == 2
    assert "needs --db URL and --mqtt URL" in capsys.readouterr().err
    assert main(["ledger", "--db", "postgresql://nobody@127.0.0.1:1/books", "--mqtt", "mqtt://127.0.0.1:1"]) == 2
    assert "postgresql://nobody@127.0.0.1:1/books: cannot connect to the books" in capsys.readouterr().err
    assert main(["ledger", "--db", "sqlite:///x", "--mqtt", "http://broker"]) == 2
    assert "expected mqtt://host[:port]" in capsys.readouterr().err


def test_the_metrics_endpoint_counts_what_was_booked_and_what_needs_a_person(broker, tmp_path):
    import urllib.request

    url = rig.prepare_books(f"sqlite:///{tmp_path / 'books.sqlite'}")
    port = free_port()
    ledger = rig.start_ledger(url, broker.url, "ledger-a", tmp_path, "--metrics-port", str(port))
    assert rig.wait_online(broker.url, "ledger-a")
    table = rig.start_stand_in("craps-4", broker.url, tmp_path / "craps-4", 5, tmp_path, "--pace", "0")
    try:
        assert rig.wait_until(lambda: len(rig.booked_settlements(url)) >= 5, 60)
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        client.publish("tablehw/tables/craps-4/result", b"{not json", qos=1).wait_for_publish(10)
        client.disconnect()
        client.loop_stop()

        def scrape() -> dict[str, float]:
            text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
            return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                    if line.startswith("tablehw_ledger")}
        assert rig.wait_until(lambda: scrape().get('tablehw_ledger_anomalies_total{kind="malformed"}') == 1.0, 30)
        metrics = scrape()
        booked = rig.books_value(url, "SELECT COUNT(*) FROM messages")[0][0]
        assert metrics['tablehw_ledger_messages_total{outcome="booked"}'] == booked
        assert metrics['tablehw_ledger_messages_total{outcome="refused"}'] == 1.0
        assert metrics["tablehw_ledger_warden"] == 1.0 and metrics["tablehw_ledger_tables"] == 1.0
        assert metrics["tablehw_ledger_gaps_open"] == 0.0 and metrics["tablehw_ledger_gaps_unfillable"] == 0.0
    finally:
        rig.stop(table)
        rig.stop(ledger)
