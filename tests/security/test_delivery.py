"""The outbox's delivery rules, on a real journal with a link that records what it is handed: a reply that
cannot be delivered is journalled and dropped; a result is never dropped; nothing waits behind either."""

from __future__ import annotations

import time
from types import SimpleNamespace

from firmware_host.journal import Journal, MessageProperties
from firmware_host.mqtt.link import Acked, Connected, Disconnected
from firmware_host.outbox import POISON_STRIKES, OutboxSender

REPLIES = "tablehw/replies/"
RESULT = "tablehw/tables/t1/result"
REPLY = "tablehw/replies/terminal-08/tables/t1/bets"


class RecordingLink:
    """The link's surface the sender uses; remembers every publish; raises for `bad_topics` as paho would."""

    def __init__(self) -> None:
        self.connected = True
        self.broker_max_packet: int | None = None
        self.handed: list[tuple[int, str, bytes]] = []
        self.restarts = 0
        self.bad_topics: set[str] = set()

    def publish(self, topic, payload, qos=1, retain=False, properties=None):
        if topic in self.bad_topics:
            raise ValueError("Publish topic cannot contain wildcards.")
        mid = len(self.handed) + 1
        self.handed.append((mid, topic, payload))
        return SimpleNamespace(mid=mid)

    def restart(self) -> None:
        self.restarts += 1

    def mids(self, topic: str) -> list[int]:
        return [mid for mid, t, _ in self.handed if t == topic]


def queue(journal: Journal, *topics: str, size: int = 10) -> list[int]:
    seqs = []
    with journal.transaction() as txn:
        for topic in topics:
            seqs.append(txn.publish(topic, b"x" * size, properties=MessageProperties(correlation_data=b"c")))
    return seqs


def wait_until(predicate, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def running(tmp_path, **kwargs) -> tuple[Journal, RecordingLink, OutboxSender]:
    journal = Journal.open(tmp_path / "j.sqlite")
    link = RecordingLink()
    sender = OutboxSender(journal, link, replies_prefix=REPLIES, **kwargs)
    sender.start()
    return journal, link, sender


def test_a_refused_reply_is_journalled_and_dropped_and_results_go_on(tmp_path):
    journal, link, sender = running(tmp_path)
    try:
        reply, result = queue(journal, REPLY, RESULT)
        assert wait_until(lambda: len(link.handed) == 2)  # the result did not wait for the reply's PUBACK
        sender.deliver(Acked(link.mids(REPLY)[0], 0x87))
        sender.deliver(Acked(link.mids(RESULT)[0], 0x00))
        assert sender.wait_sent(10)
        (record,) = [r.data() for r in journal.records(kind="reply_undeliverable")]
        assert record["seq"] == reply and record["topic"] == REPLY and "0x87" in record["reason"]
        assert not journal.messages(pending_only=True) and len(link.handed) == 2  # never re-sent
    finally:
        sender.stop()
        journal.close()


def test_a_refused_result_is_retried_not_dropped(tmp_path):
    journal, link, sender = running(tmp_path, retry_s=0.05)
    try:
        (result,) = queue(journal, RESULT)
        assert wait_until(lambda: len(link.handed) == 1)
        sender.deliver(Acked(1, 0x87))
        assert wait_until(lambda: len(link.handed) == 2)  # handed again after retry_s
        sender.deliver(Acked(2, 0x00))
        assert sender.wait_sent(10) and not list(journal.records(kind="reply_undeliverable"))
    finally:
        sender.stop()
        journal.close()


def test_messages_larger_than_the_brokers_packet_limit_are_never_handed(tmp_path):
    """A reply is dropped (journalled); a result is held in the journal (CRITICAL) and the rest goes on."""
    journal, link, sender = running(tmp_path)
    link.broker_max_packet = 1000
    try:
        big_reply, big_result, small = queue(journal, REPLY, RESULT, size=2000)[:2] + queue(journal, RESULT)
        assert wait_until(lambda: len(link.handed) == 1)
        assert link.handed[0][2] == b"x" * 10  # only the small one
        sender.deliver(Acked(1, 0x00))
        assert wait_until(lambda: [m.seq for m in journal.messages(pending_only=True)] == [big_result])
        assert [r.data()["seq"] for r in journal.records(kind="reply_undeliverable")] == [big_reply]
        assert sender.stats.held == 1 and big_result in sender.held
    finally:
        sender.stop()
        journal.close()


def test_a_reply_paho_refuses_is_dropped(tmp_path):
    journal, link, sender = running(tmp_path)
    link.bad_topics.add(REPLY)
    try:
        queue(journal, REPLY, RESULT)
        assert wait_until(lambda: len(link.handed) == 1)
        sender.deliver(Acked(1, 0x00))
        assert sender.wait_sent(10)
        assert "paho" in next(journal.records(kind="reply_undeliverable")).data()["reason"]
    finally:
        sender.stop()
        journal.close()


def test_a_reply_the_broker_keeps_disconnecting_over_is_dropped_and_the_client_restarted(tmp_path):
    """Mosquitto's message_size_limit answers PUBACK 0x95, which paho takes for a protocol error: it drops
    the connection and re-sends the same message first on every reconnect."""
    journal, link, sender = running(tmp_path)
    try:
        poison, result = queue(journal, REPLY, RESULT)
        assert wait_until(lambda: len(link.handed) == 2)
        sender.deliver(Acked(link.mids(RESULT)[0], 0x00))
        for _ in range(POISON_STRIKES):
            sender.deliver(Disconnected("Protocol error"))
            sender.deliver(Connected(session_present=True))
        assert wait_until(lambda: link.restarts == 1)
        assert [r.data()["seq"] for r in journal.records(kind="reply_undeliverable")] == [poison]
        assert "dropped the connection" in next(journal.records(kind="reply_undeliverable")).data()["reason"]
        sender.deliver(Connected(session_present=True))
        assert sender.wait_sent(10) and link.mids(REPLY) == [1]  # not handed again after the restart
    finally:
        sender.stop()
        journal.close()
