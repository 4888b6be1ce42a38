"""Chaos: 3 tables, 2 ledger instances in one shared group on PostgreSQL, processes killed with SIGKILL and the
broker restarted while rounds are played -> every settled round booked once, cent for cent, every gap filled,
every planted anomaly reported (and nothing else)."""

from __future__ import annotations

import json
import random
import shutil
import time

import paho.mqtt.client as mqtt
import pytest

from tests.service.broker import MosquittoBroker
from tests.service.listener import Listener

from . import rig

TABLES = ("craps-1", "roul-1", "bac-1")
ROUNDS = 110  # per table and journal: 330 rounds, plus the replaced journal's
REPLACED = "bac-1"
SECOND_EPOCH_ROUNDS = 30
LEDGER_ARGS = ("--audit-every", "20")


class Floor:
    """The processes under test, restarted in place after each kill."""

    def __init__(self, tmp_path, broker, books_url):
        self.tmp, self.broker, self.url = tmp_path, broker, books_url
        self.ledgers = {u: rig.start_ledger(books_url, broker.url, u, tmp_path, *LEDGER_ARGS)
                        for u in ("ledger-a", "ledger-b")}
        assert all(rig.wait_online(broker.url, user) for user in self.ledgers)
        self.rounds_target = {t: ROUNDS for t in TABLES}
        self.tables = {t: self._table(t, ROUNDS) for t in TABLES}

    def _table(self, table, rounds):
        return rig.start_stand_in(table, self.broker.url, self.tmp / table, rounds, self.tmp, "--pace", "0.5")

    def kill_table(self, table):
        rig.kill(self.tables[table])
        self.tables[table] = self._table(table, self.rounds_target[table])

    def kill_ledger(self, user):
        rig.kill(self.ledgers[user])
        time.sleep(0.3)
        self.ledgers[user] = rig.start_ledger(self.url, self.broker.url, user, self.tmp, *LEDGER_ARGS)

    def journal_files(self):
        return sorted(self.tmp.glob("*/journal*.sqlite"))

    def journals(self):
        return rig.journal_settlements(*self.journal_files())

    def played(self, table):
        return len(rig.journal_settlements(self.tmp / table / "journal.sqlite"))

    def stop(self):
        for process in [*self.tables.values(), *self.ledgers.values()]:
            rig.stop(process)


def forgery(payload: dict) -> dict:
    """A settlement's (table, epoch, seq) with other bytes: one unit more paid."""
    return dict(payload, totals=dict(payload["totals"], paid=payload["totals"]["paid"] + 1))


def publish_as_rogue(broker, payload: dict) -> None:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        client.publish(f"tablehw/tables/{payload['table']}/settlement", json.dumps(payload), qos=1).wait_for_publish(10)
    finally:
        client.disconnect()
        client.loop_stop()


def replace_journal(floor: Floor, table: str) -> None:
    """What docs/deploy.md's journal replacement does: the table stops, its journal goes, a new epoch starts
    (round numbers going on after the retained state and the anchor)."""
    old = floor.tmp / table / "journal.sqlite"
    assert rig.stop(floor.tables[table]) == 0
    mine = {k: v for k, v in rig.journal_settlements(old).items()}
    assert rig.wait_until(lambda: rig.same_books(mine, {k: v for k, v in rig.booked_settlements(floor.url).items()
                                                         if k[0] == table}) == [], 90), "old epoch not booked"
    for suffix in ("", "-wal", "-shm"):
        source = old.with_name(old.name + suffix)
        if source.exists():
            shutil.move(source, floor.tmp / table / f"journal-epoch1.sqlite{suffix}")
    floor.rounds_target[table] = SECOND_EPOCH_ROUNDS
    floor.tables[table] = floor._table(table, SECOND_EPOCH_ROUNDS)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_chaos_every_round_booked_once_cent_for_cent(postgres, tmp_path):
    started = time.monotonic()
    chance = random.Random(16)
    broker = MosquittoBroker(tmp_path / "broker").start()
    url = rig.prepare_books(postgres.database())
    floor = Floor(tmp_path, broker, url)
    kills = {"table": 0, "ledger": 0}
    restarts = {"graceful": 0, "kill -9": 0}
    planted: dict = {}
    try:
        step = 0
        while sum(kills.values()) < 24 or sum(restarts.values()) < 6:
            step += 1
            time.sleep(chance.uniform(0.4, 1.0))
            if step % 5 == 0:
                graceful = step % 10 == 0
                broker.stop() if graceful else broker.kill()
                time.sleep(chance.uniform(0.3, 1.2))
                broker.start()
                restarts["graceful" if graceful else "kill -9"] += 1
            elif step % 2:
                floor.kill_table(chance.choice(TABLES))
                kills["table"] += 1
            else:
                floor.kill_ledger(chance.choice(("ledger-a", "ledger-b")))
                kills["ledger"] += 1
            if "replayed" not in planted and floor.played("craps-1") >= 20:
                booked = rig.booked_settlements(url)  # replay one the books hold (a forgery first would stand)
                victims = [p for k, p in sorted(rig.journal_settlements(tmp_path / "craps-1" / "journal.sqlite").items())
                           if k in booked]
                if victims:
                    planted["replayed"] = forgery(victims[len(victims) // 2])
                    publish_as_rogue(broker, planted["replayed"])
            assert time.monotonic() - started < 400, "chaos took too long"
        chaos_s = time.monotonic() - started
        forged = planted["replayed"]
        resent = 0  # a rogue's message has no outbox: a broker killed with it in flight loses it, so it tries again
        while not rig.books_value(url, "SELECT COUNT(*) FROM anomalies WHERE kind = 'seq_replayed'")[0][0]:
            assert resent < 12, "the replayed seq was never reported"
            if resent:
                publish_as_rogue(broker, forged)
            resent += 1
            time.sleep(5)
        played = {t: floor.played(t) for t in TABLES}
        print(f"\nchaos over after {chaos_s:.0f} s with rounds played {played}")
        assert played[REPLACED] < ROUNDS, "the tables finished before the chaos: slow them down"
        assert rig.wait_until(lambda: floor.played(REPLACED) >= ROUNDS, 240)
        replace_journal(floor, REPLACED)
        assert rig.wait_until(lambda: all(floor.played(t) >= floor.rounds_target[t] for t in TABLES), 300)
        journals = floor.journals()
        assert len(journals) == 2 * ROUNDS + ROUNDS + SECOND_EPOCH_ROUNDS

        assert rig.wait_until(lambda: rig.same_books(journals, rig.booked_settlements(url)) == [] and
                              rig.books_value(url, "SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL")[0][0] == 0,
                              240), (rig.same_books(journals, rig.booked_settlements(url))[:10],
                                     rig.books_value(url, "SELECT * FROM gaps WHERE filled_utc IS NULL LIMIT 10"))
        assert len(rig.booked_settlements(url)) == len(journals)  # each round once: (table, round) is the key

        anomalies = rig.books_value(url, "SELECT kind, table_id, epoch, seq, detail FROM anomalies ORDER BY kind")
        new_epoch = rig.books_value(url, "SELECT epoch FROM epochs WHERE table_id = ? AND ordinal = 2", (REPLACED,))
        assert [(k, t, e, s) for k, t, e, s, _ in anomalies] == [
            ("epoch_change", REPLACED, new_epoch[0][0], json.loads(anomalies[0][4])["first_seq"]),
            ("seq_replayed", "craps-1", forged["epoch"], forged["seq"])], anomalies
        assert rig.books_value(url, "SELECT paid FROM rounds WHERE table_id = 'craps-1' AND round = ?",
                               (forged["round"],)) == [(forged["totals"]["paid"] - 1,)]
        assert rig.wait_until(lambda: rig.books_value(url, "SELECT COUNT(*) FROM anomalies WHERE alarmed_utc IS "
                                                           "NULL")[0][0] == 0, 60)

        for table in TABLES:  # the anchor: the newest state of the latest epoch, in the books and retained
            newest = rig.books_value(url, "SELECT s.epoch, s.seq FROM states s JOIN epochs e ON e.table_id = s.table_id "
                                          "AND e.epoch = s.epoch WHERE s.table_id = ? ORDER BY e.ordinal DESC, s.seq "
                                          "DESC LIMIT 1", (table,))
            assert rig.wait_until(lambda: rig.books_value(url, "SELECT epoch, seq FROM anchors WHERE table_id = ? AND "
                                                               "published_utc IS NOT NULL", (table,)) == newest, 60)
            retained = Listener(broker.url, [f"tablehw/ledger/anchors/{table}"])
            try:
                assert retained.wait_for(lambda got: got, 10)
                anchor = retained.snapshot()[-1].json()
            finally:
                retained.close()
            assert [(anchor["epoch"], anchor["seq"])] == newest

        gaps = rig.books_value(url, "SELECT COUNT(*) FROM gaps")[0][0]
        recalled = rig.books_value(url, "SELECT COUNT(*) FROM messages WHERE via = 'recall'")[0][0]
        by = dict(rig.books_value(url, "SELECT booked_by, COUNT(*) FROM messages GROUP BY booked_by"))
        print(f"\nchaos: {len(journals)} rounds in {len(floor.journal_files())} journals, {kills['table']} table kills, "
              f"{kills['ledger']} ledger kills, broker restarts {restarts}, {gaps} gaps found and filled, {recalled} "
              f"messages booked from the controllers, booked by {by}, forged replay sent {resent} times; chaos {chaos_s:.0f} s, "
              f"total {time.monotonic() - started:.0f} s")
        assert kills["table"] + kills["ledger"] >= 20 and sum(restarts.values()) >= 5 and len(journals) >= 300
    finally:
        floor.stop()
        broker.kill()
