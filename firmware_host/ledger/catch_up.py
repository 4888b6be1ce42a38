"""Catching up from a controller: "messages since seq N" (docs/mqtt.md), paged, each page booked as it comes.

    recaller = Recaller(link, "tablehw", "ledger-a")       # the link hands replies to recaller.on_reply
    catch_up = CatchUp(recaller, database, booker, "tablehw", "ledger-a")
    catch_up.sweep("craps-1", epoch, after=812)           # every followed message after 812, booked

A request goes to the table's recall topic for this broker user (`T/recall/<user>`) with an MQTT 5
response topic under `<prefix>/replies/<user>/` and random correlation data. The response is judged
as hostile as any message: it must be for the table, epoch and range asked, in seq order, and every
message in it must pass the same checks as a live one and name the seq it is listed under.
An archived start of the range or an epoch the controller no longer knows is reported as a gap the
ledger cannot fill (`gap_unfillable`); a response that does not match is `recall_mismatch`.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from dataclasses import dataclass
from typing import Callable

import msgspec

from ..clock import SystemClock
from ..mqtt.contract import MessagesRequest, MessagesResponse
from ..mqtt.link import Inbound, MqttLink, message_properties
from .anomalies import Anomaly, record
from .booking import Booker, book_resiliently
from .database import Database
from .inbound import FOLLOWED, TableMessage, read

log = logging.getLogger(__name__)

PAGE = 500
MAX_PAGES = 1000  # one sweep books at most 500,000 messages; the next sweep goes on from there


class Recaller:
    """Sends `messages` requests and waits (bounded) for the response with the same correlation data."""

    def __init__(self, link: MqttLink, prefix: str, user: str, timeout_s: float = 10.0) -> None:
        self.link, self.prefix, self.user, self.timeout_s = link, prefix, user, timeout_s
        self.reply_topic = f"{prefix}/replies/{user}/ledger"
        self._waiting: dict[bytes, queue.Queue] = {}
        self._lock = threading.Lock()

    def subscription(self) -> str:
        """Where replies come: ours, and the default reply topic of a controller that refused ours."""
        return f"{self.prefix}/replies/{self.user}/#"

    def on_reply(self, message: Inbound) -> None:
        """From paho's thread: hand the payload to whoever waits for it (or drop a stale one)."""
        with self._lock:
            slot = self._waiting.get(message.correlation_data or b"")
        if slot is not None:
            slot.put_nowait(message.payload)

    def ask(self, table: str, request: MessagesRequest) -> bytes | None:
        """The raw response, or None when none came in time (the controller is off or slow)."""
        correlation = os.urandom(16)
        slot: queue.Queue = queue.Queue(maxsize=4)
        with self._lock:
            self._waiting[correlation] = slot
        try:
            self.link.publish(f"{self.prefix}/tables/{table}/recall/{self.user}", msgspec.json.encode(request), qos=1,
                              properties=message_properties(self.reply_topic, correlation))
            return slot.get(timeout=self.timeout_s)
        except queue.Empty:
            return None
        finally:
            with self._lock:
                self._waiting.pop(correlation, None)


@dataclass
class SweepResult:
    status: str  # "done", "no_answer", "unknown_epoch", "mismatch", "stopped"
    epoch: str | None
    booked: int = 0
    pages: int = 0
    last_seq: int = 0


class CatchUp:
    """Sweeps a table's messages after a seq into the books (used by the warden for gaps and tail audits)."""

    def __init__(self, recaller: Recaller, database: Database, booker: Booker, prefix: str, instance: str,
                 clock=None) -> None:
        self.recaller, self.database, self.booker = recaller, database, booker
        self.prefix, self.instance = prefix, instance
        self.clock = clock or SystemClock()

    def sweep(self, table: str, epoch: str | None, after: int, until: int | None = None,
              keep_going: Callable[[], bool] = lambda: True) -> SweepResult:
        """Book every followed message of `epoch` (None: the controller's current one) after `after`, page by
        page, up to `until` (None: to the end)."""
        result = SweepResult("done", epoch, last_seq=after)
        while result.pages < MAX_PAGES:
            if not keep_going():
                result.status = "stopped"
                return result
            request = MessagesRequest(after=after, epoch=epoch, topics=list(FOLLOWED), limit=PAGE)
            raw = self.recaller.ask(table, request)
            if raw is None:
                result.status = "no_answer"
                return result
            result.pages += 1
            response, problem = self._judge(table, epoch, after, raw)
            if problem:
                self._report(Anomaly("recall_mismatch", table, epoch, after, {"problem": problem}, raw[:65536],
                                     subject=problem))
                result.status = "mismatch"
                return result
            if response.reason == "unknown_epoch":  # the asked epoch's gaps, not those of the one it runs now
                self._unfillable(table, epoch, after, None, "the controller no longer knows this epoch")
                result.epoch, result.status = response.epoch, "unknown_epoch"
                return result
            result.epoch = epoch = response.epoch
            if response.first_available > after + 1:
                self._unfillable(table, epoch, after, response.first_available,
                                 f"messages {after + 1}..{response.first_available - 1} are archived on the controller")
            items = [read(self.prefix, m.topic, m.payload.encode(), via="recall") for m in response.messages]
            mismatch = self._mismatch(table, epoch, response, items)
            if mismatch:
                self._report(Anomaly("recall_mismatch", table, epoch, after, {"problem": mismatch}, raw[:65536],
                                     subject=mismatch))
                result.status = "mismatch"
                return result
            if items:
                utc = self.clock.utc()
                outcome = book_resiliently(self.database, self.booker, items, utc)
                result.booked += outcome.booked
            after = result.last_seq = response.next_after
            if not response.more or (until is not None and after >= until):
                return result
        return result

    def _judge(self, table: str, epoch: str | None, after: int, raw: bytes) -> tuple[MessagesResponse | None, str]:
        try:
            response = msgspec.json.decode(raw, type=MessagesResponse)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            return None, f"not a messages_response: {exc}"
        if response.table != table:
            return None, f"a response for table {response.table!r}, asked {table!r}"
        if response.reason is None and epoch is not None and response.epoch != epoch:
            return None, f"a response for epoch {response.epoch}, asked {epoch}"
        if response.after != after:
            return None, f"a response after {response.after}, asked after {after}"
        if response.reason is None and response.next_after < after:
            return None, f"next_after {response.next_after} is before after {after}"
        return response, ""

    def _mismatch(self, table: str, epoch: str, response: MessagesResponse, items: list) -> str:
        previous = response.after
        for entry, item in zip(response.messages, items):
            if not previous < entry.seq <= response.next_after:
                return f"message {entry.seq} is out of order or outside {response.after}..{response.next_after}"
            previous = entry.seq
            if not isinstance(item, TableMessage):
                return f"message {entry.seq} on {entry.topic} is not a followed table message: " + (
                    getattr(item, "detail", "not a table topic"))
            if (item.table, item.epoch, item.seq) != (table, epoch, entry.seq):
                return f"message listed as {entry.seq} is {item.table}/{item.epoch}/{item.seq}"
        return ""

    def _unfillable(self, table: str, epoch: str | None, after: int, first_available: int | None, why: str) -> None:
        utc = self.clock.utc()
        ceiling = first_available if first_available is not None else 2 ** 62

        def work(session):
            session.execute("UPDATE gaps SET unfillable_utc = ?, unfillable_reason = ? WHERE table_id = ? AND "
                            "epoch = ? AND missing_seq < ? AND filled_utc IS NULL AND unfillable_utc IS NULL",
                            (utc, why, table, epoch, ceiling))
            record(session, [Anomaly("gap_unfillable", table, epoch, after + 1, {
                "after": after, "first_available": first_available, "why": why})], self.instance, utc)
        self.database.run(work)
        log.error("table %s epoch %s: a gap the ledger cannot fill: %s", table, epoch, why)

    def _report(self, anomaly: Anomaly) -> None:
        utc = self.clock.utc()
        self.database.run(lambda s: record(s, [anomaly], self.instance, utc))
        log.error("table %s: %s: %s", anomaly.table, anomaly.kind, anomaly.detail)
