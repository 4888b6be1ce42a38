"""The outbox sender: delivers the journal's committed messages to the broker in sequence order.

Messages are written to the journal's outbox inside the transaction that records what they say
(see journal.py). This thread reads them back *in seq order* and hands them to the MQTT link, at
most `window` unacknowledged at a time, and marks each row sent when the broker's PUBACK arrives.

Ordering and loss, case by case:
- broker outage: nothing new is handed to paho while disconnected; on reconnect paho re-sends its
  unacknowledged messages first (DUP flag, same order) and nothing new leaves until all of them
  are acknowledged, so the broker sees the sequence in order;
- crash or power cut: paho's memory is gone, but every row without a PUBACK is still unsent in the
  journal and is sent again, in order, at start-up (a consumer may see a `seq` twice: it drops it);
- a PUBACK with a failure reason (not authorised, quota): the row stays unsent and is re-sent after
  `retry_s`, logged each time, without holding back the messages after it.

Responses are not results (docs/mqtt.md, "Delivery"): a reply (a row under `replies_prefix`) that
the broker refuses, that is larger than the broker's Maximum Packet Size, that paho cannot publish,
or that the broker drops the connection over three times in a row, is logged, journalled as a
`reply_undeliverable` record and dropped (marked done), so results, settlements and events never
wait behind it. A result-type row in such a case is held (logged CRITICAL, still unsent in the
journal, sent at the next start) and the messages after it go on. When the connection keeps
dropping over one message, the MQTT client is restarted: paho would re-send it first, forever.

    sender = OutboxSender(journal, link, replies_prefix="tablehw/replies/")  # journal.on_messages(sender.wake) done
    link.on_delivery = sender.deliver
    sender.start(); ...; sender.wait_sent(timeout_s=5); sender.stop()
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass

from .clock import SystemClock
from .journal import Journal, OutgoingMessage, StorageFailure, connect, read_messages
from .mqtt.link import Acked, Connected, Disconnected, MqttLink, message_properties

log = logging.getLogger(__name__)

_WAKE, _STOP = "wake", "stop"


@dataclass
class SenderStats:
    handed: int = 0  # messages given to paho (re-sends after a refusal counted again)
    acked: int = 0
    refused: int = 0
    undeliverable: int = 0  # replies dropped (journalled as reply_undeliverable)
    held: int = 0  # result-type messages the broker cannot take: kept unsent, logged CRITICAL
    last_sent_seq: int = 0


POISON_STRIKES = 3  # the connection dropped this many times in a row with one message oldest in flight
PACKET_OVERHEAD = 96  # fixed header, packet id, property headers of a PUBLISH (upper bound, bytes)


def packet_size(row: OutgoingMessage) -> int:
    """An upper bound of the PUBLISH packet `row` makes (to compare with the broker's Maximum Packet Size)."""
    props = row.properties
    extra = len(props.response_topic or "") + len(props.correlation_data or b"")
    extra += sum(len(k) + len(v) + 5 for k, v in props.user_properties)
    return len(row.payload) + len(row.topic.encode()) + extra + PACKET_OVERHEAD


class OutboxSender:
    """One thread owning delivery; `deliver` and `wake` may be called from any thread."""

    def __init__(self, journal: Journal, link: MqttLink, *, replies_prefix: str | None = None, window: int = 200,
                 retry_s: float = 5.0, clock=None) -> None:
        self.journal = journal
        self.link = link
        self.replies_prefix = replies_prefix
        self.held: set[int] = set()  # seqs of result-type rows the broker cannot take (this process)
        self._dropped: list[tuple[OutgoingMessage, str]] = []  # replies dropped, journalled at the end of a turn
        self.window = window
        self.retry_s = retry_s
        self.clock = clock or SystemClock()
        self.stats = SenderStats()
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()
        journal.on_messages(self.wake)

    # --- any thread --------------------------------------------------------------------------
    def deliver(self, event: Connected | Disconnected | Acked) -> None:
        """The link's delivery sink (called on paho's thread: enqueue only)."""
        self._events.put(event)

    def wake(self) -> None:
        """New messages were committed."""
        self._idle.clear()
        self._events.put(_WAKE)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="outbox-sender", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._events.put(_STOP)
        if self._thread:
            self._thread.join(timeout_s)

    def wait_sent(self, timeout_s: float) -> bool:
        """Wait until every committed message is acknowledged; False on timeout."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._idle.wait(min(0.05, max(0.0, deadline - time.monotonic()))) and not self.journal.messages(
                    pending_only=True, limit=1):
                return True
        return False

    # --- the sender thread -------------------------------------------------------------------
    def _run(self) -> None:
        conn = connect(self.journal.path, synchronous="NORMAL")  # a lost "sent" mark only means a re-send
        inflight: dict[int, OutgoingMessage] = {}  # paho mid -> row
        retry: list[tuple[float, OutgoingMessage]] = []
        handed_up_to = 0  # highest seq handed to paho in this process
        connected, draining = self.link.connected, False
        suspect, strikes = 0, 0  # the oldest row in flight when the connection dropped, and how often in a row
        try:
            while True:
                try:
                    events = [self._events.get(timeout=0.1 if retry else 0.5)]
                except queue.Empty:
                    events = []
                events += self._drain_nowait()
                sent: list[int] = []
                for event in events:
                    if event == _STOP:
                        return
                    if isinstance(event, Connected):
                        connected, draining = True, bool(inflight)
                    elif isinstance(event, Disconnected):
                        if connected and inflight:
                            oldest = min(row.seq for row in inflight.values())
                            suspect, strikes = oldest, strikes + 1 if oldest == suspect else 1
                        connected = False
                    elif isinstance(event, Acked):
                        row = inflight.pop(event.mid, None)
                        if row is None:
                            continue
                        if row.seq == suspect:
                            suspect, strikes = 0, 0
                        if event.reason_code >= 0x80:
                            self.stats.refused += 1
                            if self._is_reply(row):
                                why = f"the broker refused it (reason 0x{event.reason_code:02x})"
                                self._undeliverable(row, why)
                            else:
                                log.error("broker refused outbox message %d on %s (reason 0x%02x); retrying in %.0f s",
                                          row.seq, row.topic, event.reason_code, self.retry_s)
                                retry.append((time.monotonic() + self.retry_s, row))
                        else:
                            self.stats.acked += 1
                            sent.append(row.seq)
                if sent:
                    self._mark_sent(conn, sent)
                if strikes >= POISON_STRIKES:
                    self._poisoned(next(r for r in inflight.values() if r.seq == suspect))
                    self._journal_dropped(conn)  # before anything is read from the journal again
                    inflight.clear()
                    retry.clear()
                    handed_up_to, suspect, strikes, connected, draining = 0, 0, 0, False, False
                    self.link.restart()
                    continue
                if draining and not inflight:
                    draining = False
                if connected and not draining:
                    handed_up_to = self._fill(conn, inflight, retry, handed_up_to)
                self._journal_dropped(conn)
                if not inflight and not retry and not self._pending(conn, handed_up_to, 1):
                    self._idle.set()
        except Exception:  # the sender must not die silently: the service's health watches it
            log.exception("outbox sender stopped")
            raise
        finally:
            conn.close()

    def _drain_nowait(self) -> list:
        out = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except queue.Empty:
                return out

    def _pending(self, conn, after: int, limit: int) -> list[OutgoingMessage]:
        """Unsent rows after `after` that this process has not held back."""
        rows = read_messages(conn, after, True, limit + len(self.held))
        return [r for r in rows if r.seq not in self.held][:limit]

    def _fill(self, conn, inflight: dict, retry: list, handed_up_to: int) -> int:
        now = time.monotonic()
        due = [r for t, r in retry if t <= now]
        if due:
            retry[:] = [(t, r) for t, r in retry if t > now]
            for row in due:
                self._hand(row, inflight)
        room = self.window - len(inflight) - len(retry)
        if room <= 0:
            return handed_up_to
        for row in self._pending(conn, handed_up_to, room):
            self._hand(row, inflight)
            handed_up_to = row.seq
        return handed_up_to

    def _hand(self, row: OutgoingMessage, inflight: dict) -> None:
        limit = self.link.broker_max_packet
        if limit and packet_size(row) > limit:
            self._cannot_send(row, f"{packet_size(row)} bytes exceed the broker's maximum packet size ({limit} bytes)")
            return
        props = row.properties
        try:
            info = self.link.publish(row.topic, row.payload, qos=row.qos, retain=row.retain,
                                     properties=message_properties(props.response_topic, props.correlation_data,
                                                                   props.message_expiry_s, props.user_properties))
        except ValueError as exc:  # paho refuses the topic or the packet itself
            self._cannot_send(row, f"paho cannot publish it: {exc}")
            return
        inflight[info.mid] = row
        self.stats.handed += 1

    def _is_reply(self, row: OutgoingMessage) -> bool:
        return bool(self.replies_prefix) and row.topic.startswith(self.replies_prefix)

    def _cannot_send(self, row: OutgoingMessage, why: str) -> None:
        """A row that can never leave as it is: a reply is dropped, anything else held for an operator."""
        if self._is_reply(row):
            self._undeliverable(row, why)
            return
        self.held.add(row.seq)
        self.stats.held += 1
        log.critical("outbox message %d on %s cannot be sent: %s. It stays in the journal (sent again at the next "
                     "start); the messages after it go on. Fix the broker (docs/deploy.md, section 6)",
                     row.seq, row.topic, why)

    def _poisoned(self, row: OutgoingMessage) -> None:
        self._cannot_send(row, f"the broker dropped the connection {POISON_STRIKES} times in a row while it "
                               "was the oldest message in flight")

    def _undeliverable(self, row: OutgoingMessage, why: str) -> None:
        self._dropped.append((row, why))

    def _journal_dropped(self, conn) -> None:
        """The replies dropped in this turn: journalled (one commit) and marked done, never sent again."""
        if not self._dropped:
            return
        row, why = self._dropped[0]
        log.warning("%d replies dropped as undeliverable (journalled), e.g. %d to %s: %s", len(self._dropped),
                    row.seq, row.topic, why)
        with self.journal.transaction() as txn:
            for row, why in self._dropped:
                txn.record("reply_undeliverable", {"seq": row.seq, "topic": row.topic, "reason": why})
        self._mark_sent(conn, [row.seq for row, _ in self._dropped])
        self.stats.undeliverable += len(self._dropped)
        self._dropped.clear()

    def _mark_sent(self, conn, seqs: list[int]) -> None:
        try:
            self.journal.mark_sent(seqs, conn=conn)  # each mark MAC'd to its message (journal/store.py)
        except StorageFailure as exc:  # the service locks out on the same disk; these are sent again at start
            log.error("outbox: %d sent marks not written: %s", len(seqs), exc)
            return
        self.stats.last_sent_seq = max(self.stats.last_sent_seq, max(seqs))
