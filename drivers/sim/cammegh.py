"""Commercial wheel simulator: the Cammegh-style read protocol over a pty, in any of its modes, with faults.

Status lines as the wheel prints them (number space-padded, `*X;5;013; 6;0;177;1`), repeated every
`period` seconds when the status repeat is on (mode 128) and only on changes when it is off; the bare
winning number before the state-5 status unless mode 16 turns it off; `*Y` bonus lines and `*F`
error lines when told to; `*O` answered with the options line. The line formats follow
drivers/cammegh_lines.py and its sources; the `*F` text after the letter is the wheel's error code.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

from ..cammegh_lines import MODE_ERROR_MESSAGES, MODE_NO_SINGLE_NUMBER, MODE_STATUS_REPEAT, split_lines
from ..events import Direction
from .faults import Faults
from .pty_port import PtyEndpoint

FACTORY_MODE = 1157  # reverse each game (1), modify speed (4), status repeat (128), game delay (1024)


class CammeghSim:
    """A wheel on a pty; `set()` and `play_spin()` change its status, which goes out at once."""

    def __init__(self, *, path: str | Path | None = None, period: float = 0.5, faults: Faults | None = None,
                 rotor_rpm: int = 146, seed: int = 0, mode: int = FACTORY_MODE) -> None:
        self.endpoint = PtyEndpoint(path)
        self.period = period
        self.faults = faults or Faults()
        self.mode = mode
        self.state, self.spin, self.number, self.flags = 1, 0, 0, 0
        self.rotor_rpm = rotor_rpm
        self.direction = Direction.COUNTERCLOCKWISE
        self.lines_sent = 0
        self.corrupt_lines = 0
        self.queries_answered = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._status_changed = False
        self._extra: list[bytes] = []  # lines to send once (bare number, bonus, error, replies), in order
        self._input = b""
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._silent_until = 0.0
        self._unplugged_until: float | None = None
        self._unplug_request: tuple[float, threading.Event] | None = None

    @property
    def path(self) -> str:
        return str(self.endpoint.path)

    @property
    def status_repeat(self) -> bool:
        return bool(self.mode & MODE_STATUS_REPEAT)

    def start(self) -> str:
        path = self.endpoint.plug()
        self._thread = threading.Thread(target=self._run, name="sim:cammegh", daemon=True)
        self._thread.start()
        return path

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self.endpoint.close()

    def line(self) -> bytes:
        """The status line as the wheel sends it now (rotor speed wanders by a revolution or so)."""
        rpm = max(0, min(999, self.rotor_rpm + self._rng.choice((-1, 0, 0, 1))))
        direction = 0 if self.direction is Direction.CLOCKWISE else 1
        return f"*X;{self.state};{self.spin:03d};{self.number:2d};{self.flags:X};{rpm:03d};{direction}\r\n".encode()

    def set(self, *, state: int | None = None, spin: int | None = None, number: int | None = None,
            flags: int | None = None, direction: Direction | None = None) -> None:
        """Change the status; it goes out at once (and then repeats, if the repeat is on)."""
        with self._lock:
            self.state = self.state if state is None else state
            self.spin = self.spin if spin is None else spin % 1000
            self.number = self.number if number is None else number
            self.flags = self.flags if flags is None else flags
            self.direction = direction or self.direction
            self._status_changed = True
        self._wake.set()

    def play_spin(self, number: int, *, flags: int = 0, hold: float | None = None,
                  result_flags: int | None = None, announce: int | None = None) -> None:
        """One game: new game (next spin number) -> ball in track -> no more bets -> winning number.

        The rotor direction alternates every spin (the ball goes against it). `flags` are raised
        from the ball-in-track state on; `result_flags` (default: `flags`) in the result state.
        Each state is held for `hold` seconds (default: three repetitions). Unless mode 16 is set,
        the bare winning number (`announce`, default the number) goes out just before the result.
        """
        hold = 3 * self.period if hold is None else hold
        self.set(state=2, spin=self.spin + 1, flags=0, direction=self.direction.opposite)
        time.sleep(hold)
        for state in (3, 4):
            self.set(state=state, flags=flags)
            time.sleep(hold)
        if not self.mode & MODE_NO_SINGLE_NUMBER:
            self.send_line(f"{number if announce is None else announce:2d}")
        self.set(state=5, number=number, flags=flags if result_flags is None else result_flags)
        time.sleep(hold)

    def bonus(self, bonus_type: int, value: str) -> None:
        """A bonus win line: `*Y;<type>;<3 characters>`."""
        self.send_line(f"*Y;{bonus_type};{value}")

    def error(self, code: str) -> None:
        """An error message during play (`*F <code>`), sent only when mode 256 asks for them."""
        if self.mode & MODE_ERROR_MESSAGES:
            self.send_line(f"*F {code}")

    def send_line(self, text: str) -> None:
        """Send one line (CR LF added) at once, in order with the status lines."""
        with self._lock:
            self._extra.append(text.encode("ascii") + b"\r\n")
        self._wake.set()

    def go_silent(self, seconds: float) -> None:
        self._silent_until = time.monotonic() + seconds

    def unplug(self, seconds: float) -> None:
        done = threading.Event()
        self._unplug_request = (seconds, done)
        self._wake.set()
        done.wait(2.0)

    def _run(self) -> None:
        next_line = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if self._unplug_request is not None:
                seconds, done = self._unplug_request
                self._unplug_request = None
                self._unplugged_until = now + seconds
                self.endpoint.unplug()
                done.set()
            if self._unplugged_until is not None:
                if now < self._unplugged_until:
                    self._stop.wait(min(0.01, self._unplugged_until - now))
                    continue
                self._unplugged_until = None
                self.endpoint.plug()
            self._read_commands()
            self._wake.clear()
            with self._lock:
                changed, self._status_changed = self._status_changed, False
                extra, self._extra = self._extra, []
            status_due = changed or (self.status_repeat and now >= next_line)
            if status_due:
                next_line = now + self.period
            if (status_due or extra) and now >= self._silent_until:
                self._send(extra, status_due)
            quiet = next_line - time.monotonic() if self.status_repeat else 0.05
            self._wake.wait(max(0.0, min(quiet, 0.05)))

    def _read_commands(self) -> None:
        """The wheel answers the options query; any other command is ignored here."""
        lines, self._input = split_lines(self._input + self.endpoint.read(0))
        for line in lines:
            if line.strip() == b"*O" and time.monotonic() >= self._silent_until:
                self.queries_answered += 1
                self.send_line(f"*O 6 1 60 {self.mode}")
        if len(self._input) > 64:
            self._input = b""

    def _send(self, extra: list[bytes], status_due: bool) -> None:
        with self._lock:
            status = self.line() if status_due else b""
        faults = self.faults
        if faults.delay:
            time.sleep(faults.delay)
        data = faults.take_garbage() + b"".join(extra)
        if status and faults.take("corrupt_crc"):  # for a line protocol: a line mangled on the wire
            data += status[:7] + b"#" + status[8:]
            self.corrupt_lines += 1
        elif status:
            data += status * (2 if faults.take("repeat") else 1)
        if self.endpoint.write(data) and status:
            self.lines_sent += 1
