"""The outbox against a real Mosquitto: order, PUBACK marking, broker outage, crash recovery, availability."""

from __future__ import annotations

import json
import threading
import time

from firmware_host.journal import Journal
from firmware_host.mqtt.contract import Availability, EventPayload
from firmware_host.mqtt.link import LinkSettings, MqttLink, Will
from firmware_host.outbox import OutboxSender

import msgspec

from .broker import MosquittoBroker
from .listener import Listener

TOPIC = "tablehw/tables/T1/events"


def make_link(url, client_id="tablehw-T1"):
    will = Will("tablehw/tables/T1/availability",
                msgspec.json.encode(Availability(table="T1", state="offline")),
                msgspec.json.encode(Availability(table="T1", state="online")))
    return MqttLink(LinkSettings(url, client_id, reconnect_min_s=0.2, reconnect_max_s=0.5), will)


def start(journal, url):
    link = make_link(url)
    sender = OutboxSender(journal, link, window=50)
    link.on_delivery = sender.deliver
    sender.start()
    link.start()
    return link, sender


def publish(journal, i):
    with journal.transaction() as txn:
        txn.record("event", {"i": i})
        return txn.publish(TOPIC, EventPayload(table="T1", seq=0, utc="", kind="test", detail={"i": i}))


def seqs(listener):
    return [m.json()["seq"] for m in listener.snapshot(TOPIC.rsplit("/", 1)[1])]


def first_arrivals(values):
    seen, out = set(), []
    for v in values:
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


def test_delivered_in_order_and_marked_sent(broker, tmp_path):
    listener = Listener(broker.url, [TOPIC])
    journal = Journal.open(tmp_path / "j.sqlite")
    link, sender = start(journal, broker.url)
    for i in range(300):
        publish(journal, i)
    assert sender.wait_sent(20)
    assert listener.wait_for(lambda m: len(m) >= 300)
    assert seqs(listener) == list(range(1, 301))
    assert journal.messages(pending_only=True) == []
    assert all(m.sent_utc for m in journal.messages())
    sender.stop(), link.stop(), listener.close()


def test_broker_outage_loses_nothing_and_keeps_order(tmp_path):
    """Mosquitto stopped for ~2 s while the table keeps producing: every message arrives, in order."""
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        listener = Listener(broker.url, [TOPIC], persistent=True)
        journal = Journal.open(tmp_path / "j.sqlite")
        link, sender = start(journal, broker.url)
        stop = threading.Event()

        def produce():
            for i in range(400):
                publish(journal, i)
                time.sleep(0.01)
            stop.set()

        producer = threading.Thread(target=produce)
        producer.start()
        time.sleep(0.8)
        broker.stop()
        time.sleep(2.0)
        broker.start()
        producer.join(30)
        assert stop.is_set()
        assert sender.wait_sent(30), "outbox still has unsent messages"
        assert listener.wait_for(lambda m: len(first_arrivals(seqs(listener))) >= 400, 30)
        got = seqs(listener)
        assert first_arrivals(got) == list(range(1, 401))  # nothing lost, order kept
        duplicates = len(got) - len(set(got))
        print(f"raw MQTT duplicates after the outage: {duplicates} (consumers drop them by seq)")
        assert duplicates <= sender.window  # only re-sends of unacknowledged messages can repeat
        sender.stop(), link.stop(), listener.close()
    finally:
        broker.kill()


def test_unsent_messages_leave_in_order_after_a_crash(broker, tmp_path):
    """Rows committed while no broker was reachable (then the process died) are sent at the next start."""
    path = tmp_path / "j.sqlite"
    journal = Journal.open(path)
    for i in range(50):
        publish(journal, i)
    journal.close()  # the "crash": nothing was ever sent
    listener = Listener(broker.url, [TOPIC])
    journal = Journal.open(path)
    link, sender = start(journal, broker.url)
    assert sender.wait_sent(20)
    assert listener.wait_for(lambda m: len(m) >= 50)
    assert seqs(listener) == list(range(1, 51))
    sender.stop(), link.stop(), listener.close()


def test_online_is_republished_after_a_broker_restart(tmp_path):
    """A broker restarted without persistence forgets retained messages: on_connect puts "online" back."""
    broker = MosquittoBroker(tmp_path / "broker", persistence=False).start()
    try:
        journal = Journal.open(tmp_path / "j.sqlite")
        link, sender = start(journal, broker.url)
        first = Listener(broker.url, ["tablehw/tables/T1/availability"])
        assert first.wait_for(lambda m: any(x.json()["state"] == "online" for x in m), 10)
        first.close()
        broker.stop()
        broker.start()
        deadline = time.monotonic() + 15
        state = None
        while time.monotonic() < deadline and state != "online":
            late = Listener(broker.url, ["tablehw/tables/T1/availability"])
            late.wait_for(lambda m: bool(m), 1.0)
            got = late.snapshot()
            state = got[-1].json()["state"] if got else None
            late.close()
        assert state == "online"
        link.stop(offline=msgspec.json.encode(Availability(table="T1", state="offline")))
        after = Listener(broker.url, ["tablehw/tables/T1/availability"])
        assert after.wait_for(lambda m: bool(m), 5)
        assert json.loads(after.snapshot()[-1].payload)["state"] == "offline"
        after.close()
        sender.stop()
    finally:
        broker.kill()
