"""SIGTERM / SIGINT as a stop request whose handler takes no lock (a `threading.Event` that signals can set).

A handler that calls `threading.Event.set()` can deadlock: Python runs it in the main thread between
two bytecodes, and if the main thread was inside that event's own `wait()` or `set()` it holds the
event's (non-reentrant) lock, which `set()` then waits for forever. Here the handler only stores the
signal number; `is_set()` reads it, and `wait()` polls it (every `POLL_S`), so a signal is seen within
that time wherever the main thread was. Other threads may `set()` too (a failure that stops the table).

    stop = StopSignal().install()      # in the main thread
    while not stop.wait(1.0):
        ...                            # one turn of work
"""

from __future__ import annotations

import signal
import threading
import time

POLL_S = 0.05  # how soon a waiting thread sees the stop


class StopSignal:
    """Set by SIGTERM/SIGINT (once installed) or by `set()`; read with `is_set()` / `wait()`."""

    def __init__(self) -> None:
        self.signal: int | None = None  # the signal that asked the stop, if a signal did
        self._set = False

    def __call__(self, signum: int, frame: object) -> None:  # the handler: one store, no lock
        self.signal = signum
        self._set = True

    def install(self, signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> "StopSignal":
        """Route `signals` here; only the main thread can (elsewhere this does nothing)."""
        if threading.current_thread() is threading.main_thread():
            for sig in signals:
                signal.signal(sig, self)
        return self

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float | None = None) -> bool:
        """True as soon as a stop was asked, False after `timeout` seconds without one (None: no limit)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._set:
            left = POLL_S if deadline is None else min(POLL_S, deadline - time.monotonic())
            if left <= 0:
                return False
            time.sleep(left)
        return True
