"""The warden: what one ledger instance at a time does for the floor, under a lease in the books.

    warden = Warden(database_url, link, recaller, settings)
    warden.start() ... warden.stop()

Every `tick_s` the instance holding the `warden` lease (renewed each tick, lost after `lease_s` without
renewal, so a killed holder is replaced within seconds) does, in order:
1. anchors: per table, the newest `state` booked in the table's latest epoch with no unfilled gap before
   it, stored in `anchors` only if it is ahead by (round, epoch ordinal, seq), and published (retained,
   QoS 1) on `<prefix>/ledger/anchors/<table>`. One publisher at a time, reading from the books, so the
   retained anchor never goes back; a retained anchor that differs from the books (left by a broker
   restart or an earlier holder) is published again;
2. alarms: every anomaly not yet alarmed, on `<prefix>/ledger/alarms`, marked on the broker's PUBACK;
3. gaps: every gap older than `gap_grace_s` (time for the other instance to book what it holds) is filled
   from the controller (catch_up.py);
4. tail audits: a few tables per tick, every table every `audit_every_s` and all of them when the lease is
   gained: "anything after the newest message I booked?", which finds what no later message revealed.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass

import msgspec

from ..clock import SystemClock, utc_text
from ..mqtt.contract import Anchor
from ..mqtt.link import Inbound, MqttLink
from .anomalies import LedgerAlarm
from .booking import Booker
from .catch_up import CatchUp, Recaller
from .database import Database, Session
from .errors import BooksUnavailable

log = logging.getLogger(__name__)

LEASE = "warden"
NEVER = 2 ** 62


@dataclass(frozen=True)
class WardenSettings:
    prefix: str
    instance: str
    tick_s: float = 0.5
    lease_s: float = 10.0
    gap_grace_s: float = 2.0
    audit_every_s: float = 600.0
    audits_per_tick: int = 4
    publish_timeout_s: float = 5.0


def hold_lease(session: Session, holder: str, now: float, lease_s: float) -> bool:
    """Take or renew the lease; True while `holder` has it."""
    expires, now_text = utc_text(now + lease_s), utc_text(now)
    if session.execute("UPDATE leases SET holder = ?, expires_utc = ? WHERE name = ? AND (holder = ? OR "
                       "expires_utc < ?)", (holder, expires, LEASE, holder, now_text)):
        return True
    return session.execute("INSERT INTO leases (name, holder, expires_utc) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                           (LEASE, holder, expires)) == 1


def advance_anchor(session: Session, table: str, utc: str) -> bool:
    """Move the table's anchor to its newest state with no unfilled gap before it; True if it moved."""
    latest = session.one("SELECT epoch, ordinal FROM epochs WHERE table_id = ? ORDER BY ordinal DESC LIMIT 1", (table,))
    if latest is None:
        return False
    epoch, ordinal = latest
    # A gap at seq p on topic T means everything on T after the last booked message before p may be missing.
    ceiling = NEVER
    for missing, topic in session.all("SELECT missing_seq, topic FROM gaps WHERE table_id = ? AND epoch = ? AND "
                                      "filled_utc IS NULL", (table, epoch)):
        below = session.value("SELECT MAX(seq) FROM messages WHERE table_id = ? AND epoch = ? AND topic = ? AND "
                              "seq < ?", (table, epoch, topic, missing))
        ceiling = min(ceiling, (below or 0) + 1)
    state = session.one("SELECT seq, records, head, round, utc FROM states WHERE table_id = ? AND epoch = ? AND "
                        "seq < ? ORDER BY seq DESC LIMIT 1", (table, epoch, ceiling))
    if state is None:
        return False
    seq, records, head, round_no, state_utc = state
    return session.execute(
        "INSERT INTO anchors (table_id, epoch, seq, records, head, round, utc, ordinal, updated_utc) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET epoch = excluded.epoch, "
        "seq = excluded.seq, records = excluded.records, head = excluded.head, round = excluded.round, "
        "utc = excluded.utc, ordinal = excluded.ordinal, updated_utc = excluded.updated_utc, published_utc = NULL "
        "WHERE (anchors.round, anchors.ordinal, anchors.seq) < (excluded.round, excluded.ordinal, excluded.seq)",
        (table, epoch, seq, records, head, round_no, state_utc, ordinal, utc)) > 0


class Warden:
    """The warden's thread (its own connection to the books)."""

    def __init__(self, database_url: str, link: MqttLink, recaller: Recaller, settings: WardenSettings,
                 clock=None) -> None:
        self.database_url, self.link, self.recaller, self.settings = database_url, link, recaller, settings
        self.clock = clock or SystemClock()
        self.holding = False
        self.anchors_seen: queue.SimpleQueue = queue.SimpleQueue()
        self.audit_queue: deque[str] = deque()
        self.next_audit_round = 0.0
        self.anchor_pass_from = ""  # states booked since then may move an anchor
        self.gap_retry: dict[tuple[str, str], float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- any thread ------------------------------------------------------------------------------
    def anchor_topic(self, table: str) -> str:
        return f"{self.settings.prefix}/ledger/anchors/{table}"

    def on_anchor(self, message: Inbound) -> None:
        """A retained or live anchor from the broker (ours echoed, or a stale one)."""
        self.anchors_seen.put(message)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ledger-warden", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout_s)

    # --- the thread ------------------------------------------------------------------------------
    def _run(self) -> None:
        database = Database(self.database_url, name=f"{self.settings.instance}-warden")
        booker = Booker(self.settings.instance)
        catch_up = CatchUp(self.recaller, database, booker, self.settings.prefix, self.settings.instance, self.clock)
        try:
            while not self._stop.wait(self.settings.tick_s):
                try:
                    self.tick(database, catch_up)
                except BooksUnavailable as exc:
                    log.error("warden: the books are unavailable: %s", exc)
                    self.holding = False
        finally:
            if self.holding:
                try:
                    database.run(lambda s: s.execute("UPDATE leases SET expires_utc = '' WHERE name = ? AND holder = ?",
                                                     (LEASE, self.settings.instance)))
                except BooksUnavailable:
                    pass
            database.close()

    def still_holding(self, database: Database) -> bool:
        if self._stop.is_set():
            return False
        self.holding = database.run(lambda s: hold_lease(s, self.settings.instance, time.time(), self.settings.lease_s))
        return self.holding

    def tick(self, database: Database, catch_up: CatchUp) -> None:
        was_holding = self.holding
        if not self.still_holding(database):
            if was_holding:
                log.warning("warden: lease lost to another instance")
            return
        if not was_holding:
            log.info("warden: %s holds the lease", self.settings.instance)
            self.anchor_pass_from = ""
            database.run(lambda s: s.execute("UPDATE anchors SET published_utc = NULL"))
            self.next_audit_round = 0.0
        self.update_anchors(database)
        self.check_retained_anchors(database)
        self.publish_anchors(database)
        self.publish_alarms(database)
        self.fill_gaps(database, catch_up)
        self.audit_tails(database, catch_up)

    # --- anchors ---------------------------------------------------------------------------------
    def update_anchors(self, database: Database) -> None:
        since, now = self.anchor_pass_from, time.time()

        def work(session: Session) -> None:
            tables = {t for (t,) in session.all("SELECT DISTINCT table_id FROM states WHERE booked_utc >= ?", (since,))}
            tables |= {t for (t,) in session.all("SELECT DISTINCT table_id FROM gaps WHERE filled_utc >= ? OR "
                                                 "unfillable_utc >= ?", (since, since))}
            for table in sorted(tables):
                advance_anchor(session, table, self.clock.utc())
        database.run(work)
        self.anchor_pass_from = utc_text(now - 5.0)  # overlap: a slow transaction of another instance commits late

    def check_retained_anchors(self, database: Database) -> None:
        seen = []
        while True:
            try:
                seen.append(self.anchors_seen.get_nowait())
            except queue.Empty:
                break
        for message in seen:
            table = message.topic.rsplit("/", 1)[-1]
            try:
                retained = msgspec.json.decode(message.payload, type=Anchor)
                claim = (retained.epoch, retained.seq)
            except (msgspec.ValidationError, msgspec.DecodeError):
                claim = None
            stale = database.run(lambda s: s.execute(
                "UPDATE anchors SET published_utc = NULL WHERE table_id = ? AND published_utc IS NOT NULL AND NOT "
                "(epoch = ? AND seq = ?)", (table, *(claim or ("", -1)))))
            if stale:
                log.warning("warden: the broker holds another anchor for %s than the books (%s): publishing again",
                            table, claim)

    def publish_anchors(self, database: Database) -> None:
        rows = database.run(lambda s: s.all("SELECT table_id, epoch, seq, records, head, round, utc FROM anchors "
                                            "WHERE published_utc IS NULL ORDER BY table_id"))
        sent = []
        for table, epoch, seq, records, head, round_no, utc in rows:
            payload = msgspec.json.encode(Anchor(table=table, epoch=epoch, seq=seq, records=records, head=head,
                                                 round=round_no, utc=utc))
            sent.append(((table, epoch, seq), self.link.publish(self.anchor_topic(table), payload, qos=1, retain=True)))
        acked = self._acked(sent)
        if acked:
            utc = self.clock.utc()
            database.run(lambda s: s.executemany(
                "UPDATE anchors SET published_utc = ? WHERE table_id = ? AND epoch = ? AND seq = ?",
                [(utc, *key) for key in acked]))

    # --- alarms ----------------------------------------------------------------------------------
    def publish_alarms(self, database: Database) -> None:
        rows = database.run(lambda s: s.all(
            "SELECT anomaly_id, kind, table_id, epoch, seq, detected_utc, detected_by, detail FROM anomalies "
            "WHERE alarmed_utc IS NULL ORDER BY detected_utc LIMIT 200"))
        sent = []
        for anomaly_id, kind, table, epoch, seq, detected, by, detail in rows:
            alarm = LedgerAlarm(anomaly_id, kind, table, epoch, seq, detected, by, msgspec.json.decode(detail))
            log.error("ANOMALY %s table %s epoch %s seq %s: %s", kind, table, epoch, seq, detail)
            sent.append((anomaly_id, self.link.publish(f"{self.settings.prefix}/ledger/alarms",
                                                       msgspec.json.encode(alarm), qos=1)))
        acked = self._acked(sent)
        if acked:
            utc = self.clock.utc()
            database.run(lambda s: s.executemany("UPDATE anomalies SET alarmed_utc = ? WHERE anomaly_id = ?",
                                                 [(utc, key) for key in acked]))

    def _acked(self, sent: list) -> list:
        """The keys whose publish the broker acknowledged within the timeout."""
        deadline = time.monotonic() + self.settings.publish_timeout_s
        acked = []
        for key, info in sent:
            try:
                info.wait_for_publish(max(0.0, deadline - time.monotonic()))
            except (RuntimeError, ValueError):
                continue
            if info.is_published():
                acked.append(key)
        return acked

    # --- gaps and audits -------------------------------------------------------------------------
    def fill_gaps(self, database: Database, catch_up: CatchUp) -> None:
        # Two instances race on one gap: one books the missing message while the other, not seeing it yet,
        # records the gap. Such a gap is closed here, from the books, before anything is asked for.
        utc = self.clock.utc()
        database.run(lambda s: s.execute(
            "UPDATE gaps SET filled_utc = ?, filled_via = (SELECT m.via FROM messages m WHERE m.table_id = "
            "gaps.table_id AND m.epoch = gaps.epoch AND m.seq = gaps.missing_seq) WHERE filled_utc IS NULL AND "
            "EXISTS (SELECT 1 FROM messages m WHERE m.table_id = gaps.table_id AND m.epoch = gaps.epoch AND "
            "m.seq = gaps.missing_seq AND m.topic = gaps.topic)", (utc,)))
        due = utc_text(time.time() - self.settings.gap_grace_s)
        groups = database.run(lambda s: s.all(
            "SELECT table_id, epoch, MIN(missing_seq), MAX(missing_seq) FROM gaps WHERE filled_utc IS NULL AND "
            "unfillable_utc IS NULL AND detected_utc <= ? GROUP BY table_id, epoch ORDER BY table_id", (due,)))
        for table, epoch, low, high in groups:
            if self.gap_retry.get((table, epoch), 0.0) > time.monotonic():
                continue
            after = database.run(lambda s: self._below_gaps(s, table, epoch))
            result = catch_up.sweep(table, epoch, after, until=high, keep_going=lambda: self.still_holding(database))
            log.info("warden: gap %s/%s %d..%d: %s, %d booked in %d pages", table, epoch, low, high, result.status,
                     result.booked, result.pages)
            still_open = database.run(lambda s: s.value(
                "SELECT COUNT(*) FROM gaps WHERE table_id = ? AND epoch = ? AND missing_seq <= ? AND filled_utc IS NULL "
                "AND unfillable_utc IS NULL", (table, epoch, high)))
            if result.status == "done" and not still_open:
                self.gap_retry.pop((table, epoch), None)
            else:  # not answered: soon again; answered but still open (refused messages, a mismatch): later
                self.gap_retry[(table, epoch)] = time.monotonic() + (5.0 if result.status == "no_answer" else 60.0)
                if result.status == "done":
                    log.warning("warden: %d gap(s) of %s/%s still open after the controller answered: its messages "
                                "were refused (see the anomalies); asking again in 60 s", still_open, table, epoch)
            if not self.holding:
                return

    @staticmethod
    def _below_gaps(session: Session, table: str, epoch: str) -> int:
        """The seq to ask from: below every open gap's unknown stretch on its topic."""
        after = NEVER
        for missing, topic in session.all("SELECT missing_seq, topic FROM gaps WHERE table_id = ? AND epoch = ? AND "
                                          "filled_utc IS NULL AND unfillable_utc IS NULL", (table, epoch)):
            below = session.value("SELECT MAX(seq) FROM messages WHERE table_id = ? AND epoch = ? AND topic = ? AND "
                                  "seq < ?", (table, epoch, topic, missing))
            after = min(after, below or 0)
        return 0 if after == NEVER else after

    def audit_tails(self, database: Database, catch_up: CatchUp) -> None:
        if time.monotonic() >= self.next_audit_round and not self.audit_queue:
            tables = database.run(lambda s: s.all("SELECT DISTINCT table_id FROM epochs ORDER BY table_id"))
            self.audit_queue.extend(t for (t,) in tables)
            self.next_audit_round = time.monotonic() + self.settings.audit_every_s
        for _ in range(min(self.settings.audits_per_tick, len(self.audit_queue))):
            table = self.audit_queue.popleft()
            self.audit(database, catch_up, table)
            if not self.holding:
                return

    def audit(self, database: Database, catch_up: CatchUp, table: str) -> None:
        """Ask the controller for anything after the newest message booked in its latest epoch."""
        def newest(session: Session):
            row = session.one("SELECT epoch FROM epochs WHERE table_id = ? ORDER BY ordinal DESC LIMIT 1", (table,))
            if row is None:
                return None, 0
            return row[0], session.value("SELECT MAX(seq) FROM messages WHERE table_id = ? AND epoch = ?",
                                         (table, row[0])) or 0
        epoch, after = database.run(newest)
        keep_going = lambda: self.still_holding(database)  # noqa: E731
        result = catch_up.sweep(table, None, after, keep_going=keep_going)
        if result.status == "done" and result.epoch not in (None, epoch) and after > 0:
            # the controller is in an epoch the books had not seen: take it from its start too
            result = catch_up.sweep(table, result.epoch, 0, until=after, keep_going=keep_going)
        if result.status != "no_answer":
            log.info("warden: audit of %s: %s, %d booked", table, result.status, result.booked)
