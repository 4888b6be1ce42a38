"""Device side of the firmware link over a pty: handshake, acks, retransmitted events, outputs with deadlines.

`BoardSim` is what a board's firmware does (docs/firmware-protocol.md), in Python, so drivers and
the host session are tested against the real protocol on a real pty. Events emitted while the
link is down wait in a backlog; events sent but not acknowledged when the link drops are sent
again (same event id) after the next handshake, so the host can drop the copies it already has.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from pathlib import Path

from ..protocol import (
    PROTOCOL_VERSION, CommandMsg, EventMsg, Frame, FrameDecoder, HeartbeatMsg, HelloMsg, IdentityMsg, Kind,
    ReliableChannel, ResultMsg, Status, cobs_decode, cobs_encode,
)
from ..protocol.boards import BoardVocabulary, pack_event
from ..protocol.messages import CommandCode
from .faults import Faults
from .pty_port import PtyEndpoint

log = logging.getLogger(__name__)


class BoardSim:
    """A simulated board; start() returns the port path the host opens."""

    def __init__(self, vocabulary: BoardVocabulary, *, serial: str = "SIM-0001", firmware: str = "sim-1.0.0",
                 protocol_version: int = PROTOCOL_VERSION, device_type: int | None = None,
                 path: str | Path | None = None, faults: Faults | None = None, tick: float = 0.002) -> None:
        self.vocabulary = vocabulary
        self.serial, self.firmware = serial, firmware
        self.protocol_version = protocol_version
        self.device_type = int(vocabulary.device_type if device_type is None else device_type)
        self.endpoint = PtyEndpoint(path)
        self.faults = faults or Faults()
        self.tick = tick
        self.channel = ReliableChannel(window=8, min_rto=0.03)
        self.decoder = FrameDecoder()
        self.lock = threading.RLock()
        self.hellos = 0
        self.frame_errors = 0
        self.heartbeat_s, self.link_timeout_s = 0.2, 1.0
        self.output_log: list[tuple[float, str, int, str]] = []
        self.commands: list[CommandMsg] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._silent_until = 0.0
        self._unplugged_until: float | None = None
        self._unplug_request: tuple[float, threading.Event] | None = None
        self._boot()

    def _boot(self) -> None:
        self.boot_id = random.getrandbits(32)
        self.boot_mono = time.monotonic()
        self.virtual_ms = 0
        self.next_event_id = 1
        self.backlog: deque[bytes] = deque()
        self.channel.reset()
        self.linked = False
        self.last_host_frame = 0.0
        self.last_heartbeat = 0.0
        self.outputs = {o.output_id: o.safe_value for o in self.vocabulary.outputs}
        self.deadlines: dict[int, float] = {}

    # --- control from tests and scripts ---

    def start(self) -> str:
        path = self.endpoint.plug()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"sim:{self.serial}", daemon=True)
        self._thread.start()
        return path

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        self.endpoint.close()

    @property
    def path(self) -> str:
        return str(self.endpoint.path)

    def device_ms(self) -> int:
        """The board's clock: ms since boot, plus time simulated by scripts."""
        return int((time.monotonic() - self.boot_mono) * 1000) + self.virtual_ms

    def emit(self, name: str, device_ms: int | None = None, **fields: int) -> int:
        """Raise an event now; returns its event id."""
        code, data = pack_event(self.vocabulary, name, **fields)
        with self.lock:
            event_id = self.next_event_id
            self.next_event_id += 1
            payload = EventMsg(event_id, self.device_ms() if device_ms is None else device_ms, code, data).encode()
            if self.linked:
                self._send(Kind.EVENT, payload)
            else:
                self.backlog.append(payload)
        return event_id

    def pending_events(self) -> int:
        """Events not yet acknowledged by the host (in flight or waiting for a link)."""
        with self.lock:
            in_flight = sum(1 for u in self.channel.unacked if u.kind == Kind.EVENT)
            queued = sum(1 for kind, _ in self.channel.queued if kind == Kind.EVENT)
            return in_flight + queued + len(self.backlog)

    def wait_delivered(self, timeout: float = 5.0) -> bool:
        """Block until every event has been acknowledged (True) or `timeout` passes (False)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.pending_events() == 0:
                return True
            time.sleep(0.005)
        return False

    def go_silent(self, seconds: float) -> None:
        """Neither answer nor send anything for `seconds` (the board still enforces its deadlines)."""
        self._silent_until = time.monotonic() + seconds

    def unplug(self, seconds: float) -> None:
        """Pull the cable for `seconds`: the port path vanishes, then a new pty appears at it."""
        done = threading.Event()
        self._unplug_request = (seconds, done)
        done.wait(2.0)  # the board's own thread pulls the plug between two reads

    def reboot(self) -> None:
        """Power-cycle: new boot id, event ids restart at 1, unsent events are lost, outputs safe."""
        with self.lock:
            self._boot()

    def output(self, name: str) -> int:
        return self.outputs[self.vocabulary.output(name).output_id]

    # --- the board's loop ---

    def _run(self) -> None:
        while not self._stop.is_set():
            now = time.monotonic()
            if self._unplug_request is not None:
                seconds, done = self._unplug_request
                self._unplug_request = None
                with self.lock:
                    self._unplugged_until = now + seconds
                    self.endpoint.unplug()
                    self._link_down("unplugged")
                done.set()
            if self._unplugged_until is not None:
                if now >= self._unplugged_until:
                    with self.lock:
                        self._unplugged_until = None
                        self.decoder.reset()
                        self.endpoint.plug()
                self._enforce_deadlines(now)
                self._stop.wait(self.tick)
                continue
            data = self.endpoint.read(self.tick)
            now = time.monotonic()
            with self.lock:
                if now < self._silent_until:
                    self._enforce_deadlines(now)
                    continue
                for item in self.decoder.feed(data) if data else ():
                    if isinstance(item, Frame):
                        self._on_frame(item, now)
                    else:
                        self.frame_errors += 1
                self._on_tick(now)

    def _on_frame(self, frame: Frame, now: float) -> None:
        self.last_host_frame = now
        if frame.kind == Kind.HELLO:
            self._on_hello(frame)
            return
        if not self.linked:
            return  # a host that has not said HELLO this session gets nothing
        if self.channel.unacked and self.faults.take("ignore_acks"):
            frame = Frame(frame.kind, frame.seq, self.channel.unacked[0].seq, frame.payload)  # acks nothing
        delivered, out = self.channel.receive(frame, now)
        ack = self.channel.control(Kind.ACK)
        for wire in out:
            if wire == ack and self.faults.take("drop_acks"):
                continue
            self._write(wire)
        for got in delivered:
            if got.kind == Kind.COMMAND:
                self._on_command(CommandMsg.decode(got.payload), now)

    def _on_hello(self, frame: Frame) -> None:
        self.hellos += 1
        try:
            hello = HelloMsg.decode(frame.payload)
            self.heartbeat_s = max(0.01, hello.heartbeat_ms / 1000)
            self.link_timeout_s = max(0.05, hello.link_timeout_ms / 1000)
        except ValueError:
            pass
        # Events sent in the last session but never acknowledged go again, first, with their ids.
        resend = [payload for kind, payload in self.channel.take_unsent() if kind == Kind.EVENT]
        self.backlog.extendleft(reversed(resend))
        self.channel.reset()
        self.linked = True
        identity = IdentityMsg(self.protocol_version, self.device_type, self.boot_id, self.serial, self.firmware)
        self._write(self.channel.control(Kind.IDENTITY, identity.encode()))
        while self.backlog:
            self._send(Kind.EVENT, self.backlog.popleft())

    def _on_command(self, command: CommandMsg, now: float) -> None:
        self.commands.append(command)
        status, data = self.handle_command(command, now)
        self._send(Kind.RESULT, ResultMsg(command.command_id, status, data).encode())

    def handle_command(self, command: CommandMsg, now: float) -> tuple[int, bytes]:
        """Execute a command; boards with more commands extend this."""
        if command.code == CommandCode.PING:
            return Status.OK, command.args
        if command.code == CommandCode.SET_OUTPUT:
            if len(command.args) != 2:
                return Status.BAD_ARGUMENTS, b""
            output_id, value = command.args
            outputs = {o.output_id: o for o in self.vocabulary.outputs}
            if output_id not in outputs:
                return Status.BAD_ARGUMENTS, b""
            output = outputs[output_id]
            if value != output.safe_value and command.deadline_ms == 0:
                return Status.DEADLINE_REQUIRED, b""
            self._set_output(output_id, value, now, "command")
            if value != output.safe_value:
                self.deadlines[output_id] = now + command.deadline_ms / 1000
            else:
                self.deadlines.pop(output_id, None)
            return Status.OK, b""
        return Status.UNKNOWN_COMMAND, b""

    def _set_output(self, output_id: int, value: int, now: float, reason: str) -> None:
        name = next(o.name for o in self.vocabulary.outputs if o.output_id == output_id)
        if self.outputs[output_id] != value or reason == "command":
            self.output_log.append((now, name, value, reason))
        self.outputs[output_id] = value

    def _enforce_deadlines(self, now: float) -> None:
        with self.lock:
            for output_id, deadline in list(self.deadlines.items()):
                if now >= deadline:
                    safe = next(o.safe_value for o in self.vocabulary.outputs if o.output_id == output_id)
                    self._set_output(output_id, safe, now, "deadline")
                    del self.deadlines[output_id]

    def _on_tick(self, now: float) -> None:
        self._enforce_deadlines(now)
        if not self.linked:
            return
        if now - self.last_host_frame > self.link_timeout_s:
            self._link_down("host silent")
            return
        for wire in self.channel.poll(now):
            self._write(wire)
        if now - self.last_heartbeat >= self.heartbeat_s:
            self.last_heartbeat = now
            self._write(self.channel.control(Kind.HEARTBEAT, HeartbeatMsg(self.device_ms()).encode()))

    def _link_down(self, reason: str) -> None:
        """The host is gone: outputs to their safe state; unacknowledged events wait for the next link."""
        now = time.monotonic()
        for output in self.vocabulary.outputs:
            if self.outputs[output.output_id] != output.safe_value:
                self._set_output(output.output_id, output.safe_value, now, reason)
        self.deadlines.clear()
        if self.linked:
            resend = [payload for kind, payload in self.channel.take_unsent() if kind == Kind.EVENT]
            self.backlog.extendleft(reversed(resend))
        self.linked = False

    def _send(self, kind: Kind, payload: bytes) -> None:
        for wire in self.channel.send(kind, payload, time.monotonic()):
            self._write(wire)

    def _write(self, wire: bytes) -> None:
        if time.monotonic() < self._silent_until:
            return  # silent: whatever the board tries to say is lost (events are retransmitted later)
        faults = self.faults
        if faults.delay:
            time.sleep(faults.delay)
        garbage = faults.take_garbage()
        if faults.take("corrupt_crc"):
            body = bytearray(cobs_decode(wire.strip(b"\x00")))
            body[-1] ^= 0x01
            wire = b"\x00" + cobs_encode(bytes(body)) + b"\x00"
        copies = 2 if faults.take("repeat") else 1
        self.endpoint.write(garbage + wire * copies)
