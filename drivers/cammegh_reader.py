"""The commercial wheel on a serial port by URL (9600 8N1, RTS/CTS): the decoder, health, reconnects.

Health comes from the absence of *any* line, not only of the 0.5 s status repeat, because the repeat
is a mode option a wheel may have off (then it sends status lines only on changes, and nothing at all
while a table stands closed). Any well-formed line — status, bare number, bonus, error, a reply to a
command — is a sign of life. After `3 x period_s` without one the reader asks the wheel for its
options (`*O`, a read-only query the wheel answers at once: `*O 6 1 60 1158` in studio-sdp-mirror's
logs), and asks again every such interval while it stays quiet: a wheel with the repeat off answers
and stays `connected`. Unanswered for another `3 x period_s` -> `degraded`; silent `lost_after_s` ->
`lost`. The reader never sends anything else.
"""

from __future__ import annotations

import logging
import threading
from typing import Callable

import serial

from .cammegh import CammeghDecoder
from .cammegh_lines import MAX_LINE, split_lines
from .errors import LinkError, ProtocolError
from .events import DeviceEvent, DeviceHealth, Health, now_stamp
from .link_health import HealthChange, HealthMonitor
from .transport import Backoff, Opener, SerialLine
from .wheel_layout import SpinChecks

log = logging.getLogger(__name__)

OPTIONS_QUERY = b"*O\r\n"


class CammeghReader:
    """The decoder on a serial port by URL: reconnects with backoff, reports health, emits events."""

    def __init__(self, url: str, *, emit: Callable[[DeviceEvent], None], name: str = "wheel",
                 min_revolutions: int = 3, baudrate: int = 9600, rtscts: bool = True, period_s: float = 0.5,
                 lost_after_s: float = 5.0, backoff: Backoff | None = None,
                 opener: Opener = serial.serial_for_url) -> None:
        self.emit = emit
        self.name = name
        self.decoder = CammeghDecoder(name=name, checks=SpinChecks(min_revolutions))
        self.quiet_after_s = 3 * period_s
        self.lost_after_s = lost_after_s
        self.monitor = HealthMonitor(degraded_after_s=2 * self.quiet_after_s)
        self.queries_sent = 0
        self._last_query = 0.0
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
        self._last_query = mono

    def port_data(self, data: bytes, mono: float) -> None:
        lines, rest = split_lines(bytes(self._buffer) + data)
        self._buffer = bytearray(rest)
        if len(self._buffer) > MAX_LINE:
            self._buffer.clear()
            self.monitor.trouble(mono, "overlong line")
            log.warning("%s: more than %d bytes without a line end: dropped", self.name, MAX_LINE)
        for raw in lines:
            self._on_line(raw, mono)

    def _on_line(self, raw: bytes, mono: float) -> None:
        _, utc = now_stamp()
        try:
            events = self.decoder.feed(raw, mono, utc)
        except ProtocolError as exc:
            self.monitor.trouble(mono, "bad line")
            log.warning("%s: %s", self.name, exc)
            return
        self.monitor.heard(mono)
        self._report(self.monitor.set(Health.CONNECTED, "wheel lines arriving")
                     if self.monitor.state not in (Health.CONNECTED, Health.DEGRADED) else None)
        self._connected.set()
        for event in events:
            self.emit(event)

    def port_tick(self, mono: float) -> None:
        if not self._open:
            return
        silent = mono - self.monitor.last_heard
        if silent >= self.quiet_after_s and mono - self._last_query >= self.quiet_after_s:
            self._ask_for_options(mono)
        if self.monitor.state in (Health.CONNECTED, Health.DEGRADED) and silent > self.lost_after_s:
            self._connected.clear()
            self._report(self.monitor.set(Health.LOST, f"no line from the wheel for {silent:.1f} s"))
            return
        self._report(self.monitor.evaluate(mono))

    def _ask_for_options(self, mono: float) -> None:
        self._last_query = mono
        try:
            self.line.write(OPTIONS_QUERY)
            self.queries_sent += 1
        except LinkError as exc:
            log.debug("%s: cannot ask the wheel for its options: %s", self.name, exc)

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
