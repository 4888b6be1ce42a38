"""Layer 3 of the link: handshake, sequence numbers, acks, retransmission, heartbeats, deadlines, health.

One `LinkSession` per board. It runs on its transport's reader thread: frames, ticks and port
events arrive there; `command()` and the output holds are called from other threads and take the
same lock. Events are handed to subscribers before their ack is written, and events the board
sends again after a relink (same boot, same event id) are dropped, so an acknowledged event is
never lost and never delivered twice. A lost link drops every output hold and is never followed
by a silent re-assertion: the board has already gone to its safe state (its deadlines ran out),
and the driver decides what to do when the link is back.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from drivers.board_link import BoardEvent
from drivers.errors import CommandFailed, CommandTimeout, FrameError, HandshakeRefused, LinkError, ProtocolError
from drivers.events import DeviceEvent, DeviceHealth, DeviceIdentified, Health, now_stamp
from drivers.protocol import (
    PROTOCOL_VERSION, CommandMsg, DeviceType, EventMsg, Frame, HeartbeatMsg, HelloMsg, IdentityMsg, Kind,
    ReliableChannel, ResultMsg, Status,
)
from drivers.protocol.boards import VOCABULARIES
from drivers.protocol.messages import CommandCode

from drivers.link_health import HealthChange, HealthMonitor
from .handshake import ExpectedDevice, LinkTiming
from .transport import FrameTransport

log = logging.getLogger(__name__)


class _Pending:
    __slots__ = ("done", "result", "error")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: ResultMsg | None = None
        self.error: Exception | None = None


class LinkSession:
    """A reliable session with one board over a FrameTransport; satisfies drivers.board_link.BoardLink."""

    def __init__(self, transport: FrameTransport, expect: ExpectedDevice, *, name: str,
                 timing: LinkTiming | None = None) -> None:
        self.transport = transport
        self.expect = expect
        self.name = name
        self.timing = timing or LinkTiming()
        self.vocabulary = VOCABULARIES.get(expect.device_type)
        self.channel = ReliableChannel(window=8, min_rto=0.03)
        self.monitor = HealthMonitor(degraded_after_s=self.timing.degraded_after_s)
        self.identity: IdentityMsg | None = None
        self.refused: str | None = None
        self.duplicates_dropped = 0
        self._lock = threading.RLock()
        self._event_handlers: list[Callable[[BoardEvent], None]] = []
        self._status_handlers: list[Callable[[DeviceEvent], None]] = []
        self._linked = False
        self._hello_due = 0.0
        self._hello_delay = self.timing.hello_retry_s
        self._hello_first = 0.0
        self._last_heartbeat = 0.0
        self._last_event: dict[tuple[str, int], int] = {}
        self._last_boot: dict[str, int] = {}
        self._next_command_id = 1
        self._pending: dict[int, _Pending] = {}
        self._holds: dict[int, tuple[int, float, float]] = {}  # output id -> (value, hold_s, renew at)
        self._connected = threading.Event()
        self._reader_thread: int | None = None
        transport.attach(self)

    # --- public API ---

    def subscribe(self, on_event: Callable[[BoardEvent], None],
                  on_status: Callable[[DeviceEvent], None] | None = None) -> None:
        with self._lock:
            self._event_handlers.append(on_event)
            if on_status is not None:
                self._status_handlers.append(on_status)

    def start(self) -> None:
        self.transport.start()

    def stop(self) -> None:
        self.transport.stop()
        with self._lock:
            if self._linked:
                self._session_down("stopped")

    @property
    def health(self) -> Health | None:
        return self.monitor.state

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)

    def connect(self, timeout: float) -> IdentityMsg:
        """Start if needed and wait for an accepted handshake; HandshakeRefused or LinkError otherwise."""
        self.start()
        end = time.monotonic() + timeout
        while not self._connected.wait(0.01):
            if self.refused or time.monotonic() >= end:
                break
        if self._connected.is_set():
            return self.identity
        if self.refused:
            raise HandshakeRefused(f"{self.name}: {self.refused}")
        raise LinkError(f"{self.name}: not connected after {timeout:g} s: {self.monitor.reason or 'no answer'}")

    def command(self, code: int, args: bytes = b"", *, deadline_s: float | None = None,
                timeout: float | None = None) -> bytes:
        """Send a command and wait for its RESULT; the board drops an actuator to safe after `deadline_s`."""
        if threading.get_ident() == self._reader_thread:
            raise LinkError(f"{self.name}: command() called from the link's own thread would wait for itself")
        deadline_ms = 0 if deadline_s is None else round(deadline_s * 1000)
        if not 0 <= deadline_ms <= 0xFFFF:
            raise LinkError(f"{self.name}: deadline {deadline_s} s is outside 0..65.535 s")
        pending = _Pending()
        with self._lock:
            if not self._linked:
                raise LinkError(f"{self.name}: not connected ({self.monitor.reason or 'no handshake yet'})")
            command_id = self._next_command_id
            self._next_command_id = command_id % 0xFFFF + 1
            self._pending[command_id] = pending
            self._send(Kind.COMMAND, CommandMsg(command_id, code, deadline_ms, args).encode())
        wait = self.timing.command_timeout_s if timeout is None else timeout
        if not pending.done.wait(wait):
            with self._lock:
                self._pending.pop(command_id, None)
            raise CommandTimeout(f"{self.name}: no result for command {code:#04x} within {wait:g} s")
        if pending.error is not None:
            raise pending.error
        result = pending.result
        if result.status != Status.OK:
            try:
                status = Status(result.status).name
            except ValueError:
                status = str(result.status)
            raise CommandFailed(f"{self.name}: command {code:#04x} refused: {status}", result.status)
        return result.data

    def ping(self, data: bytes = b"", timeout: float | None = None) -> bytes:
        return self.command(CommandCode.PING, data, timeout=timeout)

    def hold_output(self, name: str, value: int, hold_s: float) -> None:
        """Drive output `name` with a deadline of `hold_s`; renewed every hold_s/3 while the link is up."""
        output = self._output(name)
        self.command(CommandCode.SET_OUTPUT, bytes((output.output_id, value)), deadline_s=hold_s)
        with self._lock:
            if value == output.safe_value:
                self._holds.pop(output.output_id, None)
            else:
                self._holds[output.output_id] = (value, hold_s, time.monotonic() + hold_s / 3)

    def release_output(self, name: str) -> None:
        output = self._output(name)
        with self._lock:
            self._holds.pop(output.output_id, None)
        self.command(CommandCode.SET_OUTPUT, bytes((output.output_id, output.safe_value)))

    def _output(self, name: str):
        if self.vocabulary is None:
            raise LinkError(f"{self.name}: {self.expect.device_type.name} has no known outputs")
        try:
            return self.vocabulary.output(name)
        except ProtocolError as exc:
            raise LinkError(f"{self.name}: {exc}") from None

    # --- FrameReceiver (the transport's reader thread) ---

    def link_opened(self, mono: float) -> None:
        with self._lock:
            self._reader_thread = threading.get_ident()
            self._hello_first = mono
            self._hello_delay = self.timing.hello_retry_s
            self._hello_due = mono  # say HELLO at the next tick

    def link_open_failed(self, reason: str, mono: float) -> None:
        with self._lock:
            self._session_down(f"cannot open port: {reason}")

    def link_closed(self, reason: str, mono: float) -> None:
        with self._lock:
            self._session_down(f"port closed: {reason}")

    def frame_error(self, error: FrameError, mono: float) -> None:
        with self._lock:
            self.monitor.trouble(mono, "bad frame")
            log.debug("%s: %s", self.name, error)

    def frame_received(self, frame: Frame, mono: float) -> None:
        with self._lock:
            self.monitor.heard(mono)
            if frame.kind == Kind.IDENTITY:
                self._on_identity(frame, mono)
                return
            if not self._linked:
                return
            retransmits = self.channel.stats.retransmitted
            delivered, out = self.channel.receive(frame, mono)
            if self.channel.stats.retransmitted != retransmits:
                self.monitor.trouble(mono, "retransmission")
            for item in delivered:
                self._deliver(item, mono)
            for wire in out:  # acks go out only after the events were handed over
                self._write(wire)

    def tick(self, mono: float) -> None:
        with self._lock:
            if self.transport.is_open and not self._linked and mono >= self._hello_due:
                self._say_hello(mono)
            if not self._linked:
                return
            silent = mono - self.monitor.last_heard
            if silent > self.timing.lost_after_s:
                self._session_down(f"no frame from the device for {silent:.2f} s")
                return
            if self.channel.oldest_attempts > self.timing.max_attempts:
                self._session_down(f"no ack after {self.channel.oldest_attempts} sends")
                return
            before = self.channel.stats.retransmitted
            for wire in self.channel.poll(mono):
                self._write(wire)
            if self.channel.stats.retransmitted != before:
                self.monitor.trouble(mono, "retransmission")
            if mono - self._last_heartbeat >= self.timing.heartbeat_s:
                self._last_heartbeat = mono
                self._write(self.channel.control(Kind.HEARTBEAT, HeartbeatMsg(int(mono * 1000)).encode()))
            self._renew_holds(mono)
            self._report(self.monitor.evaluate(mono))

    # --- internals (lock held) ---

    def _say_hello(self, mono: float) -> None:
        if self.refused is None and mono - self._hello_first > self.timing.lost_after_s:
            self._report(self.monitor.set(Health.LOST, "no answer to the handshake"))
        hello = HelloMsg(PROTOCOL_VERSION, round(self.timing.heartbeat_s * 1000), round(self.timing.lost_after_s * 1000))
        self._write(self.channel.control(Kind.HELLO, hello.encode()))
        self._hello_due = mono + self._hello_delay
        self._hello_delay = min(self.timing.hello_retry_max_s, self._hello_delay * 2)

    def _on_identity(self, frame: Frame, mono: float) -> None:
        try:
            identity = IdentityMsg.decode(frame.payload)
        except ProtocolError as exc:
            self.monitor.trouble(mono, "bad identity")
            log.warning("%s: unreadable IDENTITY: %s", self.name, exc)
            return
        refusal = self.expect.refusal(identity)
        if refusal is not None:
            if refusal != self.refused:
                log.error("%s: handshake refused: %s", self.name, refusal)
            self.refused = refusal
            self._session_down(f"refused: {refusal}")
            return
        self.refused = None
        self._fail_pending(LinkError(f"{self.name}: link restarted"))
        self.channel.reset()  # the board reset its side when it answered
        if self._linked and identity == self.identity:
            # The answer to a HELLO repeated before the first answer came (both queued in a pty or a
            # UART's buffer while the board was not reading): the same session, announced once.
            log.debug("%s: IDENTITY again from %s: HELLO was repeated", self.name, identity.serial)
            return
        self.identity = identity
        self._linked = True
        self._last_heartbeat = 0.0
        previous_boot = self._last_boot.get(identity.serial)
        rebooted = previous_boot is not None and previous_boot != identity.boot_id
        if rebooted:
            log.warning("%s: board %s rebooted (boot %08x -> %08x)", self.name, identity.serial, previous_boot,
                        identity.boot_id)
        self._last_boot[identity.serial] = identity.boot_id
        mono_now, utc = now_stamp()
        self._status(DeviceIdentified(
            device=self.name, mono=mono_now, utc=utc, device_type=DeviceType(identity.device_type).name.lower(),
            serial=identity.serial, firmware=identity.firmware, protocol_version=identity.version,
            boot_id=identity.boot_id, rebooted=rebooted))
        self._report(self.monitor.set(Health.CONNECTED, f"handshake with {identity.serial} ({identity.firmware})"))
        self._connected.set()

    def _deliver(self, frame: Frame, mono: float) -> None:
        if frame.kind == Kind.RESULT:
            try:
                result = ResultMsg.decode(frame.payload)
            except ProtocolError as exc:
                log.warning("%s: unreadable RESULT: %s", self.name, exc)
                return
            pending = self._pending.pop(result.command_id, None)
            if pending is not None:
                pending.result = result
                pending.done.set()
            return
        if frame.kind != Kind.EVENT:
            log.warning("%s: ignoring frame kind %#04x", self.name, frame.kind)
            return
        try:
            event = EventMsg.decode(frame.payload)
        except ProtocolError as exc:
            log.warning("%s: unreadable EVENT: %s", self.name, exc)
            return
        key = (self.identity.serial, self.identity.boot_id)
        last = self._last_event.get(key, 0)
        if event.event_id <= last:
            self.duplicates_dropped += 1  # sent again after a relink: already delivered
            return
        if event.event_id != last + 1:
            self.monitor.trouble(mono, "event gap")
            log.error("%s: events %d..%d never arrived", self.name, last + 1, event.event_id - 1)
        self._last_event[key] = event.event_id
        _, utc = now_stamp()
        board_event = BoardEvent(event.event_id, event.code, event.data, event.device_ms, mono, utc)
        for handler in self._event_handlers:
            handler(board_event)

    def _renew_holds(self, mono: float) -> None:
        for output_id, (value, hold_s, renew_at) in list(self._holds.items()):
            if mono >= renew_at:
                command_id = self._next_command_id
                self._next_command_id = command_id % 0xFFFF + 1
                self._send(Kind.COMMAND, CommandMsg(command_id, CommandCode.SET_OUTPUT, round(hold_s * 1000),
                                                    bytes((output_id, value))).encode())
                self._holds[output_id] = (value, hold_s, mono + hold_s / 3)

    def _session_down(self, reason: str) -> None:
        was_linked = self._linked
        self._linked = False
        self._connected.clear()
        self.channel.reset()
        if self._holds:
            log.warning("%s: link down with outputs held %s: the board returns them to safe by deadline",
                        self.name, sorted(self._holds))
        self._holds.clear()
        self._fail_pending(LinkError(f"{self.name}: link lost: {reason}"))
        if was_linked:
            log.warning("%s: link session ended: %s", self.name, reason)
        self._report(self.monitor.set(Health.LOST, reason))
        now = time.monotonic()
        self._hello_first = now
        self._hello_delay = self.timing.hello_retry_s
        self._hello_due = now if not reason.startswith("refused") else now + self.timing.hello_retry_max_s

    def _fail_pending(self, error: Exception) -> None:
        for pending in self._pending.values():
            pending.error = error
            pending.done.set()
        self._pending.clear()

    def _send(self, kind: Kind, payload: bytes) -> None:
        for wire in self.channel.send(kind, payload, time.monotonic()):
            self._write(wire)

    def _write(self, wire: bytes) -> None:
        try:
            self.transport.send(wire)
        except LinkError:
            pass  # the reader notices the dead port on its next read and reports it

    def _report(self, change: HealthChange | None) -> None:
        if change is None:
            return
        (log.info if change.state is Health.CONNECTED else log.warning)("%s: %s: %s", self.name, change.state,
                                                                          change.reason)
        mono, utc = now_stamp()
        self._status(DeviceHealth(device=self.name, mono=mono, utc=utc, state=change.state, reason=change.reason))

    def _status(self, event: DeviceEvent) -> None:
        for handler in self._status_handlers:
            handler(event)


def open_session(url: str, expect: ExpectedDevice, *, name: str, timing: LinkTiming | None = None,
                 baudrate: int = 115200) -> LinkSession:
    """A session on a new transport for `url` (not started)."""
    return LinkSession(FrameTransport(url, name=name, baudrate=baudrate), expect, name=name, timing=timing)


