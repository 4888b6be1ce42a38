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
from drivers.sas.host import SasHost
from drivers.sas.link import open_link
from drivers.sas.poller import PollOutcome, PortPoller
from drivers.sas.polls import progressive_multi, read_poll, shutdown, startup
from drivers.sas.replies import Ack

from ..journal import Journal, JournalError, MessageProperties, Transaction
from ..mqtt.link import MqttLink
from ..outbox import OutboxSender
from .config import SlotsConfig, percent
from .floor import JackpotPayload, MachineAvailability, SlotEvent, SlotTopics
from .payback import GamingCalendar, PaybackRules
from .pools import Pool
from .outcomes import OutcomeHandler
from .service_requests import RequestHandler
from .state import CHECKPOINT, EVENT_KINDS, SlotState

log = logging.getLogger(__name__)

COMMAND_RETRY_S = 2.0


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
        self.requests = RequestHandler(self)
        self.outcomes = OutcomeHandler(self)
        self.sender = OutboxSender(journal, mqtt, replies_prefix=f"{config.mqtt.prefix}/replies/") if mqtt else None
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
            self.mqtt.on_message = self.requests.admit
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
            self.outcomes.outcome(item)
        elif item[0] == "request":
            self.requests.handle(item[1])
        elif item[0] == "chirp":
            self.outcomes.chirp(item[1], item[2])
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
    def max_bet(self, machine_id: str) -> int | None:
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
