"""GPIO contacts with debounce (gpiozero pins): a level counts once it has held for `debounce_s`.

Edges are timestamped as they arrive and judged afterwards by one worker per device, in the order
they happened: a level that held for `debounce_s` before the next edge (or until now) is a real
change; shorter ones are bounce. So a late worker (a busy CPU) still reports the lever press that
came before the bell before the bell, and never mistakes a burst of bounce for presses.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timedelta
from typing import Callable

from gpiozero import DigitalInputDevice

from .errors import DeviceConfigError
from .events import now_stamp

log = logging.getLogger(__name__)

OnLevel = Callable[[bool, float, datetime], None]


class DebounceGroup:
    """Judges the edges of several inputs in time order on one worker thread."""

    def __init__(self, debounce_s: float, name: str = "") -> None:
        if debounce_s < 0:
            raise DeviceConfigError(f"{name}: debounce_s {debounce_s} is negative")
        self.debounce_s = debounce_s
        self.name = name
        self._inputs: list[DebouncedInput] = []
        self._cond = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def add(self, contact: DebouncedInput) -> None:
        self._inputs.append(contact)

    def edge(self, contact: DebouncedInput, level: bool, mono: float) -> None:
        with self._cond:
            contact.edges.append((mono, level))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=f"debounce:{self.name}", daemon=True)
                self._thread.start()
            self._cond.notify()

    def _settled(self, now: float) -> tuple[list[tuple[float, DebouncedInput, bool]], float | None]:
        """Pop every level that has held long enough; return them and when to look again."""
        out, wake = [], None
        for contact in self._inputs:
            edges = contact.edges
            keep_from = 0
            for i, (t, level) in enumerate(edges):
                end = edges[i + 1][0] if i + 1 < len(edges) else None
                if end is None and now - t < self.debounce_s:
                    wake = t + self.debounce_s if wake is None else min(wake, t + self.debounce_s)
                    break
                if (end if end is not None else now) - t >= self.debounce_s:
                    out.append((t, contact, level))
                keep_from = i + 1
            del edges[:keep_from]
        out.sort(key=lambda item: item[0])
        return out, wake

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._stopped:
                    return
                settled, wake = self._settled(time.monotonic())
                if not settled:
                    self._cond.wait(None if wake is None else max(0.0005, wake - time.monotonic()))
                    continue
            for t, contact, level in settled:  # outside the lock: handlers may take their own
                contact.accept(level, t)

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(1.0)


class DebouncedInput:
    """A contact on a GPIO pin (pulled up: closed = active). Calls `on_level(active, mono, utc)` once per
    settled change; without a group (or with debounce 0) every edge counts at once."""

    def __init__(self, pin: int | str, on_level: OnLevel, *, name: str, group: DebounceGroup | None = None,
                 pull_up: bool = True, pin_factory=None) -> None:
        self.name = name
        self.on_level = on_level
        self.group = group if group is not None and group.debounce_s > 0 else None
        self.edges: list[tuple[float, bool]] = []
        try:
            self.device = DigitalInputDevice(pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory)
        except Exception as exc:  # gpiozero raises many kinds (PinInvalidPin, BadPinFactory, GPIOPinInUse...)
            raise DeviceConfigError(f"{name}: cannot use GPIO pin {pin!r}: {exc}") from None
        self.level = self.device.is_active
        if self.group is not None:
            self.group.add(self)
        self.device.when_activated = lambda: self._edge(True)
        self.device.when_deactivated = lambda: self._edge(False)

    def _edge(self, level: bool) -> None:
        mono = time.monotonic()
        if self.group is None:
            self.accept(level, mono)
        else:
            self.group.edge(self, level, mono)

    def accept(self, level: bool, mono: float) -> None:
        if level == self.level:
            return  # a bounce that came back to where it was
        self.level = level
        now_mono, now_utc = now_stamp()
        self.on_level(level, mono, now_utc - timedelta(seconds=now_mono - mono))

    def close(self) -> None:
        self.device.close()


def release_devices(name: str, debounce: "DebounceGroup", devices: list) -> None:
    """Stop debouncing, switch every output off and release every pin (last created first).
    A pin that fails to release is logged and the rest are still released."""
    debounce.stop()
    for device in reversed(devices):
        try:
            if hasattr(device, "off"):
                device.off()
            device.close()
        except Exception as exc:  # one stuck pin must not keep the others claimed
            log.warning("%s: releasing %r failed: %s", name, device, exc)
    devices.clear()
