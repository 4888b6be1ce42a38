"""One ledger instance: MQTT intake (shared subscription, persistent session, manual acks) and the booking loop.

    LedgerService(LedgerSettings(books_url=..., mqtt_url=..., user="ledger-a")).run(stop_event)  -> exit status

The broker gives each message of the followed topics to one instance of the group
(`$share/<group>/<prefix>/tables/+/result` ...). paho's thread only sorts what arrives into queues; the
booking loop takes up to `batch` messages, books them in one transaction and only then acknowledges
them (PUBACK, in the order received). A crash before the commit leaves them unacknowledged in the
instance's persistent session, so the broker delivers them again; a redelivery after the commit is a
duplicate with the same bytes and is dropped. While the books are unreachable nothing is acknowledged
and the broker holds at most `receive_maximum` messages in flight to this instance.

Non-shared subscriptions: the replies to this instance's `messages` requests, and the anchors
(the warden checks the retained ones against the books).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from dataclasses import dataclass

from ..clock import SystemClock
from ..mqtt.link import Connected, Inbound, LinkSettings, MqttLink, Will
from ..sd_notify import Notifier
from .booking import Booker, book_resiliently
from .catch_up import Recaller
from .database import Database
from .errors import BooksUnavailable
from .inbound import FOLLOWED, read
from .metrics import LedgerMetrics
from .migrate import migrate
from .warden import Warden, WardenSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LedgerSettings:
    books_url: str
    mqtt_url: str
    user: str = "backoffice"  # the broker user name: also the client id and the reply prefix (docs/ledger.md)
    password: str | None = None
    group: str = "ledger"
    prefix: str = "tablehw"
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    session_expiry_s: int = 7 * 86_400
    batch: int = 500
    receive_maximum: int = 2000
    gap_grace_s: float = 2.0
    audit_every_s: float = 600.0
    lease_s: float = 10.0
    request_timeout_s: float = 10.0
    metrics_port: int | None = None  # Prometheus endpoint (metrics.py); none by default
    metrics_address: str = "127.0.0.1"

    def subscriptions(self) -> list[tuple[str, int]]:
        shared = [f"$share/{self.group}/{self.prefix}/tables/+/{leaf}" for leaf in FOLLOWED]
        shared.append(f"$share/{self.group}/{self.prefix}/slots/+/meters")
        return [(topic, 1) for topic in shared] + [(f"{self.prefix}/replies/{self.user}/#", 1),
                                                   (f"{self.prefix}/ledger/anchors/+", 1)]

    def availability(self, state: str) -> bytes:
        return json.dumps({"schema": 1, "type": "ledger_availability", "instance": self.user, "state": state}).encode()


@dataclass
class IntakeStats:
    received: int = 0
    booked: int = 0
    duplicates: int = 0
    anomalies: int = 0
    batches: int = 0


class LedgerService:
    """Runs one instance until `stop` is set."""

    def __init__(self, settings: LedgerSettings, notifier: Notifier | None = None) -> None:
        self.settings = settings
        self.notifier = notifier or Notifier()
        self.clock = SystemClock()
        self.stats = IntakeStats()
        self.metrics: LedgerMetrics | None = None
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._session = 0  # bumped when the broker did not keep our session: older message ids are not ours
        self._ack_lock = threading.Lock()
        s = settings
        self.link = MqttLink(
            LinkSettings(url=s.mqtt_url, client_id=s.user, username=s.user, password=s.password, tls_ca=s.tls_ca,
                         tls_cert=s.tls_cert, tls_key=s.tls_key, session_expiry_s=s.session_expiry_s,
                         receive_maximum=s.receive_maximum, reconnect_max_s=10.0),
            Will(f"{s.prefix}/ledger/availability/{s.user}", s.availability("offline"), s.availability("online")),
            subscriptions=s.subscriptions(), on_message=self._route, on_status=self._status, manual_ack=True)
        self.recaller = Recaller(self.link, s.prefix, s.user, s.request_timeout_s)
        self.warden = Warden(s.books_url, self.link, self.recaller, WardenSettings(
            prefix=s.prefix, instance=s.user, lease_s=s.lease_s, gap_grace_s=s.gap_grace_s,
            audit_every_s=s.audit_every_s))
        self._anchor_prefix = f"{s.prefix}/ledger/anchors/"
        self._reply_prefix = f"{s.prefix}/replies/{s.user}/"

    # --- paho's thread ---------------------------------------------------------------------------
    def _route(self, message: Inbound) -> None:
        if message.topic.startswith(self._reply_prefix):
            self.link.ack(message.mid, message.qos)  # a lost reply only means asking again
            self.recaller.on_reply(message)
        elif message.topic.startswith(self._anchor_prefix):
            self.link.ack(message.mid, message.qos)
            self.warden.on_anchor(message)
        else:
            self.inbox.put((self._session, message))

    def _status(self, event) -> None:
        if isinstance(event, Connected) and not event.session_present:
            with self._ack_lock:
                self._session += 1
        log.info("ledger %s: broker %s", self.settings.user, event)

    # --- the booking loop --------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> int:
        database = Database.connect(self.settings.books_url, name=self.settings.user)
        applied = migrate(database)
        if applied:
            log.info("books migrated: %s", ", ".join(applied))
        booker = Booker(self.settings.user)
        if self.settings.metrics_port is not None:
            self.metrics = LedgerMetrics(self.settings.books_url, self.settings.user, self.warden)
            self.metrics.serve(self.settings.metrics_port, self.settings.metrics_address)
        self.warden.start()
        self.link.start()
        self.notifier.ready(f"ledger {self.settings.user} booking into {database.where()}")
        told = 0.0
        try:
            while not stop.is_set():
                batch = self._next_batch(stop)
                if batch:
                    self._book(database, booker, batch, stop)
                self.notifier.watchdog()
                if time.monotonic() - told >= 10.0:  # what `systemctl status` shows
                    told = time.monotonic()
                    self.notifier.status(f"booked {self.stats.booked}, duplicates {self.stats.duplicates}, "
                                         f"anomalies {self.stats.anomalies}, warden {'yes' if self.warden.holding else 'no'}")
        finally:
            self.notifier.stopping()
            self.warden.stop()
            self.link.stop(self.settings.availability("offline"))
            if self.metrics is not None:
                self.metrics.stop()
            database.close()
        return 0

    def _next_batch(self, stop: threading.Event) -> list[tuple[int, Inbound]]:
        try:
            batch = [self.inbox.get(timeout=0.5)]
        except queue.Empty:
            return []
        while len(batch) < self.settings.batch:
            try:
                batch.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        return batch

    def _book(self, database: Database, booker: Booker, batch: list[tuple[int, Inbound]], stop: threading.Event) -> None:
        items = [read(self.settings.prefix, m.topic, m.payload) for _, m in batch]
        wanted = [item for item in items if item is not None]
        started = time.monotonic()
        while True:
            try:
                utc = self.clock.utc()
                outcome = book_resiliently(database, booker, wanted, utc)
                break
            except BooksUnavailable as exc:
                log.error("ledger %s: the books are unavailable, nothing acknowledged: %s", self.settings.user, exc)
                self.notifier.status(f"books unavailable: {exc}")
                self.notifier.watchdog()
                if stop.wait(2.0):
                    return
        with self._ack_lock:
            for session, message in batch:
                if session == self._session:
                    self.link.ack(message.mid, message.qos)
        if self.metrics is not None:
            self.metrics.booked(len(batch), outcome, time.monotonic() - started)
        self.stats.received += len(batch)
        self.stats.booked += outcome.booked
        self.stats.duplicates += outcome.duplicates
        self.stats.anomalies += len(outcome.anomalies)
        self.stats.batches += 1
        for anomaly in outcome.anomalies:
            log.error("ANOMALY %s table %s epoch %s seq %s: %s", anomaly.kind, anomaly.table, anomaly.epoch,
                      anomaly.seq, anomaly.detail)
