"""GPIO inputs with debounce: a level is accepted only after it has held for `debounce_s` (gpiozero pins)."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Callable

from gpiozero import DigitalInputDevice

from .errors import DeviceConfigError
from .events import now_stamp

OnLevel = Callable[[bool, float, datetime], None]


class DebouncedInput:
    """A contact on a GPIO pin (pulled up: closed = pressed). Calls `on_level(pressed, mono, utc)` once per
    settled change. With `debounce_s` 0 every edge counts at once (used on the bench and in tests)."""

    def __init__(self, pin: int | str, on_level: OnLevel, *, name: str, debounce_s: float = 0.02,
                 pull_up: bool = True, pin_factory=None) -> None:
        if debounce_s < 0:
            raise DeviceConfigError(f"{name}: debounce_s {debounce_s} is negative")
        self.name = name
        self.on_level = on_level
        self.debounce_s = debounce_s
        try:
            self.button = DigitalInputDevice(pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory)
        except Exception as exc:  # gpiozero raises many kinds (PinInvalidPin, BadPinFactory, GPIOPinInUse...)
            raise DeviceConfigError(f"{name}: cannot use GPIO pin {pin!r}: {exc}") from None
        self.level = self.button.is_active
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self.button.when_activated = self._edge
        self.button.when_deactivated = self._edge

    def _edge(self) -> None:
        if self.debounce_s == 0:
            self._settle()
            return
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()  # still bouncing: wait for the contact to settle
            self._timer = threading.Timer(self.debounce_s, self._settle)
            self._timer.daemon = True
            self._timer.start()

    def _settle(self) -> None:
        with self._lock:
            self._timer = None
            level = self.button.is_active
            if level == self.level:
                return  # a bounce that came back to where it was
            self.level = level
        mono, utc = now_stamp()
        self.on_level(level, mono, utc)

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
        self.button.close()
