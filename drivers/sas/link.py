"""A SAS port: sends messages with the wakeup bit on their first byte and yields received bytes with deadlines.

`open_link(url)` opens a device path, a pty or a `socket://host:port` URL (pyserial's URL handlers) at
19200 baud, 8 data bits. A real UART carries the wakeup bit as MARK/SPACE parity (`ParityControl`,
draining output before every switch); ptys and sockets carry no 9th bit and use the escape code of
`wire.EscapeCodec`. `pace=True` makes `send` take as long as the bytes would on a 19200-baud line
(11 bits a byte), which the simulator and the benchmark use on ptys, which are otherwise instant.
"""

from __future__ import annotations

import os
import select
import stat
import termios
import time
from collections import deque
from typing import Protocol

import serial

from .errors import SasLinkError
from .wire import EscapeCodec, ParmrkDecoder, WireByte

BAUD = 19200
BITS_PER_BYTE = 11  # start + 8 data + wakeup + stop
BYTE_TIME = BITS_PER_BYTE / BAUD  # 572.9 us
PACE_CHUNK = 4  # bytes written together when pacing: 2.3 ms, well inside the 5 ms inter-byte limit
CMSPAR = 0o10000000000  # "stick" parity on Linux (not exported by the termios module)
PTY_MAJORS = range(136, 144)


class Channel(Protocol):
    def fileno(self) -> int: ...
    def write(self, data: bytes) -> None: ...
    def read_available(self) -> bytes: ...
    def close(self) -> None: ...


class FdChannel:
    """A raw file descriptor (one end of a pty the simulator created)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def fileno(self) -> int:
        return self._fd

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def read_available(self) -> bytes:
        try:
            return os.read(self._fd, 4096)
        except BlockingIOError:
            return b""

    def close(self) -> None:
        os.close(self._fd)


class SerialChannel:
    """A pyserial port opened non-blocking (device path, pty or socket:// URL)."""

    def __init__(self, port: serial.SerialBase) -> None:
        self.port = port

    def fileno(self) -> int:
        return self.port.fileno()

    def write(self, data: bytes) -> None:
        self.port.write(data)

    def read_available(self) -> bytes:
        return self.port.read(max(self.port.in_waiting, 1))

    def close(self) -> None:
        self.port.close()


class ParityControl:
    """MARK/SPACE parity switching on a real UART, receiving with SPACE parity and PARMRK marks."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        attrs = termios.tcgetattr(fd)
        attrs[0] = (attrs[0] | termios.INPCK | termios.PARMRK) & ~(termios.ISTRIP | termios.IGNPAR)
        attrs[2] |= termios.PARENB | CMSPAR
        self._attrs = attrs
        self.space()

    def _apply(self, mark: bool) -> None:
        attrs = list(self._attrs)
        attrs[2] = attrs[2] | termios.PARODD if mark else attrs[2] & ~termios.PARODD
        # TCSADRAIN: the change waits until every byte already written has left the UART.
        termios.tcsetattr(self._fd, termios.TCSADRAIN, attrs)

    def mark(self) -> None:
        self._apply(True)

    def space(self) -> None:
        self._apply(False)


class SasLink:
    """Messages out (wakeup bit on the first byte), `WireByte`s in, each waited for up to a deadline."""

    def __init__(self, channel: Channel, *, parity: ParityControl | None = None, pace: bool = False,
                 clock=time.monotonic) -> None:
        self.channel = channel
        self.parity = parity
        self.codec = ParmrkDecoder() if parity else EscapeCodec()
        self.pace = pace
        self.clock = clock
        self._received: deque[WireByte] = deque()
        self.bytes_sent = 0

    @property
    def framing(self) -> str:
        return "parity" if self.parity else "escape"

    def send(self, message: bytes, *, wakeup: bool = True) -> None:
        """Send one message; with `wakeup` its first byte carries the 9th bit."""
        try:
            if self.parity and wakeup:
                self.parity.mark()
                self._write(message[:1])
                self.parity.space()
                self._write(message[1:], offset=1)
            else:
                self._write(message, wakeup=wakeup)
        except OSError as exc:
            raise SasLinkError(f"cannot write to the SAS port: {exc}") from exc
        self.bytes_sent += len(message)

    def _write(self, message: bytes, *, wakeup: bool = False, offset: int = 0) -> None:
        if not message:
            return
        if not self.pace:
            self.channel.write(self.codec.encode(message, wakeup=wakeup))
            return
        start = self.clock()
        for i in range(0, len(message), PACE_CHUNK):
            chunk = message[i:i + PACE_CHUNK]
            _sleep_until(start + (i + len(chunk)) * BYTE_TIME, self.clock)
            self.channel.write(self.codec.encode(chunk, wakeup=wakeup and i == 0))

    def next_byte(self, deadline: float) -> WireByte | None:
        """The next received byte, waiting until `deadline` (monotonic seconds); None when it passes."""
        while not self._received:
            remaining = deadline - self.clock()
            if remaining <= 0:
                return None
            try:
                ready, _, _ = select.select([self.channel.fileno()], [], [], remaining)
                if ready:
                    self._received.extend(self.codec.decode(self.channel.read_available()))
            except (OSError, ValueError, serial.SerialException) as exc:
                raise SasLinkError(f"cannot read the SAS port: {exc}") from exc
        return self._received.popleft()

    def discard_input(self) -> list[WireByte]:
        """Everything already received, without waiting (stale bytes before a new poll)."""
        stale = list(self._received)
        self._received.clear()
        while True:
            ready, _, _ = select.select([self.channel.fileno()], [], [], 0)
            if not ready:
                return stale
            data = self.channel.read_available()
            if not data:
                return stale
            stale.extend(self.codec.decode(data))

    def close(self) -> None:
        self.channel.close()


def _sleep_until(when: float, clock) -> None:
    remaining = when - clock()
    if remaining > 0.0015:
        time.sleep(remaining - 0.001)
    while clock() < when:  # the last millisecond by spinning: sleep overshoots by ~0.1 ms
        pass


def is_pty(path: str) -> bool:
    try:
        return os.major(os.stat(path).st_rdev) in PTY_MAJORS and stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def open_link(url: str, *, framing: str = "auto", pace: bool = False) -> SasLink:
    """Open a SAS port by URL: a device path (`/dev/serial/by-id/...`), a pty, or `socket://h:p`.

    `framing` is "parity" (real UART: MARK/SPACE wakeup bit), "escape" (pty/socket) or "auto":
    escape for URLs with a scheme and for ptys, parity for every other device.
    """
    if framing not in ("auto", "parity", "escape"):
        raise SasLinkError(f"framing {framing!r}: use auto, parity or escape")
    if framing == "auto":
        framing = "escape" if "://" in url or is_pty(url) else "parity"
    try:
        port = serial.serial_for_url(url, baudrate=BAUD, bytesize=serial.EIGHTBITS,
                                     parity=serial.PARITY_NONE, stopbits=serial.STOPBITS_ONE, timeout=0)
    except (serial.SerialException, ValueError, OSError) as exc:
        raise SasLinkError(f"cannot open SAS port {url!r}: {exc}") from exc
    channel = SerialChannel(port)
    parity = None
    if framing == "parity":
        try:
            parity = ParityControl(channel.fileno())
        except (termios.error, OSError, AttributeError) as exc:
            port.close()
            raise SasLinkError(f"{url!r} cannot switch MARK/SPACE parity ({exc}); a pty or the Pi's "
                               "mini UART cannot carry the wakeup bit: use the PL011 or a USB adapter") from exc
    return SasLink(channel, parity=parity, pace=pace)
