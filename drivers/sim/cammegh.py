"""Commercial wheel simulator: Cammegh-style status lines every period over a pty, scriptable, with faults."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

from ..events import Direction
from .faults import Faults
from .pty_port import PtyEndpoint


class CammeghSim:
    """Repeats the current status line every `period` seconds, and at once when it changes."""

    def __init__(self, *, path: str | Path | None = None, period: float = 0.5, faults: Faults | None = None,
                 rotor_rpm: int = 146, seed: int = 0) -> None:
        self.endpoint = PtyEndpoint(path)
        self.period = period
        self.faults = faults or Faults()
        self.state, self.spin, self.number, self.flags = 1, 0, 0, 0
        self.rotor_rpm = rotor_rpm
        self.direction = Direction.COUNTERCLOCKWISE
        self.lines_sent = 0
        self.corrupt_lines = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._silent_until = 0.0
        self._unplugged_until: float | None = None
        self._unplug_request: tuple[float, threading.Event] | None = None

    @property
    def path(self) -> str:
        return str(self.endpoint.path)

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
        return f"*X;{self.state};{self.spin:03d};{self.number:02d};{self.flags:X};{rpm:03d};{direction}\r\n".encode()

    def set(self, *, state: int | None = None, spin: int | None = None, number: int | None = None,
            flags: int | None = None, direction: Direction | None = None) -> None:
        """Change the status; it goes out at once and then repeats."""
        with self._lock:
            self.state = self.state if state is None else state
            self.spin = self.spin if spin is None else spin % 1000
            self.number = self.number if number is None else number
            self.flags = self.flags if flags is None else flags
            self.direction = direction or self.direction
        self._wake.set()

    def play_spin(self, number: int, *, flags: int = 0, hold: float | None = None,
                  result_flags: int | None = None) -> None:
        """One game: new game (next spin number) -> ball in track -> no more bets -> winning number.

        The rotor direction alternates every spin (the ball goes against it). `flags` are raised
        from the ball-in-track state on; `result_flags` (default: `flags`) in the result state.
        Each state is held for `hold` seconds (default: three repetitions).
        """
        hold = 3 * self.period if hold is None else hold
        self.set(state=2, spin=self.spin + 1, flags=0, direction=self.direction.opposite)
        time.sleep(hold)
        for state in (3, 4):
            self.set(state=state, flags=flags)
            time.sleep(hold)
        self.set(state=5, number=number, flags=flags if result_flags is None else result_flags)
        time.sleep(hold)

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
            self.endpoint.read(0)  # whatever the host sends is ignored, as the wheel does
            if self._wake.is_set() or now >= next_line:
                self._wake.clear()
                next_line = now + self.period
                if now >= self._silent_until:
                    self._send()
            self._wake.wait(max(0.0, min(next_line - time.monotonic(), 0.05)))

    def _send(self) -> None:
        with self._lock:
            line = self.line()
        faults = self.faults
        if faults.delay:
            time.sleep(faults.delay)
        data = faults.take_garbage()
        if faults.take("corrupt_crc"):  # for a line protocol: a line mangled on the wire
            data += line[:7] + b"#" + line[8:]
            self.corrupt_lines += 1
        data += line * (2 if faults.take("repeat") else 1)
        if self.endpoint.write(data):
            self.lines_sent += 1
