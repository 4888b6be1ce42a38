"""A thread per SAS port: runs the poll cycle over the port's machines, on-demand polls and broadcasts.

Each machine gets at most one poll per `min_interval` (SAS 2.3.3: no faster than every 200 ms); the
next step of its cycle goes when it is due, round-robin, so a bank of machines on one port fills the
line. On-demand polls (the floor system's requests, disable/enable, progressive broadcasts) jump the
queue: addressed ones take the machine's next slot, broadcasts go at once. Exceptions that need data
get their follow-up poll at once (0x51 handpay pending -> 0x1B, 0x56 progressive hit -> 0x85).
Results leave through `on_outcome`, called on this thread: it must only enqueue.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .errors import SasError, SasFrameError
from .host import SasHost
from .polls import (EXTENDED_METER_COMMANDS, READ_COMMANDS, Poll, extended_meters, general_poll, read_poll,
                    selected_meters)
from .replies import Busy, ExceptionReply, Reply

FOLLOW_UPS = {0x51: 0x1B, 0x56: 0x85}
MIN_POLL_INTERVAL = 0.200
BUSY_RETRIES = 5


@dataclass(frozen=True, slots=True)
class PollStep:
    """One entry of a poll cycle: "general", "0x1C", "0x2F:0,1,2,5" or "0x6F:game=1:0,1,2,5"."""

    command: int | None
    codes: tuple[int, ...] = ()
    game: int = 0

    @classmethod
    def parse(cls, text: str) -> PollStep:
        text = text.strip().lower()
        if text in ("general", "gp"):
            return cls(None)
        head, *rest = text.split(":")
        try:
            command = int(head, 16)
            game = 0
            if rest and rest[0].startswith("game="):
                game = int(rest.pop(0)[5:])
            codes = tuple(int(c, 16) for c in rest[0].split(",")) if rest else ()
        except ValueError:
            raise SasFrameError(f"poll cycle step {text!r}: use general, 0xNN, 0x2F:codes or 0x6F:codes") from None
        step = cls(command, codes, game)
        step.build(1)  # validates command, codes and game now rather than on the line
        return step

    def build(self, address: int, *, alternate: bool = False) -> Poll:
        if self.command is None:
            return general_poll(address)
        if self.command == 0x2F:
            return selected_meters(address, self.game, self.codes)
        if self.command in EXTENDED_METER_COMMANDS:
            return extended_meters(address, self.game, self.codes, alternate=alternate)
        if self.command in READ_COMMANDS:
            return read_poll(address, self.command)
        raise SasFrameError(f"0x{self.command:02X} cannot be a step of the poll cycle")


@dataclass(frozen=True, slots=True)
class PollOutcome:
    """What one poll gave: a reply or an error, when (UTC) and on which port."""

    port: str
    address: int
    poll: Poll
    reply: Reply | None
    error: str | None
    at: datetime
    on_demand: bool = False


@dataclass
class _Machine:
    address: int
    due: float = 0.0
    step: int = 0
    alternate: bool = False
    queue: deque = field(default_factory=deque)  # (poll, future | None, busy_tries)


class PortPoller:
    """Polls the machines of one port on its own thread until `stop()`."""

    def __init__(self, name: str, host: SasHost, addresses: Iterable[int], cycle: Iterable[PollStep], *,
                 on_outcome: Callable[[PollOutcome], None], min_interval: float = MIN_POLL_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.host = host
        self.cycle = list(cycle) or [PollStep(None)]
        self.min_interval = min_interval
        self.on_outcome = on_outcome
        self.clock = clock
        # Machines start at different steps of the cycle so that one round mixes short and long polls:
        # in lockstep, a round of general polls would leave the line idle behind the 200 ms rule.
        self.machines = {a: _Machine(a, step=i % len(self.cycle)) for i, a in enumerate(addresses)}
        self._broadcasts: deque = deque()
        self._wake = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name=f"sas-{name}", daemon=True)
        self.cycles_done = 0

    # --- other threads -------------------------------------------------------------------------
    def start(self) -> PortPoller:
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._thread.join(timeout)

    def submit(self, poll: Poll) -> Future:
        """Queue an on-demand poll; the Future gets the reply (None for a broadcast) or the error."""
        future: Future = Future()
        with self._wake:
            if poll.is_broadcast:
                self._broadcasts.append((poll, future, 0))
            elif poll.address in self.machines:
                self.machines[poll.address].queue.append((poll, future, 0))
            else:
                future.set_exception(SasFrameError(f"port {self.name} has no machine at address {poll.address}"))
            self._wake.notify()
        return future

    # --- the port's thread ---------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._wake:
                if self._stopping:
                    return
                job = self._next_job()
                if job is None:
                    self._wake.wait(timeout=self._idle_time())
                    continue
            self._execute(*job)

    def _idle_time(self) -> float:
        next_due = min((m.due for m in self.machines.values()), default=self.clock() + 0.05)
        return max(0.0005, min(0.05, next_due - self.clock()))

    def _next_job(self):
        if self._broadcasts:
            return (None, *self._broadcasts.popleft())
        now = self.clock()
        due = [m for m in self.machines.values() if m.due <= now]
        if not due:
            return None
        machine = min(due, key=lambda m: m.due)
        machine.due = now + self.min_interval
        if machine.queue:
            return (machine, *machine.queue.popleft())
        step = self.cycle[machine.step]
        machine.step = (machine.step + 1) % len(self.cycle)
        if machine.step == 0:
            self.cycles_done += 1
        poll = step.build(machine.address, alternate=machine.alternate)
        if step.command in EXTENDED_METER_COMMANDS:
            machine.alternate = not machine.alternate  # 0x6F, 0xAF, 0x6F, ... (implied ACK)
        return (machine, poll, None, 0)

    def _execute(self, machine: _Machine | None, poll: Poll, future: Future | None, busy_tries: int) -> None:
        reply, error = None, None
        try:
            reply = self.host.transact(poll)
        except SasError as exc:
            error = str(exc)
        if isinstance(reply, Busy) and future is not None and busy_tries < BUSY_RETRIES:
            with self._wake:
                machine.queue.append((poll, future, busy_tries + 1))
            return
        if future is not None:
            if error:
                future.set_exception(SasError(error))
            else:
                future.set_result(reply)
        address = machine.address if machine else poll.address
        self.on_outcome(PollOutcome(self.name, address, poll, reply, error, datetime.now(UTC), future is not None))
        if machine and isinstance(reply, ExceptionReply) and reply.code in FOLLOW_UPS:
            with self._wake:
                machine.queue.appendleft((read_poll(machine.address, FOLLOW_UPS[reply.code]), None, 0))
