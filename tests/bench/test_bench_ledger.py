"""Benchmarks of the back-office ledger (printed; each asserts it measured something, never a time):

1. the floor's busy-hour message rate: messages per round on the topics the ledger books, measured on
   simulated tables (`tablehw run --simulate`), times rounds per hour per game, over a 500-table mix;
2. messages booked per second by one instance (`tablehw ledger`, a real process) on PostgreSQL and on
   SQLite: 20,000 contract messages of 50 tables queued in its persistent session while it was stopped,
   timed from its start to the last one booked;
3. catch-up: a real controller (`tablehw run --simulate`) 10,000 messages ahead of the books, timed from its
   start to the last missing message booked from its `messages` answers (pages of 500, or 256 kB).
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter

import paho.mqtt.client as mqtt

from firmware_host.ledger.inbound import FOLLOWED
from tests.ledger import rig
from tests.ledger.feed import TableFeed
from tests.ledger.postgres import PostgresCluster
from tests.service.broker import MosquittoBroker
from tests.service.table_run import run_table, start_table, stop_table, table_config

# Rounds an hour at a busy table (live dealing, no pauses) and the tables of each game on a 500-table floor.
BUSY_HOUR = {"baccarat": (80, 200), "roulette": (60, 150), "craps": (120, 150)}
HEADROOM = 5


def followed_per_round(tmp_path, game: str, rounds: int = 20) -> float:
    broker = MosquittoBroker(tmp_path / f"broker-{game}").start()
    try:
        (tmp_path / game).mkdir()
        config = table_config(tmp_path / game, game, broker.url, camera="random", action_seconds=0.01,
                              betting_seconds=0.02)
        done = run_table(config, rounds=rounds, timeout_s=600, log_level="WARNING")
        assert done.returncode == 0, done.stderr[-2000:]
        conn = sqlite3.connect(tmp_path / game / "storage" / "journal.sqlite")
        try:
            leaves = Counter(t.rsplit("/", 1)[-1] for (t,) in conn.execute("SELECT topic FROM outbox"))
            settled = conn.execute("SELECT COUNT(*) FROM records WHERE kind = 'settlement'").fetchone()[0]
        finally:
            conn.close()
    finally:
        broker.kill()
    return sum(leaves[leaf] for leaf in FOLLOWED) / settled


def test_busy_hour_message_rate_of_a_500_table_floor(tmp_path):
    per_hour = 0.0
    lines = []
    for game, (rounds_per_hour, tables) in BUSY_HOUR.items():
        per_round = followed_per_round(tmp_path, game)
        assert per_round > 0
        per_hour += tables * rounds_per_hour * per_round
        lines.append(f"{game}: {per_round:.1f} messages a round x {rounds_per_hour} rounds/h x {tables} tables")
    rate = per_hour / 3600
    print(f"\n[ledger] busy hour, 500 tables: {'; '.join(lines)} = {rate:.0f} messages/s; "
          f"x{HEADROOM} headroom = {rate * HEADROOM:.0f} messages/s to book")
    assert rate > 0


def publish_all(url: str, messages: list[tuple[str, bytes]]) -> None:
    host, port = url.removeprefix("mqtt://").split(":")
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.max_inflight_messages_set(1000)
    client.connect(host, int(port))
    client.loop_start()
    try:
        infos = [client.publish(topic, payload, qos=1) for topic, payload in messages]
        for info in infos:
            info.wait_for_publish(120)
    finally:
        client.disconnect()
        client.loop_stop()


def booked(url: str) -> int:
    return rig.books_value(url, "SELECT COUNT(*) FROM messages")[0][0]


def time_booking(tmp_path, url: str, engine: str) -> float:
    rig.prepare_books(url)
    broker = MosquittoBroker(tmp_path / f"broker-{engine}").start()
    logs = tmp_path / engine
    logs.mkdir()
    try:
        ledger = rig.start_ledger(url, broker.url, "ledger-bench", logs)  # creates its session and subscriptions
        assert rig.wait_online(broker.url, "ledger-bench")
        warm = TableFeed("warm-up", seed=0)
        publish_all(broker.url, [m for m in warm.rounds(2) if m[0].rsplit("/", 1)[-1] in FOLLOWED])
        assert rig.wait_until(lambda: booked(url) > 0, 60)
        rig.stop(ledger)
        before = booked(url)
        messages = []
        feeds = [TableFeed(f"t-{n:03d}", seed=n) for n in range(50)]
        while len(messages) < 20_000:
            for feed in feeds:
                messages += [m for m in feed.round() if m[0].rsplit("/", 1)[-1] in FOLLOWED]
        messages = messages[:20_000]
        publish_all(broker.url, messages)  # queued by the broker in the stopped instance's session
        started = time.monotonic()
        ledger = rig.start_ledger(url, broker.url, "ledger-bench", logs)
        assert rig.wait_until(lambda: booked(url) - before >= len(messages), 600, every_s=0.1), \
            f"{booked(url) - before} of {len(messages)} booked"
        elapsed = time.monotonic() - started
        rig.stop(ledger)
        rate = len(messages) / elapsed
        print(f"\n[ledger] {engine}: {len(messages)} messages of 50 tables booked by one instance in {elapsed:.1f} s "
              f"(start-up included) = {rate:.0f} messages/s")
        return rate
    finally:
        broker.kill()


def test_messages_booked_per_second_per_instance(tmp_path):
    cluster = PostgresCluster().start()
    try:
        postgres = time_booking(tmp_path, cluster.database(), "PostgreSQL")
    finally:
        cluster.stop()
    sqlite = time_booking(tmp_path, f"sqlite:///{tmp_path / 'books.sqlite'}", "SQLite")
    assert postgres > 0 and sqlite > 0


def test_catch_up_of_a_table_10000_messages_behind(tmp_path):
    broker = MosquittoBroker(tmp_path / "broker").start()
    url = rig.prepare_books(f"sqlite:///{tmp_path / 'books.sqlite'}")
    (tmp_path / "table").mkdir()
    config = table_config(tmp_path / "table", "baccarat", broker.url, sections={
        "access": {"back_office": ["ledger-bench"]}}, camera="random", action_seconds=0.01, betting_seconds=0.02)
    storage = tmp_path / "table" / "storage"
    again = None
    try:
        ahead = start_table(config, log_level="WARNING")  # the real controller, no ledger listening
        followed = lambda: sum(1 for m in _outbox(storage) if m in FOLLOWED)  # noqa: E731
        assert rig.wait_until(lambda: followed() >= 10_000, 1200, every_s=1.0)
        stop_table(ahead, 60)
        missing, last = followed(), _last_seq(storage)
        ledger = rig.start_ledger(url, broker.url, "ledger-bench", tmp_path)
        assert rig.wait_online(broker.url, "ledger-bench")  # subscribed; the table has published nothing since
        started = time.monotonic()
        again = start_table(config, log_level="WARNING")
        behind = lambda: rig.books_value(url, "SELECT COUNT(*) FROM messages WHERE seq <= ?", (last,))[0][0]  # noqa: E731
        assert rig.wait_until(lambda: behind() >= missing, 600, every_s=0.1)
        elapsed = time.monotonic() - started
        recalled = rig.books_value(url, "SELECT COUNT(*) FROM messages WHERE via = 'recall' AND seq <= ?",
                                   (last,))[0][0]
        print(f"\n[ledger] catch-up: a real controller (tablehw run --simulate, baccarat) {missing} messages ahead "
              f"of the books: {recalled} booked from its messages answers in {elapsed:.1f} s (the table's start, its "
              f"next message, a 1 s gap grace included) = {recalled / elapsed:.0f} messages/s")
        assert recalled >= 10_000
        stop_table(again, 60)
        rig.stop(ledger)
    finally:
        if again is not None:
            stop_table(again, 60)
        broker.kill()


def _last_seq(storage) -> int:
    conn = sqlite3.connect(f"file:{storage / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT MAX(seq) FROM outbox").fetchone()[0]
    finally:
        conn.close()


def _outbox(storage) -> list[str]:
    if not (storage / "journal.sqlite").exists():
        return []
    conn = sqlite3.connect(f"file:{storage / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        return [t.rsplit("/", 1)[-1] for (t,) in conn.execute("SELECT topic FROM outbox")]
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()
