"""How a simulated machine answers polls: SAS replies from its state, implied ACK/NACK, injected faults.

Implied ACK/NACK as SAS 3.1-3.2 and a real machine do it: a reply's data are dropped (an exception
leaves the queue, a progressive win is forgotten) only when the host's next poll is a different one;
the same poll again is a NACK and gets the identical bytes again; a third identical poll is the final
NACK: the machine keeps the data for later and stays silent. Every answer waits for its implied ACK,
"no activity" included, so a general poll repeated to the same machine is a NACK too.

Synchronisation as Aristocrat's machine-side SAS code has it (`HostAcknowledgementProvider`): a machine
starts in `PendingAnotherAddress` and ignores polls to its own address until it sees a poll to another
address or a global broadcast; the next poll to its own address makes it synchronised. It falls back to
`PendingAnotherAddress` when the line has been without host traffic for 5 s (the simulator calls
`lose_sync()` when it starts chirping) or when it powers up again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from ..sas.bcd import bcd_modulus
from ..sas.meters import GAMES_SINCE_FIELDS, METER_CODES, MULTI_METER_POLLS, SINGLE_METER_POLLS, meter_name
from ..sas.polls import Poll, parse_meter_request, parse_progressive
from ..sas.replies import (Ack, Busy, ExceptionReply, ExtendedMetersReply, HandpayReply, MachineInfoReply,
                           MeterReply, Nack, ProgressiveWinReply, Reply, SelectedGameReply, SelectedMetersReply,
                           VersionReply, encode_reply)
from .egm_machine import EgmMachine

EXTENDED_SIZE = 5  # bytes a simulated machine uses for its extended (0x6F/0xAF) meters: 10 digits


@dataclass
class FaultPlan:
    """Faults to inject, each counted down as it is used."""

    bad_crc: int = 0  # the next N data replies carry a wrong CRC
    silent: int = 0  # the next N polls get no answer at all
    busy: int = 0  # the next N long polls are answered BUSY
    delay: float = 0.0  # seconds before every answer (above 0.020 breaks the response limit)
    gap: float = 0.0  # a pause in the middle of every data reply (above 0.005 breaks the inter-byte limit)


@dataclass(frozen=True, slots=True)
class SimReply:
    data: bytes
    delay: float = 0.0
    gap: float = 0.0


class SyncState(Enum):
    PENDING_ANOTHER_ADDRESS = "pending_another_address"
    PENDING_FIRST_MESSAGE = "pending_first_message"
    SYNCHRONIZED = "synchronized"


@dataclass
class _Pending:
    key: tuple[int, int | None]
    data: bytes
    on_ack: Callable[[], None] | None
    repeats: int = 0


class EgmResponder:
    """The SAS side of one simulated machine."""

    def __init__(self, machine: EgmMachine) -> None:
        self.machine = machine
        self.faults = FaultPlan()
        self._pending: _Pending | None = None
        self.sync = SyncState.PENDING_ANOTHER_ADDRESS
        self.polls_received = 0
        self.polls_ignored_unsynced = 0
        self.sync_polls_seen = 0
        self.nacks_seen = 0

    def acknowledge(self) -> None:
        """Implied ACK: a poll to another machine, a different poll to this one, or a broadcast."""
        pending, self._pending = self._pending, None
        if pending and pending.on_ack:
            pending.on_ack()

    def heard_elsewhere(self) -> None:
        """A poll to another address or a global broadcast: an implied ACK, and the sync a machine waits for."""
        self.sync_polls_seen += 1
        self.acknowledge()
        if self.sync is SyncState.PENDING_ANOTHER_ADDRESS:
            self.sync = SyncState.PENDING_FIRST_MESSAGE

    def lose_sync(self) -> None:
        """Link down (5 s without host traffic) or a power-up: wait for a poll to another address again."""
        self._pending = None
        self.sync = SyncState.PENDING_ANOTHER_ADDRESS

    def reject_crc(self) -> SimReply | None:
        """A type S poll whose CRC failed: NACK it (the address with bit 7 set), once synchronised."""
        if self.sync is SyncState.PENDING_ANOTHER_ADDRESS:
            return None
        return SimReply(encode_reply(Nack(self.machine.address)))

    def handle(self, poll: Poll, now: float) -> SimReply | None:
        self.polls_received += 1
        if self.sync is SyncState.PENDING_ANOTHER_ADDRESS:
            self.polls_ignored_unsynced += 1
            return None
        self.sync = SyncState.SYNCHRONIZED
        key = (poll.address, poll.command)
        pending = self._pending
        if pending and pending.key == key:
            self.nacks_seen += 1
            pending.repeats += 1
            if pending.repeats >= 2:  # final NACK: keep the data (no on_ack), answer nothing
                self._pending = None
                return None
            return self._emit(pending.data)
        self.acknowledge()
        faults = self.faults
        if faults.silent:
            faults.silent -= 1
            return None
        if faults.busy and not poll.is_general:
            faults.busy -= 1
            return SimReply(encode_reply(Busy(self.machine.address)), faults.delay)
        answer = self.answer(poll, now)
        if answer is None:
            return None  # a poll this machine does not support is ignored (SAS 4.4)
        reply, on_ack = answer
        data = encode_reply(reply)
        self._pending = _Pending(key, data, on_ack)
        return self._emit(data)

    def _emit(self, data: bytes) -> SimReply:
        faults = self.faults
        if faults.bad_crc and len(data) > 2:
            faults.bad_crc -= 1
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        return SimReply(data, faults.delay, faults.gap if len(data) > 2 else 0.0)

    def answer(self, poll: Poll, now: float) -> tuple[Reply, Callable[[], None] | None] | None:
        m = self.machine
        address, command = m.address, poll.command
        with m.lock:
            if command is None:
                code = m.peek_exception()
                return ExceptionReply(code), (lambda: m.pop_exception(code))
            if command in (0x01, 0x02):
                m.enabled = command == 0x02
                return Ack(address), None
            if command in (0x80, 0x86):
                group, levels = parse_progressive(poll)
                m.receive_progressive(group, levels, now)
                return Ack(address), None
            meters = m.meters
            if command in SINGLE_METER_POLLS or command in MULTI_METER_POLLS:
                names = MULTI_METER_POLLS.get(command) or (SINGLE_METER_POLLS[command],)
                return MeterReply(address, command, {n: meters[n] % bcd_modulus(4) for n in names}), None
            if command == 0x18:
                return MeterReply(address, command, {n: meters[n] % bcd_modulus(2) for n in GAMES_SINCE_FIELDS}), None
            if command == 0x1B:
                hp = m.handpays[0] if m.handpays else None
                reply = HandpayReply(address, hp.group, hp.level, hp.amount, 0, 0) if hp else HandpayReply(address, 0, 0, 0, 0, 0)
                return reply, None
            if command == 0x1F:
                p = m.profile
                return MachineInfoReply(address, p.game_id, p.additional_id, p.denomination_code, p.max_bet,
                                        p.progressive_group, 0, p.paytable_id, p.base_pct_hundredths), None
            if command == 0x54:
                return VersionReply(address, m.profile.sas_version, m.profile.serial), None
            if command == 0x55:
                return SelectedGameReply(address, m.selected_game), None
            if command == 0x85:
                if not m.progressive_wins:
                    return ProgressiveWinReply(address, 0, 0, 0), None
                win = m.progressive_wins[0]
                return ProgressiveWinReply(address, *win), (lambda: _drop_first(m.progressive_wins, win))
            if command == 0x2F or command in (0x6F, 0xAF):
                return self._meters_for_game(poll)
        return None

    def _meters_for_game(self, poll: Poll):
        m = self.machine
        game, codes = parse_meter_request(poll)
        if game not in (0, m.selected_game):
            return None
        values = {}
        for code in codes:
            name = meter_name(code)
            value = m.profile.base_pct_hundredths if code == 0x7F else m.meters.get(name)
            values[code] = value
        if poll.command == 0x2F:
            known = {c: v or 0 for c, v in values.items() if c in METER_CODES}
            sizes = {c: METER_CODES[c].size for c in known}
            return SelectedMetersReply(m.address, game, {c: v % bcd_modulus(sizes[c]) for c, v in known.items()}), None
        extended = {c: ((EXTENDED_SIZE, v % bcd_modulus(EXTENDED_SIZE)) if v is not None else (0, 0))
                    for c, v in values.items()}
        return ExtendedMetersReply(m.address, poll.command, game, extended), None


def _drop_first(queue, item) -> None:
    if queue and queue[0] == item:
        queue.popleft()
