"""A SAS port: sends messages with the wakeup bit on their first byte and yields received bytes with deadlines.

`open_link(url)` opens a device path, a pty or a `socket://host:port` URL (pyserial's URL handlers) at
19200 baud, 8 data bits. A real UART carries the wakeup bit as MARK/SPACE parity (`ParityControl`,
draining output before every switch); ptys and sockets carry no 9th bit and use the escape code of
`wire.EscapeCodec`.

`pace=True` models a 19200-baud line (11 bits a byte) on a pty, which is otherwise instant, as the
simulator and the benchmark use it: `send` writes the message at once and then holds the sender for
the time the bytes take on the line, and received bytes are handed out no faster than the line
delivers them (byte k of a burst k x 572.9 us after it arrived). Modelling the line at the receiver
keeps a busy computer's scheduling delays from showing up as gaps inside a message.
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
        fd = getattr(self.port, "fd", None)
        if fd is not None:  # a posix port pyserial opened non-blocking: one read() instead of ioctl+select+read
            try:
                return os.read(fd, 4096)
            except BlockingIOError:
                return b""
        return self.port.read(max(self.port.in_waiting, 1))

    def close(self) -> None:
        self.port.close()


class ParityControl:
    """MARK/SPACE parity switching on a real UART, receiving with SPACE parity and PARMRK marks.

    `tty` is the termios module (injected so the switching sequence can be tested without a UART).
    """

    def __init__(self, fd: int, tty=termios) -> None:
        self._fd = fd
        self._tty = tty
        attrs = tty.tcgetattr(fd)
        attrs[0] = (attrs[0] | tty.INPCK | tty.PARMRK) & ~(tty.ISTRIP | tty.IGNPAR)
        attrs[2] |= tty.PARENB | CMSPAR
        self._attrs = attrs
        self.space()
        if not tty.tcgetattr(fd)[2] & tty.PARENB:
            raise SasLinkError("the port dropped the parity setting: it cannot carry the wakeup bit (a pty?)")

    def _apply(self, mark: bool) -> None:
        tty = self._tty
        attrs = list(self._attrs)
        attrs[2] = attrs[2] | tty.PARODD if mark else attrs[2] & ~tty.PARODD
        # TCSADRAIN: the change waits until every byte already written has left the UART.
        tty.tcsetattr(self._fd, tty.TCSADRAIN, attrs)

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
        self._received: deque[tuple[float, WireByte]] = deque()  # (when the line has delivered it, byte)
        self._last_release = 0.0
        self.bytes_sent = 0
        self.bytes_received = 0

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
                self._write(message[1:])
            else:
                self._write(message, wakeup=wakeup)
        except OSError as exc:
            raise SasLinkError(f"cannot write to the SAS port: {exc}") from exc
        self.bytes_sent += len(message)

    def _write(self, message: bytes, *, wakeup: bool = False) -> None:
        if not message:
            return
        start = self.clock()
        self.channel.write(self.codec.encode(message, wakeup=wakeup))
        if self.pace:  # the line is busy until the last stop bit has gone
            _sleep_until(start + len(message) * BYTE_TIME, self.clock)

    def next_byte(self, deadline: float) -> WireByte | None:
        """The next received byte, waiting until `deadline` (monotonic seconds); None when it passes."""
        while True:
            if self._received:
                release, byte = self._received[0]
                if release <= self.clock():
                    self._received.popleft()
                    self.bytes_received += 1
                    return byte
                if release > deadline:
                    _sleep_until(deadline, self.clock)
                    return None
                _sleep_until(release, self.clock)
                continue
            remaining = deadline - self.clock()
            if remaining <= 0:
                return None
            try:
                ready, _, _ = select.select([self.channel.fileno()], [], [], remaining)
                if ready:
                    self._arrived(self.codec.decode(self.channel.read_available()))
            except (OSError, ValueError, serial.SerialException) as exc:
                raise SasLinkError(f"cannot read the SAS port: {exc}") from exc

    def _arrived(self, decoded: list[WireByte]) -> None:
        now = self.clock()
        if not self.pace:
            self._received.extend((now, byte) for byte in decoded)
            return
        release = max(now, self._last_release)
        for byte in decoded:
            release += BYTE_TIME
            self._received.append((release, byte))
        self._last_release = release

    def discard_input(self) -> list[WireByte]:
        """Everything already received, without waiting (stale bytes before a new poll)."""
        try:
            while select.select([self.channel.fileno()], [], [], 0)[0]:
                data = self.channel.read_available()
                if not data:
                    break
                self._arrived(self.codec.decode(data))
        except (OSError, ValueError, serial.SerialException) as exc:
            raise SasLinkError(f"cannot read the SAS port: {exc}") from exc
        stale = [byte for _, byte in self._received]
        self.bytes_received += len(stale)
        self._received.clear()
        return stale

    def close(self) -> None:
        self.channel.close()


def _sleep_until(when: float, clock) -> None:
    # Deadlines are absolute, so an oversleep delays one wake-up, never everything after it;
    # sleeping (not spinning) leaves the CPU to the other end of the line.
    remaining = when - clock()
    if remaining > 0:
        time.sleep(remaining)


def is_pty(path: str) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and os.major(info.st_rdev) in PTY_MAJORS


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
        except (termios.error, OSError, AttributeError, SasLinkError) as exc:
            port.close()
            raise SasLinkError(f"{url!r} cannot switch MARK/SPACE parity ({exc}); a pty or the Pi's "
                               "mini UART cannot carry the wakeup bit: use the PL011 or a USB adapter") from exc
    return SasLink(channel, parity=parity, pace=pace)
