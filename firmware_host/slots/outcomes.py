"""What the slot service does with each SAS outcome: exceptions, meters, machine info, progressive wins.

Runs on the service's loop (the only thread that touches the state): meters are checked for
integrity, accounted and journalled with their MQTT messages; a fault disables the machine.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from drivers.sas.exception_codes import METER_FAULTS, exception_kind, exception_name
from drivers.sas.poller import PollOutcome
from drivers.sas.polls import read_poll
from drivers.sas.replies import (ExceptionReply, ExtendedMetersReply, HandpayReply, MachineInfoReply, MeterReply,
                                 ProgressiveWinReply, SelectedMetersReply)

from .floor import MetersPayload
from .integrity import MeterFault, MeterReading, check_reading
from .payback_report import payback_payload
from .readings import accounted, poll_name, readings_of

if TYPE_CHECKING:
    from ..journal import Transaction
    from .service import SlotService

OFFLINE_AFTER = 3  # failed polls in a row (each already retried) before a machine is offline
PAYBACK_EVERY_S = 10.0
CHIRP_EVENT_EVERY_S = 60.0


class OutcomeHandler:
    def __init__(self, service: SlotService) -> None:
        self.service = service
        self.last_payback: dict[str, tuple[float, bool]] = {}
        self.last_chirp: dict[str, float] = {}
        self.last_of_poll: dict[tuple, dict[str, int]] = {}  # the last reading of each poll, for the self-audit

    def outcome(self, outcome: PollOutcome) -> None:
        machine_id = self.service.machine_at.get((outcome.port, outcome.address))
        if machine_id is None:
            return  # a broadcast
        if outcome.error:
            self.service.failures[machine_id] += 1
            if self.service.failures[machine_id] >= OFFLINE_AFTER:
                with self.service.journal.transaction() as txn:
                    self.service.set_availability(txn, machine_id, "offline", outcome.error)
            return
        self.service.failures[machine_id] = 0
        if self.service.availability.get(machine_id) != "online" and not self.service.state.machines[machine_id].disabled:
            with self.service.journal.transaction() as txn:
                self.service.set_availability(txn, machine_id, "online")
        reply = outcome.reply
        if isinstance(reply, ExceptionReply):
            if reply.code:
                self._on_exception(machine_id, reply.code)
        elif isinstance(reply, (MeterReply, SelectedMetersReply, ExtendedMetersReply)):
            self._on_meters(machine_id, outcome, reply)
        elif isinstance(reply, MachineInfoReply):
            self._on_info(machine_id, reply)
        elif isinstance(reply, HandpayReply) and reply.amount:
            with self.service.journal.transaction() as txn:
                self.service.slot_event(txn, machine_id, "handpay", detail={"amount_credits": reply.amount,
                                "group": reply.group, "level": reply.level})
        elif isinstance(reply, ProgressiveWinReply) and reply.amount_cents:
            self._on_progressive_win(machine_id, reply)

    def _on_exception(self, machine_id: str, code: int) -> None:
        m = self.service.state.machines[machine_id]
        with self.service.journal.transaction() as txn:
            self.service.slot_event(txn, machine_id, "exception", code=code, name=exception_name(code),
                            kind=exception_kind(code))
            if code in METER_FAULTS and self.service.config.sas.disable_on_memory_exception and m.fault is None:
                self.fault(txn, machine_id, MeterFault("memory_error", None, f"exception 0x{code:02X} "
                                                        f"{exception_name(code)}: the meters cannot be trusted"), None)
        if m.disabled and code in (0x17, *METER_FAULTS):  # a machine enables itself at power-up
            self.service.wanted[machine_id] = ("disable", 0.0)
        if code == 0x3C:
            self.service._submit(machine_id, read_poll(self.service.address_of[machine_id][1], 0x1F))

    def _on_meters(self, machine_id: str, outcome: PollOutcome, reply) -> None:
        m = self.service.state.machines[machine_id]
        for reading in readings_of(reply):
            if m.fault is not None:
                self._while_faulted(machine_id, reading)
                continue
            source = (machine_id, poll_name(outcome.poll.command), outcome.poll.data, reading.game, reading.digits)
            previous, self.last_of_poll[source] = self.last_of_poll.get(source), reading.values
            check = check_reading(m.baseline, reading, previous=previous, max_bet=self.service.max_bet(machine_id),
                                  window=self.service.window)
            if check.faults:
                with self.service.journal.transaction() as txn:
                    self.fault(txn, machine_id, check.faults[0], reading, also=check.faults[1:])
                continue
            if all(m.baseline.get(reading.key(n)) == v for n, v in reading.values.items()):
                continue
            series = m.series.get(str(reading.game), reading.digits)
            counts = accounted(check.deltas) if check.deltas and series == reading.digits else None
            body = {"machine": machine_id, "game": reading.game, "digits": reading.digits, "values": reading.values,
                    "deltas": check.deltas, "rollovers": list(check.rollovers), "poll": poll_name(outcome.poll.command),
                    "accounted": counts, "windows": self.service.calendar.keys(outcome.at) if counts else {},
                    "cents_per_credit": self.service._cents_per_credit(machine_id)}
            with self.service.journal.transaction() as txn:
                produced = self.service.event(txn, "slot_meters", body)
                self.service.send(txn, self.service.topics.machine(machine_id, "meters"), MetersPayload(
                    self.service.site, 0, txn.utc, machine=machine_id, game=reading.game, digits=reading.digits,
                    poll=body["poll"], meters=reading.values, deltas=check.deltas, rollovers=list(check.rollovers),
                    disabled=m.disabled), retain=True)
                for pool_id in {c["pool"] for c in produced.get("contributions", [])}:
                    self.service.publish_jackpot(txn, pool_id)
                if counts:
                    self._maybe_publish_payback(txn, machine_id)

    def _while_faulted(self, machine_id: str, reading: MeterReading) -> None:
        m = self.service.state.machines[machine_id]
        held = {reading.key(n): v for n, v in reading.values.items()}
        if all(m.held.get(k) == v for k, v in held.items()):
            return
        played = any(n == "games_played" and reading.key(n) in m.held and v > m.held[reading.key(n)]
                     for n, v in reading.values.items())
        with self.service.journal.transaction() as txn:
            self.service.event(txn, "slot_meters", {"machine": machine_id, "game": reading.game, "digits": reading.digits,
                                            "values": reading.values, "poll": "held"})
            if played:
                self.service.slot_event(txn, machine_id, "played_while_disabled", detail={"meters": reading.values})
        if played:
            self.service.wanted[machine_id] = ("disable", 0.0)

    def fault(self, txn: Transaction, machine_id: str, fault: MeterFault, reading: MeterReading | None,
               also: tuple[MeterFault, ...] = ()) -> None:
        body = {"machine": machine_id, "kind": fault.kind, "meter": fault.meter, "detail": fault.detail,
                "utc": txn.utc, "also": [f.detail for f in also]}
        if reading is not None:
            body |= {"game": reading.game, "digits": reading.digits, "values": reading.values}
        self.service.event(txn, "slot_fault", body)
        self.service.slot_event(txn, machine_id, "meter_fault", kind=fault.kind, name=fault.meter,
                        detail={"detail": fault.detail, "meters": reading.values if reading else {}})
        self.service.set_availability(txn, machine_id, "disabled", fault.detail)
        self.service.wanted[machine_id] = ("disable", 0.0)

    def _on_info(self, machine_id: str, reply: MachineInfoReply) -> None:
        m = self.service.state.machines[machine_id]
        body = {"machine": machine_id, "denomination_code": reply.denomination_code,
                "base_pct_hundredths": reply.base_pct_hundredths, "max_bet": reply.max_bet,
                "game_id": reply.game_id, "paytable_id": reply.paytable_id}
        if (m.denomination_code, m.base_pct_hundredths, m.max_bet) == (reply.denomination_code,
                                                                       reply.base_pct_hundredths, reply.max_bet):
            return
        with self.service.journal.transaction() as txn:
            self.service.event(txn, "slot_info", body)
            if reply.base_return < self.service.rules.minimum:
                self.service.slot_event(txn, machine_id, "base_below_minimum", detail={
                    "base_pct": reply.base_pct_hundredths / 100, "minimum_pct": float(self.service.rules.minimum * 100)})

    def _on_progressive_win(self, machine_id: str, reply: ProgressiveWinReply) -> None:
        pool = self.service.state.pools.find(machine_id, reply.group, reply.level)
        with self.service.journal.transaction() as txn:
            if pool is None:
                self.service.slot_event(txn, machine_id, "progressive_win_unmatched", detail={
                    "group": reply.group, "level": reply.level, "amount_cents": reply.amount_cents})
                return
            produced = self.service.event(txn, "pool_award", {"pool": pool.pool_id, "machine": machine_id,
                                                      "paid": reply.amount_cents, "utc": txn.utc})
            award = {"machine": machine_id, "paid_cents": reply.amount_cents, **produced, "utc": txn.utc}
            self.service.slot_event(txn, machine_id, "progressive_win", detail={"pool": pool.pool_id, **award})
            self.service.publish_jackpot(txn, pool.pool_id, last_award=award)
        self.service.broadcast()

    def chirp(self, port: str, address: int) -> None:
        machine_id = self.service.machine_at.get((port, address))
        now = time.monotonic()
        if machine_id is not None and now - self.last_chirp.get(machine_id, -CHIRP_EVENT_EVERY_S) >= CHIRP_EVENT_EVERY_S:
            self.last_chirp[machine_id] = now  # a chirping machine sends 5 a second: one event a minute
            with self.service.journal.transaction() as txn:
                self.service.slot_event(txn, machine_id, "chirp", detail={"port": port, "address": address})

    def _maybe_publish_payback(self, txn: Transaction, machine_id: str, force: bool = False) -> None:
        payload = payback_payload(self.service, txn, machine_id)
        last_time, last_alarm = self.last_payback.get(machine_id, (0.0, False))
        now = time.monotonic()
        if force or payload.alarm != last_alarm or now - last_time >= PAYBACK_EVERY_S:
            self.service.send(txn, self.service.topics.machine(machine_id, "payback"), payload, retain=True)
            if payload.alarm and not last_alarm:
                self.service.slot_event(txn, machine_id, "payback_alarm", detail={
                    "windows": [w.window for w in payload.windows if w.shortfall_vs_base or w.below_minimum]})
            self.last_payback[machine_id] = (now, payload.alarm)
