"""The slot service: one loop owns the slot state; port pollers and paho only enqueue.

    service = SlotService(config, journal=Journal.open(path), mqtt=link)   # mqtt None: outbox only
    service.start(); ...; service.stop()

Every SAS outcome is checked (integrity), accounted (payback, pools) and journalled together with the
MQTT messages announcing it, in one journal transaction; the journal's outbox delivers them (no loss
through a broker outage). A meter fault disables the machine (long poll 0x01) until a supervisor
clears it over MQTT (who, why; when is the record's time); the disabled state is journalled, so a
restarted service disables the machine again and keeps it so.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from drivers.sas.denominations import cents_per_credit
from drivers.sas.errors import SasError
from drivers.sas.exception_codes import METER_FAULTS, exception_kind, exception_name
from drivers.sas.host import SasHost
from drivers.sas.link import open_link
from drivers.sas.poller import PollOutcome, PortPoller
from drivers.sas.polls import progressive_multi, read_poll, shutdown, startup
from drivers.sas.replies import (Ack, ExceptionReply, ExtendedMetersReply, HandpayReply, MachineInfoReply, MeterReply,
                                 ProgressiveWinReply, SelectedMetersReply)

from ..journal import Journal, JournalError, MessageProperties, Transaction
from ..mqtt.link import Inbound, MqttLink
from ..outbox import OutboxSender
from .config import SlotsConfig, percent
from .floor import JackpotPayload, MachineAvailability, MetersPayload, SlotEvent, SlotTopics
from .integrity import MeterFault, MeterReading, check_reading
from .payback import GamingCalendar, PaybackRules
from .payback_report import payback_payload
from .pools import Pool
from .readings import accounted, poll_name, readings_of
from .service_requests import RequestHandler
from .state import CHECKPOINT, EVENT_KINDS, SlotState

log = logging.getLogger(__name__)

OFFLINE_AFTER = 3  # failed polls in a row (each already retried) before a machine is offline
COMMAND_RETRY_S = 2.0
PAYBACK_EVERY_S = 10.0


class SlotService:
    def __init__(self, config: SlotsConfig, *, journal: Journal, mqtt: MqttLink | None = None) -> None:
        self.config = config
        self.journal = journal
        self.mqtt = mqtt
        self.site = config.service.site
        self.topics = SlotTopics(config.mqtt.prefix)
        self.machines = config.machines()
        pools = [Pool(p.id, p.seed_cents, percent(p.rate_pct), p.group, p.level, tuple(p.machines))
                 for p in config.pools]
        self.pool_kinds = {p.id: p.kind for p in config.pools}
        self.state = SlotState(list(self.machines), pools)
        self.calendar = GamingCalendar(config.service.timezone, config.day_starts())
        self.rules = PaybackRules(config.minimum_return(), config.payback.z_alarm, config.payback.min_games)
        self.window = config.rollover_window()
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.pollers: dict[str, PortPoller] = {}
        self.address_of: dict[str, tuple[str, int]] = {}
        self.machine_at: dict[tuple[str, int], str] = {}
        self.availability: dict[str, str] = {}
        self.failures: dict[str, int] = dict.fromkeys(self.machines, 0)
        self.wanted: dict[str, tuple[str, float | None]] = {}  # machine -> (disable|enable, next try; None = sent)
        self.last_payback: dict[str, tuple[float, bool]] = {}
        self.last_of_poll: dict[tuple, dict[str, int]] = {}  # the last reading of each poll, for the self-audit
        self.requests = RequestHandler(self)
        self.sender = OutboxSender(journal, mqtt) if mqtt else None
        self._records = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> SlotService:
        self._recover()
        self._announce_start()
        if self.mqtt:
            self.mqtt.on_delivery = self.sender.deliver
            self.mqtt.on_message = self.inbox.put
            self.mqtt.subscriptions = self.topics.inbound()
            self.mqtt.start()
            self.sender.start()
        self._open_ports()
        self._thread = threading.Thread(target=self._loop, name="slot-service", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for poller in self.pollers.values():
            poller.stop()
            poller.host.link.close()
        if self._thread:
            self._thread.join(5)
        if self.sender:
            self.sender.wait_sent(2.0)
            self.sender.stop()
        if self.mqtt:
            self.mqtt.stop()

    def _recover(self) -> None:
        """State = last checkpoint + every event after it, applied again in order."""
        checkpoint = self.journal.last_record((CHECKPOINT,))
        after = 0
        if checkpoint is not None:
            self.state.restore(checkpoint.data())
            after = checkpoint.seq
        for record in self.journal.records(kinds=EVENT_KINDS, after=after):
            self.state.apply(record.kind, record.data())
            self._records += 1

    def _announce_start(self) -> None:
        with self.journal.transaction() as txn:
            for pool in self.state.pools.pools.values():
                if not pool.seeded and not pool.hits and not pool.contributed:
                    self.event(txn, "pool_seeded", {"pool": pool.pool_id, "utc": txn.utc})
                self.publish_jackpot(txn, pool.pool_id)
            for machine_id, m in self.state.machines.items():
                if m.disabled:
                    self.set_availability(txn, machine_id, "disabled", m.fault.detail if m.fault else None)
                    self.wanted[machine_id] = ("disable", 0.0)

    def _open_ports(self) -> None:
        sas = self.config.sas
        cycle = self.config.cycle()
        for port in self.config.ports:
            link = open_link(port.url, framing=port.framing)
            addresses = [m.address for m in port.machines]
            ack_address = next(a for a in range(127, 0, -1) if a not in addresses)
            host = SasHost(link, response_timeout=sas.response_timeout_ms / 1000,
                           inter_byte_timeout=sas.inter_byte_timeout_ms / 1000, retries=sas.retries,
                           ack_address=ack_address, on_chirp=lambda a, url=port.url: self.inbox.put(("chirp", url, a)))
            poller = PortPoller(port.url, host, addresses, cycle, on_outcome=self.inbox.put,
                                min_interval=sas.min_poll_interval_ms / 1000)
            self.pollers[port.url] = poller
            for m in port.machines:
                self.address_of[m.id] = (port.url, m.address)
                self.machine_at[(port.url, m.address)] = m.id
                for command in (0x1F, 0x54):
                    poller.submit(read_poll(m.address, command))
            poller.start()

    # --- the loop ----------------------------------------------------------------------------
    def _loop(self) -> None:
        period = self.config.sas.broadcast_every_ms / 1000
        next_broadcast = time.monotonic()
        while not self._stop.is_set():
            try:
                item = self.inbox.get(timeout=0.05)
            except queue.Empty:
                item = None
            try:
                if item is not None:
                    self._handle(item)
                now = time.monotonic()
                if now >= next_broadcast:
                    self.broadcast()
                    next_broadcast = now + period
                self._retry_commands(now)
            except JournalError as exc:
                log.critical("journal failure, the slot service stops: %s", exc)
                self.error = exc
                self._stop.set()
            except Exception as exc:  # one bad outcome must not stop the floor; it is logged
                log.exception("slot service could not handle %r", item)
                self.error = exc

    def _handle(self, item: Any) -> None:
        if isinstance(item, PollOutcome):
            self._on_outcome(item)
        elif isinstance(item, Inbound):
            self.requests.inbound(item)
        elif item[0] == "chirp":
            self._on_chirp(item[1], item[2])
        elif item[0] == "command_done":
            self._command_done(*item[1:])
        elif item[0] == "poll_done":
            self.requests.poll_done(*item[1:])
        elif item[0] == "call":  # work handed to the loop by another thread (tests, CLI)
            item[1]()

    def call(self, work) -> None:
        """Run `work()` on the service's loop (the only thread that touches the state)."""
        self.inbox.put(("call", work))

    # --- journal helpers ---------------------------------------------------------------------
    def event(self, txn: Transaction, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """Apply a state event and journal it with what it produced."""
        produced = self.state.apply(kind, body)
        txn.record(kind, body | produced)
        self._records += 1
        if self._records >= self.config.service.checkpoint_every:
            txn.record(CHECKPOINT, self.state.snapshot())
            self._records = 0
        return produced

    def send(self, txn: Transaction, topic: str, payload, *, retain: bool = False,
             properties: MessageProperties | None = None) -> None:
        txn.publish(topic, payload, retain=retain, properties=properties)

    def slot_event(self, txn: Transaction, machine_id: str, event: str, **fields) -> None:
        txn.record("slot_event", {"machine": machine_id, "event": event, **{k: v for k, v in fields.items() if v is not None}})
        self.send(txn, self.topics.machine(machine_id, "events"),
                  SlotEvent(self.site, 0, txn.utc, machine=machine_id, event=event, **fields))

    def set_availability(self, txn: Transaction, machine_id: str, state: str, reason: str | None = None) -> None:
        if self.availability.get(machine_id) == state:
            return
        self.availability[machine_id] = state
        txn.record("slot_availability", {"machine": machine_id, "state": state, "reason": reason})
        self.send(txn, self.topics.machine(machine_id, "availability"),
                  MachineAvailability(self.site, 0, txn.utc, machine=machine_id, state=state, reason=reason), retain=True)

    def publish_jackpot(self, txn: Transaction, pool_id: str, last_award: dict | None = None) -> None:
        pool = self.state.pools.get(pool_id)
        self.send(txn, self.topics.jackpot(pool_id), JackpotPayload(
            self.site, 0, txn.utc, pool=pool_id, kind=self.pool_kinds[pool_id], group=pool.group, level=pool.level,
            value_cents=pool.cents, carry_cents=f"{pool.carry.numerator}/{pool.carry.denominator}",
            seed_cents=pool.seed, hits=pool.hits, machines=list(pool.machines), last_award=last_award), retain=True)

    # --- SAS outcomes ------------------------------------------------------------------------
    def _on_outcome(self, outcome: PollOutcome) -> None:
        machine_id = self.machine_at.get((outcome.port, outcome.address))
        if machine_id is None:
            return  # a broadcast
        if outcome.error:
            self.failures[machine_id] += 1
            if self.failures[machine_id] >= OFFLINE_AFTER:
                with self.journal.transaction() as txn:
                    self.set_availability(txn, machine_id, "offline", outcome.error)
            return
        self.failures[machine_id] = 0
        if self.availability.get(machine_id) != "online" and not self.state.machines[machine_id].disabled:
            with self.journal.transaction() as txn:
                self.set_availability(txn, machine_id, "online")
        reply = outcome.reply
        if isinstance(reply, ExceptionReply):
            if reply.code:
                self._on_exception(machine_id, reply.code)
        elif isinstance(reply, (MeterReply, SelectedMetersReply, ExtendedMetersReply)):
            self._on_meters(machine_id, outcome, reply)
        elif isinstance(reply, MachineInfoReply):
            self._on_info(machine_id, reply)
        elif isinstance(reply, HandpayReply) and reply.amount:
            with self.journal.transaction() as txn:
                self.slot_event(txn, machine_id, "handpay", detail={"amount_credits": reply.amount,
                                "group": reply.group, "level": reply.level})
        elif isinstance(reply, ProgressiveWinReply) and reply.amount_cents:
            self._on_progressive_win(machine_id, reply)

    def _on_exception(self, machine_id: str, code: int) -> None:
        m = self.state.machines[machine_id]
        with self.journal.transaction() as txn:
            self.slot_event(txn, machine_id, "exception", code=code, name=exception_name(code),
                            kind=exception_kind(code))
            if code in METER_FAULTS and self.config.sas.disable_on_memory_exception and m.fault is None:
                self._fault(txn, machine_id, MeterFault("memory_error", None, f"exception 0x{code:02X} "
                                                        f"{exception_name(code)}: the meters cannot be trusted"), None)
        if m.disabled and code in (0x17, *METER_FAULTS):  # a machine enables itself at power-up
            self.wanted[machine_id] = ("disable", 0.0)
        if code == 0x3C:
            self._submit(machine_id, read_poll(self.address_of[machine_id][1], 0x1F))

    def _on_meters(self, machine_id: str, outcome: PollOutcome, reply) -> None:
        m = self.state.machines[machine_id]
        for reading in readings_of(reply):
            if m.fault is not None:
                self._while_faulted(machine_id, reading)
                continue
            source = (machine_id, poll_name(outcome.poll.command), outcome.poll.data, reading.game, reading.digits)
            previous, self.last_of_poll[source] = self.last_of_poll.get(source), reading.values
            check = check_reading(m.baseline, reading, previous=previous, max_bet=self._max_bet(machine_id),
                                  window=self.window)
            if check.faults:
                with self.journal.transaction() as txn:
                    self._fault(txn, machine_id, check.faults[0], reading, also=check.faults[1:])
                continue
            if all(m.baseline.get(reading.key(n)) == v for n, v in reading.values.items()):
                continue
            series = m.series.get(str(reading.game), reading.digits)
            counts = accounted(check.deltas) if check.deltas and series == reading.digits else None
            body = {"machine": machine_id, "game": reading.game, "digits": reading.digits, "values": reading.values,
                    "deltas": check.deltas, "rollovers": list(check.rollovers), "poll": poll_name(outcome.poll.command),
                    "accounted": counts, "windows": self.calendar.keys(outcome.at) if counts else {},
                    "cents_per_credit": self._cents_per_credit(machine_id)}
            with self.journal.transaction() as txn:
                produced = self.event(txn, "slot_meters", body)
                self.send(txn, self.topics.machine(machine_id, "meters"), MetersPayload(
                    self.site, 0, txn.utc, machine=machine_id, game=reading.game, digits=reading.digits,
                    poll=body["poll"], meters=reading.values, deltas=check.deltas, rollovers=list(check.rollovers),
                    disabled=m.disabled), retain=True)
                for pool_id in {c["pool"] for c in produced.get("contributions", [])}:
                    self.publish_jackpot(txn, pool_id)
                if counts:
                    self._maybe_publish_payback(txn, machine_id)

    def _while_faulted(self, machine_id: str, reading: MeterReading) -> None:
        m = self.state.machines[machine_id]
        held = {reading.key(n): v for n, v in reading.values.items()}
        if all(m.held.get(k) == v for k, v in held.items()):
            return
        played = any(n == "games_played" and reading.key(n) in m.held and v > m.held[reading.key(n)]
                     for n, v in reading.values.items())
        with self.journal.transaction() as txn:
            self.event(txn, "slot_meters", {"machine": machine_id, "game": reading.game, "digits": reading.digits,
                                            "values": reading.values, "poll": "held"})
            if played:
                self.slot_event(txn, machine_id, "played_while_disabled", detail={"meters": reading.values})
        if played:
            self.wanted[machine_id] = ("disable", 0.0)

    def _fault(self, txn: Transaction, machine_id: str, fault: MeterFault, reading: MeterReading | None,
               also: tuple[MeterFault, ...] = ()) -> None:
        body = {"machine": machine_id, "kind": fault.kind, "meter": fault.meter, "detail": fault.detail,
                "utc": txn.utc, "also": [f.detail for f in also]}
        if reading is not None:
            body |= {"game": reading.game, "digits": reading.digits, "values": reading.values}
        self.event(txn, "slot_fault", body)
        self.slot_event(txn, machine_id, "meter_fault", kind=fault.kind, name=fault.meter,
                        detail={"detail": fault.detail, "meters": reading.values if reading else {}})
        self.set_availability(txn, machine_id, "disabled", fault.detail)
        self.wanted[machine_id] = ("disable", 0.0)

    def _on_info(self, machine_id: str, reply: MachineInfoReply) -> None:
        m = self.state.machines[machine_id]
        body = {"machine": machine_id, "denomination_code": reply.denomination_code,
                "base_pct_hundredths": reply.base_pct_hundredths, "max_bet": reply.max_bet,
                "game_id": reply.game_id, "paytable_id": reply.paytable_id}
        if (m.denomination_code, m.base_pct_hundredths, m.max_bet) == (reply.denomination_code,
                                                                       reply.base_pct_hundredths, reply.max_bet):
            return
        with self.journal.transaction() as txn:
            self.event(txn, "slot_info", body)
            if reply.base_return < self.rules.minimum:
                self.slot_event(txn, machine_id, "base_below_minimum", detail={
                    "base_pct": reply.base_pct_hundredths / 100, "minimum_pct": float(self.rules.minimum * 100)})

    def _on_progressive_win(self, machine_id: str, reply: ProgressiveWinReply) -> None:
        pool = self.state.pools.find(machine_id, reply.group, reply.level)
        with self.journal.transaction() as txn:
            if pool is None:
                self.slot_event(txn, machine_id, "progressive_win_unmatched", detail={
                    "group": reply.group, "level": reply.level, "amount_cents": reply.amount_cents})
                return
            produced = self.event(txn, "pool_award", {"pool": pool.pool_id, "machine": machine_id,
                                                      "paid": reply.amount_cents, "utc": txn.utc})
            award = {"machine": machine_id, "paid_cents": reply.amount_cents, **produced, "utc": txn.utc}
            self.slot_event(txn, machine_id, "progressive_win", detail={"pool": pool.pool_id, **award})
            self.publish_jackpot(txn, pool.pool_id, last_award=award)
        self.broadcast()

    def _on_chirp(self, port: str, address: int) -> None:
        machine_id = self.machine_at.get((port, address))
        if machine_id is not None:
            with self.journal.transaction() as txn:
                self.slot_event(txn, machine_id, "chirp", detail={"port": port, "address": address})

    def _maybe_publish_payback(self, txn: Transaction, machine_id: str, force: bool = False) -> None:
        payload = payback_payload(self, txn, machine_id)
        last_time, last_alarm = self.last_payback.get(machine_id, (0.0, False))
        now = time.monotonic()
        if force or payload.alarm != last_alarm or now - last_time >= PAYBACK_EVERY_S:
            self.send(txn, self.topics.machine(machine_id, "payback"), payload, retain=True)
            if payload.alarm and not last_alarm:
                self.slot_event(txn, machine_id, "payback_alarm", detail={
                    "windows": [w.window for w in payload.windows if w.shortfall_vs_base or w.below_minimum]})
            self.last_payback[machine_id] = (now, payload.alarm)

    # --- commands to machines ----------------------------------------------------------------
    def _submit(self, machine_id: str, poll, action: str | None = None) -> None:
        port, _ = self.address_of[machine_id]
        future = self.pollers[port].submit(poll)
        if action:
            future.add_done_callback(lambda f: self.inbox.put(("command_done", machine_id, action, f)))

    def _retry_commands(self, now: float) -> None:
        for machine_id, (action, when) in list(self.wanted.items()):
            if when is not None and when <= now and machine_id in self.address_of:
                self.wanted[machine_id] = (action, None)  # in flight
                address = self.address_of[machine_id][1]
                self._submit(machine_id, shutdown(address) if action == "disable" else startup(address), action)

    def _command_done(self, machine_id: str, action: str, future) -> None:
        error = future.exception()
        if self.wanted.get(machine_id, (None,))[0] != action:
            return  # superseded (a clear arrived while a disable was in flight)
        if error is not None or not isinstance(future.result(), Ack):
            self.wanted[machine_id] = (action, time.monotonic() + COMMAND_RETRY_S)
            return
        del self.wanted[machine_id]
        with self.journal.transaction() as txn:
            self.slot_event(txn, machine_id, "disabled" if action == "disable" else "enabled",
                            detail={"long_poll": "0x01" if action == "disable" else "0x02"})

    def broadcast(self) -> None:
        """Send every pool's value to its group (0x86, all levels of a group in one broadcast)."""
        groups: dict[int, dict[int, int]] = {}
        ports: dict[int, set[str]] = {}
        for pool in self.state.pools.pools.values():
            groups.setdefault(pool.group, {})[pool.level] = pool.cents
            ports.setdefault(pool.group, set()).update(self.address_of[m][0] for m in pool.machines
                                                        if m in self.address_of)
        for group, levels in groups.items():
            for port in ports[group]:
                self.pollers[port].submit(progressive_multi(group, levels))

    # --- helpers -----------------------------------------------------------------------------
    def _max_bet(self, machine_id: str) -> int | None:
        return self.machines[machine_id][1].max_bet or self.state.machines[machine_id].max_bet

    def _cents_per_credit(self, machine_id: str) -> str | None:
        code = self.state.machines[machine_id].denomination_code
        if code is None:
            return None
        try:
            value = cents_per_credit(code)
        except SasError:
            return None
        return f"{value.numerator}/{value.denominator}"

    def now(self) -> datetime:
        return datetime.now(UTC)

    def sigma(self, machine_id: str) -> float:
        return self.config.paytables[self.machines[machine_id][1].paytable].sigma

    def base_return(self, machine_id: str) -> Fraction | None:
        pct = self.state.machines[machine_id].base_pct_hundredths
        return Fraction(pct, 10000) if pct is not None else None


def mqtt_link(config: SlotsConfig) -> MqttLink:
    """The paho link for the slot service: its own client id and availability topic (Last Will)."""
    from pathlib import Path

    import msgspec

    from ..mqtt.link import LinkSettings, Will
    from .floor import ServiceAvailability

    section = config.mqtt
    password = Path(section.password_file).read_text().strip() if section.password_file else None
    settings = LinkSettings(url=section.url, client_id=section.client_id or f"tablehw-slots-{config.service.site}",
                            username=section.username, password=password, reconnect_max_s=section.reconnect_max_s)
    site = config.service.site
    will = Will(SlotTopics(section.prefix).service_availability,
                offline=msgspec.json.encode(ServiceAvailability(site, "offline")),
                online=msgspec.json.encode(ServiceAvailability(site, "online")))
    return MqttLink(settings, will)
