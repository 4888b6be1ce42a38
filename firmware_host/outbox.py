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
  `retry_s`, logged each time.

    sender = OutboxSender(journal, link)          # journal.on_messages(sender.wake) is done for you
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
    last_sent_seq: int = 0


class OutboxSender:
    """One thread owning delivery; `deliver` and `wake` may be called from any thread."""

    def __init__(self, journal: Journal, link: MqttLink, *, window: int = 200, retry_s: float = 5.0,
                 clock=None) -> None:
        self.journal = journal
        self.link = link
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
                        connected = False
                    elif isinstance(event, Acked):
                        row = inflight.pop(event.mid, None)
                        if row is None:
                            continue
                        if event.reason_code >= 0x80:
                            self.stats.refused += 1
                            log.error("broker refused outbox message %d on %s (reason 0x%02x); retrying in %.0f s",
                                      row.seq, row.topic, event.reason_code, self.retry_s)
                            retry.append((time.monotonic() + self.retry_s, row))
                        else:
                            self.stats.acked += 1
                            sent.append(row.seq)
                if sent:
                    self._mark_sent(conn, sent)
                if draining and not inflight:
                    draining = False
                if connected and not draining:
                    handed_up_to = self._fill(conn, inflight, retry, handed_up_to)
                if not inflight and not retry and not read_messages(conn, handed_up_to, True, 1):
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
        for row in read_messages(conn, handed_up_to, True, room):
            self._hand(row, inflight)
            handed_up_to = row.seq
        return handed_up_to

    def _hand(self, row: OutgoingMessage, inflight: dict) -> None:
        props = row.properties
        info = self.link.publish(row.topic, row.payload, qos=row.qos, retain=row.retain,
                                 properties=message_properties(props.response_topic, props.correlation_data,
                                                               props.message_expiry_s, props.user_properties))
        inflight[info.mid] = row
        self.stats.handed += 1

    def _mark_sent(self, conn, seqs: list[int]) -> None:
        try:
            self.journal.mark_sent(seqs, conn=conn)  # each mark MAC'd to its message (journal/store.py)
        except StorageFailure as exc:  # the service locks out on the same disk; these are sent again at start
            log.error("outbox: %d sent marks not written: %s", len(seqs), exc)
            return
        self.stats.last_sent_seq = max(self.stats.last_sent_seq, max(seqs))
