"""Commercial wheel adapter for the Cammegh-style ASCII status protocol (9600 8N1, RTS/CTS).

Each line is `*X;<state>;<spin 3 digits>;<number 2 digits>;<warning flags hex>;<rotor speed 3 digits>;
<direction 0=cw 1=ccw>` + CR LF, repeated every 0.5 s (docs/devices.md). `CammeghDecoder` is pure:
lines in, typed events out, exactly one event per change of (state, spin, warnings) — never one per
repeated line; warnings that arrive together with a state change belong to that state's event.
`CammeghReader` puts it on a serial port by URL with reconnects and health.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

import serial

from .errors import ProtocolError
from .events import (
    DeviceEvent, DeviceHealth, Direction, Health, SpinMissed, WheelFault, WheelPhase, WheelPhaseChanged, WheelResult,
    WheelWarning, now_stamp,
)
from .link_health import HealthChange, HealthMonitor
from .transport import Backoff, Opener, SerialLine
from .wheel_layout import SpinChecks

log = logging.getLogger(__name__)

STATES = {1: WheelPhase.GAME_START, 2: WheelPhase.NEW_GAME, 3: WheelPhase.BALL_IN_TRACK,
          4: WheelPhase.NO_MORE_BETS, 5: WheelPhase.WINNING_NUMBER, 6: WheelPhase.TABLE_CLOSED}
FLAGS = ((1, WheelFault.BALL_NOT_DETECTED), (2, WheelFault.SAME_DIRECTION), (4, WheelFault.SENSOR_FAULT),
         (8, WheelFault.NO_SPIN))
_LINE = re.compile(r"\*X;([1-6]);(\d{3});(\d{2});([0-9A-Fa-f]{1,2});(\d{3});([01])")
MAX_LINE = 64
SPIN_MODULO = 1000


@dataclass(frozen=True, slots=True)
class StatusLine:
    state: int
    spin: int
    number: int
    flags: int
    rotor_rpm: int
    rotor_direction: Direction

    @property
    def faults(self) -> tuple[WheelFault, ...]:
        return tuple(fault for bit, fault in FLAGS if self.flags & bit)


def parse_status(line: str) -> StatusLine:
    """One status line (without CR LF); ProtocolError saying what is wrong."""
    text = line.strip()
    match = _LINE.fullmatch(text)
    if match is None:
        raise ProtocolError(f"not a status line: {text[:40]!r}")
    state, spin, number, flags, rpm, direction = match.groups()
    if int(number) > 36:
        raise ProtocolError(f"winning number {number} is not on a single-zero wheel: {text!r}")
    if int(flags, 16) > 0xF:
        raise ProtocolError(f"unknown warning flags {flags} (known: 1, 2, 4, 8): {text!r}")
    return StatusLine(int(state), int(spin), int(number), int(flags, 16), int(rpm),
                      Direction.CLOCKWISE if direction == "0" else Direction.COUNTERCLOCKWISE)


class CammeghDecoder:
    """Status lines -> one typed event per change; no I/O, the arrival time is passed in."""

    def __init__(self, *, name: str = "wheel", checks: SpinChecks | None = None) -> None:
        self.name = name
        self.checks = checks or SpinChecks()
        self.last: StatusLine | None = None
        self.lines = 0
        self.bad_lines = 0
        self._result_spin: int | None = None   # spin whose result was emitted
        self._launched_spin: int | None = None  # spin whose ball reached the track

    def feed(self, line: str, mono: float, utc: datetime) -> list[DeviceEvent]:
        """Events for one line: [] for a repeat; raises ProtocolError for a bad line (state kept)."""
        self.lines += 1
        try:
            status = parse_status(line)
        except ProtocolError:
            self.bad_lines += 1
            raise
        last = self.last
        stamp = {"device": self.name, "mono": mono, "utc": utc}
        if last is not None and (status.state, status.spin, status.flags) == (last.state, last.spin, last.flags) \
                and (status.state != 5 or status.number == last.number):
            return []  # the wheel repeating itself (rotor speed drifting is not a change)
        self.last = status
        events: list[DeviceEvent] = []
        if last is not None and (status.state, status.spin) == (last.state, last.spin) and \
                (status.state != 5 or status.number == last.number):
            events.append(WheelWarning(**stamp, spin=status.spin, faults=status.faults))
            return events
        events += self._missed(last, status, stamp)
        if status.state in (3, 4):
            self._launched_spin = status.spin
        if status.state == 5:
            events.append(self._result(status, stamp))
        else:
            events.append(WheelPhaseChanged(**stamp, phase=STATES[status.state], spin=status.spin,
                                            rotor_rpm=float(status.rotor_rpm), rotor_direction=status.rotor_direction,
                                            faults=status.faults))
        return events

    def _result(self, status: StatusLine, stamp: dict) -> WheelResult:
        self._result_spin = status.spin
        detected = not status.flags & 1
        ball_direction = status.rotor_direction if status.flags & 2 else status.rotor_direction.opposite
        faults = self.checks.evaluate(revolutions=None, ball_direction=ball_direction,
                                      rotor_direction=status.rotor_direction, ball_detected=detected,
                                      sensor_fault=bool(status.flags & 4), failed_launch=bool(status.flags & 8))
        return WheelResult(**stamp, spin=status.spin, number=status.number if detected else None,
                           ball_direction=ball_direction, rotor_direction=status.rotor_direction,
                           rotor_rpm=float(status.rotor_rpm), faults=faults)

    def _missed(self, last: StatusLine | None, status: StatusLine, stamp: dict) -> list[DeviceEvent]:
        """Spins whose result this reader never saw (it was disconnected meanwhile)."""
        if last is None or status.spin == last.spin:
            return []
        gap = (status.spin - last.spin) % SPIN_MODULO
        if gap >= SPIN_MODULO // 2:
            return []  # the counter went back: the wheel was reset, not hundreds of spins missed
        first = (last.spin + 1) % SPIN_MODULO
        if self._launched_spin == last.spin and self._result_spin != last.spin and not last.flags & 8:
            first = last.spin  # the last spin launched and its result never came
        if first == status.spin:
            return []
        return [SpinMissed(**stamp, first=first, last=(status.spin - 1) % SPIN_MODULO)]


class CammeghReader:
    """The decoder on a serial port by URL: reconnects with backoff, reports health, emits events."""

    def __init__(self, url: str, *, emit: Callable[[DeviceEvent], None], name: str = "wheel",
                 min_revolutions: int = 3, baudrate: int = 9600, rtscts: bool = True, period_s: float = 0.5,
                 lost_after_s: float = 5.0, backoff: Backoff | None = None,
                 opener: Opener = serial.serial_for_url) -> None:
        self.emit = emit
        self.name = name
        self.decoder = CammeghDecoder(name=name, checks=SpinChecks(min_revolutions))
        self.lost_after_s = lost_after_s
        self.monitor = HealthMonitor(degraded_after_s=3 * period_s)
        self._buffer = bytearray()
        self._open = False
        self._connected = threading.Event()
        self.line = SerialLine(url, self, name=name, baudrate=baudrate, rtscts=rtscts, tick=0.01,
                               backoff=backoff, opener=opener)

    def start(self) -> None:
        self.line.start()

    def stop(self) -> None:
        self.line.stop()

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)

    # PortHandler
    def port_opened(self, mono: float) -> None:
        self._buffer.clear()
        self._open = True
        self.monitor.heard(mono)

    def port_data(self, data: bytes, mono: float) -> None:
        self._buffer += data
        *lines, rest = re.split(rb"\r\n|\r|\n", bytes(self._buffer))
        self._buffer = bytearray(rest)
        if len(self._buffer) > MAX_LINE:
            self._buffer.clear()
            self.monitor.trouble(mono, "overlong line")
        for raw in lines:
            if raw.strip():
                self._on_line(raw, mono)

    def _on_line(self, raw: bytes, mono: float) -> None:
        _, utc = now_stamp()
        try:
            events = self.decoder.feed(raw.decode("ascii", "replace"), mono, utc)
        except ProtocolError as exc:
            self.monitor.trouble(mono, "bad line")
            log.warning("%s: %s", self.name, exc)
            return
        self.monitor.heard(mono)
        self._report(self.monitor.set(Health.CONNECTED, "status lines arriving")
                     if self.monitor.state not in (Health.CONNECTED, Health.DEGRADED) else None)
        self._connected.set()
        for event in events:
            self.emit(event)

    def port_tick(self, mono: float) -> None:
        if self._open and self.monitor.state in (Health.CONNECTED, Health.DEGRADED):
            silent = mono - self.monitor.last_heard
            if silent > self.lost_after_s:
                self._connected.clear()
                self._report(self.monitor.set(Health.LOST, f"no status line for {silent:.1f} s"))
                return
        self._report(self.monitor.evaluate(mono))

    def port_closed(self, reason: str, mono: float) -> None:
        self._open = False
        self._connected.clear()
        self._report(self.monitor.set(Health.LOST, f"port closed: {reason}"))

    def port_open_failed(self, reason: str, mono: float) -> None:
        self._report(self.monitor.set(Health.LOST, f"cannot open port: {reason}"))

    def _report(self, change: HealthChange | None) -> None:
        if change is not None:
            mono, utc = now_stamp()
            self.emit(DeviceHealth(device=self.name, mono=mono, utc=utc, state=change.state, reason=change.reason))


def decode_lines(lines, *, name: str = "wheel", min_revolutions: int = 3, clock=time.monotonic):
    """Yield (line number, events or the ProtocolError) for an iterable of text lines (the CLI's core)."""
    decoder = CammeghDecoder(name=name, checks=SpinChecks(min_revolutions))
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        mono, utc = clock(), now_stamp()[1]
        try:
            yield number, decoder.feed(line, mono, utc)
        except ProtocolError as exc:
            yield number, exc
