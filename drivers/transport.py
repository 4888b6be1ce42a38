"""Serial ports by URL (pyserial `serial_for_url`) on a reader thread that reopens them with backoff.

A port is named by a URL exactly as in the config: a device path (`/dev/serial/by-id/...`,
`/dev/ttyAMA0`, a simulator's pty or its symlink), `loop://`, `spy://...`, `socket://...`.
`SerialLine` owns the port: it opens it, reads whatever arrives and hands it to a `PortHandler`
with the monotonic time of arrival, calls the handler's `port_tick` at least every `tick`
seconds, and when the port fails (USB cable pulled, pty closed) closes it and retries with
exponential backoff until it comes back. Protocol logic lives in the handler, never here.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, Protocol

import serial

from .errors import DeviceConfigError, LinkError

log = logging.getLogger(__name__)


class Backoff:
    """Exponential delays between reopen attempts: first, first*factor, ... capped at maximum."""

    def __init__(self, first: float = 0.05, maximum: float = 2.0, factor: float = 2.0) -> None:
        if not 0 < first <= maximum or factor < 1:
            raise DeviceConfigError(f"backoff needs 0 < first ({first}) <= maximum ({maximum}), factor >= 1")
        self.first, self.maximum, self.factor = first, maximum, factor
        self._next = first

    def next(self) -> float:
        delay = self._next
        self._next = min(self.maximum, self._next * self.factor)
        return delay

    def reset(self) -> None:
        self._next = self.first


class PortHandler(Protocol):
    """What a protocol layer implements to sit on a SerialLine (all calls come from its thread)."""

    def port_opened(self, mono: float) -> None: ...

    def port_data(self, data: bytes, mono: float) -> None: ...

    def port_tick(self, mono: float) -> None: ...

    def port_closed(self, reason: str, mono: float) -> None: ...

    def port_open_failed(self, reason: str, mono: float) -> None: ...


Opener = Callable[..., serial.SerialBase]


def open_port(url: str, *, baudrate: int = 115200, rtscts: bool = False, timeout: float = 0.01,
              opener: Opener = serial.serial_for_url) -> serial.SerialBase:
    """Open `url` 8N1 at `baudrate`; raises LinkError naming the URL when it cannot be opened."""
    if not url:
        raise DeviceConfigError("serial port URL is empty")
    kwargs = dict(baudrate=baudrate, bytesize=8, parity="N", stopbits=1, rtscts=rtscts, timeout=timeout,
                  write_timeout=1.0)
    if "://" not in url:
        kwargs["exclusive"] = True  # two processes on one device path garble both
    try:
        return opener(url, **kwargs)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise LinkError(f"{url}: cannot open: {exc}") from None


class SerialLine:
    """A port by URL, read on its own thread, reopened with backoff when it fails."""

    def __init__(self, url: str, handler: PortHandler, *, name: str = "", baudrate: int = 115200,
                 rtscts: bool = False, tick: float = 0.01, backoff: Backoff | None = None,
                 opener: Opener = serial.serial_for_url) -> None:
        self.url = url
        self.name = name or url
        self.handler = handler
        self.baudrate, self.rtscts, self.tick = baudrate, rtscts, tick
        self.backoff = backoff or Backoff()
        self.opener = opener
        self.opens = 0
        self._port: serial.SerialBase | None = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"serial:{self.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def write(self, data: bytes) -> None:
        """Write now; LinkError when the port is not open or the write fails (the reader will reopen)."""
        with self._write_lock:
            port = self._port
            if port is None:
                raise LinkError(f"{self.name}: port {self.url} is not open")
            try:
                port.write(data)
            except (serial.SerialException, OSError) as exc:
                raise LinkError(f"{self.name}: write failed: {exc}") from None

    def _run(self) -> None:
        last_error = ""
        while not self._stop.is_set():
            try:
                port = open_port(self.url, baudrate=self.baudrate, rtscts=self.rtscts, timeout=self.tick,
                                 opener=self.opener)
            except LinkError as exc:
                if str(exc) != last_error:
                    log.warning("%s", exc)
                    last_error = str(exc)
                self.handler.port_open_failed(str(exc), time.monotonic())
                self._stop.wait(self.backoff.next())
                continue
            last_error = ""
            with self._write_lock:
                self._port = port
            self.opens += 1
            reason = self._read_until_failure(port)
            with self._write_lock:
                self._port = None
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass
            self.handler.port_closed(reason, time.monotonic())
            if reason != "stopped":
                log.warning("%s: port %s closed: %s", self.name, self.url, reason)
                self._stop.wait(self.backoff.next())

    def _read_until_failure(self, port: serial.SerialBase) -> str:
        self.handler.port_opened(time.monotonic())
        next_tick = time.monotonic() + self.tick
        while not self._stop.is_set():
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                # pyserial reports a vanished device as "readiness to read but returned no data"
                # (or a TypeError from a closed fd inside select): both mean the port is gone.
                return f"read failed: {exc}"
            now = time.monotonic()
            if data:
                self.backoff.reset()
                self.handler.port_data(data, now)
            if now >= next_tick or not data:
                self.handler.port_tick(now)
                next_tick = now + self.tick
        return "stopped"
