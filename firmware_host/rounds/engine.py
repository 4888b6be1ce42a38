"""The round engine: the one owner of a table's rounds, bets and game state.

One thread runs `RoundEngine.run`; paho callbacks, device readers, GPIO callbacks and simulators
only put events (rounds/inputs.py) on `engine.inbox`, and the request gate (gate.py) puts MQTT
requests there. The inbox (inbox.py) serves events first — the dealer's "no more bets" and the
betting timer never wait behind bets — then at most `REQUESTS_PER_TURN` requests, one requester at
a time in turn; the timers are checked between the two. Every decision is
journalled before it is acted on, in the same transaction as the messages that announce it, so a
crash at any instant leaves the journal saying exactly how far the round got (rounds/recovery.py).

A round: open (bets accepted) → no more bets → the game's play phase (throw, dome, spin, deal) →
reading → [dealer confirm] → settle + publish → next round. A void attempt (void throw, no-spin)
settles nothing and the round goes on; a voided round returns every stake. The per-game parts
live in a `Family` (families.py, table_families.py). Result boards follow every result and event
the engine journals (`board`, boards/keeper.py), in the same transaction.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import msgspec

from ..clock import utc_after
from ..journal import Journal, Transaction
from ..mqtt.contract import DiskSpace, EventPayload, JournalPoint, TableState, Topics
from ..mqtt.broker_watch import utc_now
from ..mqtt.link import ConnectFailed, Connected, Disconnected
from ..service_config import AccessSection
from .inbox import Inbox
from .inputs import ConsoleCommand, DeviceHealthChanged, DeviceNotice, Evidence, Phase, Stop, SupervisorKey
from .observer import RoundObserver
from .payloads import result_payload, round_id, settlement_payload
from .tickets import KINDS as TICKET_RECORDS, TicketRegistry

log = logging.getLogger(__name__)

REQUESTS_PER_TURN = 100  # requests handled (one journal commit for a run of bets) between timer checks


@dataclass(frozen=True)
class EngineSettings:
    """What the engine needs from the config (built by service.py)."""

    table_id: str
    game: str
    rulebook: str
    currency: str
    limits: dict[str, int]
    dealer_confirms: bool = False
    betting_seconds: float = 20.0
    reading_timeout_s: float = 30.0
    recovery: str = "resume"
    max_attempts: int = 10
    access: AccessSection = AccessSection()  # who may bet for whom, act on the console, recall


@dataclass
class Pending:
    """A valid reading waiting to be confirmed and settled."""

    outcome: Any
    fields: dict[str, Any]
    evidence: Evidence | None
    manual: tuple[str, str] | None = None


@dataclass
class RoundSummary:
    """What the observer gets after each finished round (the one line per round of `tablehw run`, metrics)."""

    round: int
    round_id: str
    void: bool
    reason: str | None
    fields: dict[str, Any]
    bets: int
    paid: int
    kept: int
    returned: int
    attempts: int
    game_state: dict[str, Any] = field(default_factory=dict)
    stayed: int = 0  # bets not decided by this result, left on the layout (craps, banca francesa)


def describe_fields(fields: dict[str, Any]) -> str:
    if fields.get("faces"):
        return "-".join(map(str, fields["faces"]))
    if fields.get("number") is not None:
        return f"number {fields['number']}"
    if dealer := fields.get("outcome", {}).get("dealer"):  # blackjack
        return f"dealer {dealer['total']}{' bust' if dealer['bust'] else ''}"
    return str(fields.get("outcome", {}).get("winner", "?"))


def no_checkpoint(phase: str, round_no: int) -> None:
    """The default crash-injection hook: does nothing (simulation/faults.py sets a real one)."""


class RoundEngine:
    """Owns the round; see the module docstring. `family_factory(engine)` gives the game's part."""

    def __init__(self, settings: EngineSettings, journal: Journal, topics: Topics, family_factory: Callable,
                 devices: Any, *, clock: Any = None, checkpoint: Callable[[str, int], None] = no_checkpoint,
                 observer: RoundObserver | None = None, board: Any = None) -> None:
        self.settings = settings
        self.journal = journal
        self.topics = topics
        self.devices = devices
        self.clock = clock or journal.clock
        self.checkpoint = checkpoint
        self.observer = observer or RoundObserver()
        self.inbox = Inbox(per_user=settings.access.request_burst)
        self.phase = Phase.CLOSED
        self.round = 0
        self.attempt = 1
        self.pending: Pending | None = None
        self.deadline: float | None = None  # monotonic: betting closes / a reading is overdue
        self.reading_since: float | None = None  # monotonic: the play phase began (the observer's read latency)
        self.health: dict[str, str] = {}
        self.supervisor_key = False
        self.broker: dict[str, Any] = {"reachable": False, "since": utc_now(), "cause": "not connected yet"}
        self.rounds_finished = 0
        self.table_open = True  # close_table: no next round until open_betting
        self.round_limit: int | None = None  # `run(rounds=N)`: no round opens after the Nth has finished
        self.round_open = False
        self.registry = TicketRegistry()  # every ticket's first answer, for the journal's life (tickets.py)
        self.evidence: Any = None  # an EvidenceStore, for families that write their own evidence (card logs)
        self.board = board  # a boards.keeper.BoardKeeper (None: the game has no result board)
        self.disk_space: Callable[[], DiskSpace] | None = None  # free space for `state` (service.py's disk watch)
        self.family = family_factory(self)
        self.book = self.family.book

    # --- the loop ------------------------------------------------------------------------------
    def run(self, stop: threading.Event, rounds: int | None = None, heartbeat: Callable[[], None] | None = None) -> None:
        """Process events until `stop` is set or `rounds` rounds have finished."""
        from .requests import handle_batch  # requests.py drives the engine; import here to keep one direction

        self.round_limit = None if rounds is None else self.rounds_finished + rounds
        while not stop.is_set() and self.wants_more_rounds():
            wait = 0.5 if self.deadline is None else max(0.0, min(0.5, self.deadline - self.clock.monotonic()))
            events, requests = self.inbox.take(wait, REQUESTS_PER_TURN)
            if any(isinstance(item, Stop) for item in events):
                stop.set()
            handle_batch(self, [item for item in events if not isinstance(item, Stop)])
            self._timers()
            handle_batch(self, requests)
            self._timers()
            if heartbeat:
                heartbeat()

    def rebuild_registry(self) -> None:
        """The ticket registry from the journal (at start: recovery.py)."""
        self.registry.rebuild(self.journal.records(kinds=TICKET_RECORDS))

    def handle(self, item: Any) -> None:
        """One non-request event (requests are handled by requests.handle_batch)."""
        if isinstance(item, ConsoleCommand):
            from .console import handle_console
            handle_console(self, item)
        elif isinstance(item, SupervisorKey):
            self.supervisor_key = item.on
            self.event("supervisor_key", {"on": item.on}, who=item.who)
        elif isinstance(item, DeviceHealthChanged):
            self._health(item)
        elif isinstance(item, DeviceNotice):
            log.log(logging.INFO if item.routine else logging.WARNING, "device %s: %s: %s", item.device, item.kind,
                    item.message)
            self.event("device", {"device": item.device, "notice": item.kind, "message": item.message, **item.detail})
        elif isinstance(item, (Connected, Disconnected, ConnectFailed)):
            self._broker(item)
        else:
            self.family.handle(item)

    def _broker(self, item: Connected | Disconnected | ConnectFailed) -> None:
        """The broker's reachability, shown in `state` (published when it changes)."""
        if isinstance(item, Connected):
            view = {"reachable": True, "since": utc_now(), "cause": None}
        else:
            cause = item.cause if isinstance(item, ConnectFailed) else f"connection lost: {item.reason}"
            view = {"reachable": False, "since": utc_now(), "cause": cause}
        if (view["reachable"], view["cause"]) == (self.broker["reachable"], self.broker["cause"]):
            return
        self.broker = view
        with self.journal.transaction() as txn:
            self.publish_state(txn)

    def _timers(self) -> None:
        if self.deadline is None or self.clock.monotonic() < self.deadline:
            return
        self.deadline = None
        if self.phase is Phase.BETTING:
            self.close_betting(source="timer")
        elif self.phase in (self.family.play_phase, Phase.READING):
            self.family.reading_overdue()

    def _health(self, item: DeviceHealthChanged) -> None:
        if self.health.get(item.device) == item.health:
            return
        self.health[item.device] = item.health
        level = logging.INFO if item.health == "connected" else logging.WARNING
        log.log(level, "device %s is %s %s", item.device, item.health, item.message)
        with self.journal.transaction() as txn:
            self.event("device", {"device": item.device, "health": item.health, "message": item.message}, txn=txn)
            self.publish_state(txn)

    # --- journal + publish helpers -----------------------------------------------------------------
    def publish_state(self, txn: Transaction) -> None:
        view = self.family.state_view()
        betting = self.phase is Phase.BETTING
        closes = None
        if betting and self.deadline is not None:  # boards count down to it (docs/mqtt.md, `state`)
            closes = utc_after(txn.utc, max(0.0, self.deadline - self.clock.monotonic()))
        txn.publish(self.topics.state, TableState(
            table=self.settings.table_id, seq=0, utc=txn.utc, game=self.settings.game, rulebook=self.settings.rulebook,
            currency=self.settings.currency, phase=self.phase.value, round=self.round,
            round_id=round_id(self.settings.table_id, self.round) if self.round else "", attempt=self.attempt,
            betting_open=betting, betting_closes=closes, betting_seconds=self.betting_seconds(),
            last_coup=bool(view.pop("last_coup", False)), game_state=view,
            open_bets=len(self.book), devices=dict(self.health), limits=self.settings.limits,
            journal=JournalPoint(*txn.point(), anchor=self.journal.anchor_status),
            disk=self.disk_space() if self.disk_space else None, broker=dict(self.broker)), retain=True)

    def event(self, kind: str, detail: dict | None = None, *, who: str | None = None, why: str | None = None,
              txn: Transaction | None = None) -> None:
        """Journal and publish one `events` message (in `txn`, or a transaction of its own)."""
        if txn is None:
            with self.journal.transaction() as own:
                return self.event(kind, detail, who=who, why=why, txn=own)
        payload = EventPayload(table=self.settings.table_id, seq=0, utc=txn.utc,
                               round=self.round or None,
                               round_id=round_id(self.settings.table_id, self.round) if self.round else None,
                               kind=kind, who=who, why=why, detail=detail or {})
        data = msgspec.json.encode(txn.stamp(self.topics.events, payload))
        txn.record("event", data, round=self.round or None)
        txn.publish(self.topics.events, data)
        if self.board is not None:
            self.board.follow(txn, "event", data, self.topics.board)

    def set_phase(self, phase: Phase, *, event: str | None = None, detail: dict | None = None,
                  who: str | None = None, why: str | None = None) -> None:
        """Enter a phase: journalled and published (state, and an event when given) in one commit."""
        self.phase = phase
        with self.journal.transaction() as txn:
            txn.record("phase", {"phase": phase.value, "attempt": self.attempt}, round=self.round)
            if event:
                self.event(event, detail, who=who, why=why, txn=txn)
            self.publish_state(txn)
        self.devices.phase_changed(phase.value, self.round, self.attempt)
        self.checkpoint(phase.value, self.round)

    # --- the round ---------------------------------------------------------------------------------
    def open_round(self) -> None:
        """A new round: bets are accepted."""
        self.round += 1
        self.attempt = 1
        self.round_open = True
        self.pending = None
        self.phase = Phase.BETTING
        self.start_betting_timer()  # before the state: it says when betting closes
        with self.journal.transaction() as txn:
            txn.record("round_opened", {"round": self.round, "game_state": self.family.state_data()}, round=self.round)
            txn.record("phase", {"phase": Phase.BETTING.value, "attempt": 1}, round=self.round)
            self.event("bets_open", txn=txn)
            self.publish_state(txn)
        self.devices.phase_changed(Phase.BETTING.value, self.round, self.attempt)
        self.checkpoint("round_opened", self.round)
        self.family.round_opened()

    def betting_seconds(self) -> float:
        """How long betting stays open before the timer closes it; 0 when only the dealer closes it."""
        return self.settings.betting_seconds if self.family.timer_closes_betting else 0.0

    def start_betting_timer(self) -> None:
        seconds = self.betting_seconds()
        self.deadline = self.clock.monotonic() + seconds if seconds > 0 else None

    def reopen_betting(self, why: str) -> None:
        """Bets may be changed again inside the round (cussec after a void: 004 §VII.6)."""
        self.start_betting_timer()
        self.set_phase(Phase.BETTING, event="bets_open", detail={"reopened": why})

    def close_betting(self, *, who: str | None = None, source: str = "console") -> None:
        self.deadline = None
        self.set_phase(Phase.NO_MORE_BETS, event="no_more_bets", detail={"source": source}, who=who)
        self.family.betting_closed()

    def expect_reading(self, phase: Phase) -> None:
        """The play phase started (dice thrown, ball launched ...): a reading is due within the timeout."""
        timeout = self.settings.reading_timeout_s
        self.reading_since = self.clock.monotonic()
        self.deadline = self.reading_since + timeout if timeout > 0 else None
        self.set_phase(phase)

    def reading(self, outcome: Any, fields: dict[str, Any], *, void_reason: str | None = None,
                evidence: Evidence | None = None, detail: dict | None = None) -> None:
        """A reading for the current attempt: journalled, then void → next attempt, valid → settle."""
        self.deadline = None
        self.phase = Phase.READING
        if self.reading_since is not None:
            self.observer.reading_taken(self.clock.monotonic() - self.reading_since)
            self.reading_since = None
        body = {"attempt": self.attempt, "valid": void_reason is None, "void_reason": void_reason,
                "fields": fields, "evidence": evidence.__dict__ if evidence else None, "detail": detail or {}}
        with self.journal.transaction() as txn:
            txn.record("reading", body, round=self.round)
            txn.record("phase", {"phase": Phase.READING.value, "attempt": self.attempt}, round=self.round)
            self.publish_state(txn)
        self.checkpoint(Phase.READING.value, self.round)
        if void_reason is not None:
            self.void_attempt(void_reason, evidence=evidence, detail=detail)
            return
        self.pending = Pending(outcome, fields, evidence)
        if self.settings.dealer_confirms:
            self.set_phase(Phase.CONFIRMING)
        else:
            self.settle()

    def void_attempt(self, reason: str, *, who: str | None = None, why: str | None = None,
                     evidence: Evidence | None = None, detail: dict | None = None) -> None:
        """Announce a void attempt (nothing settles) and let the game re-throw / re-spin."""
        self.pending = None
        self.deadline = None
        log.info("round %d attempt %d void: %s", self.round, self.attempt, reason)
        with self.journal.transaction() as txn:
            self._result(txn, void=True, reason=reason, fields={"void_outcome": detail or {}}, evidence=evidence)
            self.event("void", {"reason": reason, "attempt": self.attempt, **(detail or {})}, who=who, why=why, txn=txn)
            self.attempt += 1
            txn.record("phase", {"phase": Phase.NO_MORE_BETS.value, "attempt": self.attempt}, round=self.round)
            self.phase = Phase.NO_MORE_BETS
            self.publish_state(txn)
        self.observer.attempt_voided(reason)
        if detail and isinstance(detail.get("declined"), str):
            self.observer.die_declined(detail["declined"])
        if self.attempt > self.settings.max_attempts:
            self.void_round(f"{self.settings.max_attempts} void attempts in a row")
            return
        self.family.attempt_voided(reason)

    def void_round(self, reason: str, *, who: str | None = None, why: str | None = None) -> None:
        """The round cannot be played: every stake goes back."""
        outcomes = self.book.return_all()
        self.pending = None
        self.deadline = None
        with self.journal.transaction() as txn:
            self._result(txn, void=True, reason=reason, fields={}, evidence=None)
            self._settlement(txn, outcomes, void=True)
            self.event("round_voided", {"reason": reason, "returned": sum(o.returned for o in outcomes)},
                       who=who, why=why, txn=txn)
            self.phase = Phase.SETTLING
            self.publish_state(txn)
        self._finished(void=True, reason=reason, fields={}, outcomes=outcomes)

    def settle(self) -> None:
        """Settle the pending valid reading: result, settlement and round end commit together."""
        pending = self.pending
        assert pending is not None, "settle() without a valid reading"
        self.phase = Phase.SETTLING
        self.deadline = None
        outcomes = self.family.settle(pending.outcome)
        with self.journal.transaction() as txn:
            self._result(txn, void=False, reason=None, fields=pending.fields, evidence=pending.evidence,
                         manual=pending.manual)
            self._settlement(txn, outcomes, void=False)
            self.publish_state(txn)
            self.checkpoint(Phase.SETTLING.value, self.round)  # a crash here: nothing above is committed
        self.checkpoint("publishing", self.round)
        log.info("round %d settled: %s, %d bets", self.round, describe_fields(pending.fields), len(outcomes))
        self.devices.show_result(pending.fields)
        self._finished(void=False, reason=None, fields=pending.fields, outcomes=outcomes)

    def _result(self, txn: Transaction, *, void: bool, reason: str | None, fields: dict, evidence: Evidence | None,
                manual: tuple[str, str] | None = None) -> None:
        payload = result_payload(self.settings.table_id, self.settings.game, self.round, self.attempt, txn.utc,
                                 void=void, reason=reason, fields=fields, evidence=evidence, manual=manual)
        data = msgspec.json.encode(txn.stamp(self.topics.result, payload))
        txn.record("result", data, round=self.round)
        txn.publish(self.topics.result, data, retain=True)
        if self.board is not None:
            self.board.follow(txn, "result", data, self.topics.board)

    def _settlement(self, txn: Transaction, outcomes: list, *, void: bool) -> None:
        payload = settlement_payload(self.settings.table_id, self.round, txn.utc, self.settings.currency, outcomes,
                                     void=void)
        data = msgspec.json.encode(txn.stamp(self.topics.settlement, payload))
        txn.record("settlement", data, round=self.round)
        txn.record("round_closed", {"round": self.round, "void": void, "game_state": self.family.state_data()},
                   round=self.round)
        txn.publish(self.topics.settlement, data)

    def _finished(self, *, void: bool, reason: str | None, fields: dict, outcomes: list) -> None:
        self.rounds_finished += 1
        self.round_open = False
        self.observer.round_finished(RoundSummary(
            self.round, round_id(self.settings.table_id, self.round), void, reason, fields, len(outcomes),
            sum(o.paid for o in outcomes), sum(o.kept for o in outcomes), sum(o.returned for o in outcomes),
            self.attempt, self.family.state_view(), sum(o.result.value == "stay" for o in outcomes)))
        self.family.round_finished()

    def wants_more_rounds(self) -> bool:
        return self.round_limit is None or self.rounds_finished < self.round_limit

    def next_round(self) -> None:
        """After a round: the next one opens at once, unless the table was closed (or --rounds is reached)."""
        if not self.wants_more_rounds():
            return
        if self.table_open:
            self.open_round()
        else:
            self.set_phase(Phase.CLOSED)

    def last_round_open(self) -> bool:
        return self.round_open

    def manual_reading(self, outcome: Any, fields: dict[str, Any], who: str, why: str) -> None:
        """A supervisor entered or corrected the result: journalled as a reading, then settled."""
        self.deadline = None
        with self.journal.transaction() as txn:
            txn.record("reading", {"attempt": self.attempt, "valid": True, "void_reason": None, "fields": fields,
                                   "evidence": None, "manual": {"who": who, "why": why}}, round=self.round)
        self.pending = Pending(outcome, fields, None, manual=(who, why))
        self.settle()
