"""Cussec dome on GPIO (gpiozero): lever presses, clasps, dome sensor, bell; bets-open light, winning areas.

Inputs go through `DomeProcedure`; each action becomes a `DomeStep` or a `DomeOutOfOrder` event.
Outputs follow the phase: the bets-open light panel is on exactly while the phase is BETS_OPEN;
the bell ringer sounds for `bell_s` when the dealer rings; winning areas are lit only once the
dome is lifted after the bell (004 §VII.5) and go dark at the end of the round. `close()` turns
every output off (the safe state).
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Callable

from gpiozero import LED, DigitalOutputDevice

from .errors import DeviceConfigError
from .dome_procedure import DomeProcedure, Outcome
from .events import DeviceEvent, DomeOutOfOrder, DomePhase, DomeStep, now_stamp
from .gpio_inputs import DebounceGroup, DebouncedInput, release_devices
from .settings import DomeSettings


class CussecDome:
    """The dome's pins, its procedure and its lamps; `pin_factory` is gpiozero's (MockFactory in tests)."""

    def __init__(self, settings: DomeSettings, *, emit: Callable[[DeviceEvent], None], name: str = "dome",
                 pin_factory=None) -> None:
        self.settings = settings
        self.emit = emit
        self.name = name
        self._lock = threading.RLock()
        self._devices: list = []
        self.debounce = DebounceGroup(settings.debounce_s, name)
        kw = {"group": self.debounce, "pull_up": settings.pull_up, "pin_factory": pin_factory}
        try:
            self.light = self._out(LED(settings.bets_open_light, pin_factory=pin_factory))
            self.ringer = (self._out(DigitalOutputDevice(settings.bell_ringer, pin_factory=pin_factory))
                           if settings.bell_ringer is not None else None)
            self.areas = {area: self._out(LED(pin, pin_factory=pin_factory))
                          for area, pin in settings.winning_areas.items()}
        except Exception as exc:  # gpiozero raises many kinds (PinInvalidPin, GPIOPinInUse, BadPinFactory...)
            self.close()
            raise DeviceConfigError(f"{name}: cannot set up output pins: {exc}") from None
        self.lever = self._in(settings.lever, "lever", self._on_lever, kw)
        self.clasp_left = self._in(settings.clasp_left, "clasp_left", self._clasp("left"), kw)
        self.clasp_right = self._in(settings.clasp_right, "clasp_right", self._clasp("right"), kw)
        self.dome = self._in(settings.dome, "dome", self._on_dome, kw)
        self.bell_button = self._in(settings.bell, "bell", self._on_bell, kw)
        clasps = frozenset(side for side, sensor in (("left", self.clasp_left), ("right", self.clasp_right))
                           if sensor.level)
        self.procedure = DomeProcedure(covered=self.dome.level, clasps=clasps, presses_needed=settings.lever_presses)
        self._sync_outputs()

    def _out(self, device):
        self._devices.append(device)
        return device

    def _in(self, pin, label: str, handler, kw) -> DebouncedInput:
        try:
            device = DebouncedInput(pin, handler, name=f"{self.name}.{label}", **kw)
        except DeviceConfigError:
            self.close()
            raise
        self._devices.append(device)
        return device

    @property
    def phase(self) -> DomePhase:
        return self.procedure.phase

    # --- inputs ---

    def _on_lever(self, pressed: bool, mono: float, utc: datetime) -> None:
        if pressed:
            self._apply(self.procedure.press, mono, utc)

    def _clasp(self, side: str):
        def handler(fastened: bool, mono: float, utc: datetime) -> None:
            step = self.procedure.fasten if fastened else self.procedure.release
            self._apply(lambda: step(side), mono, utc)
        return handler

    def _on_dome(self, covered: bool, mono: float, utc: datetime) -> None:
        self._apply(self.procedure.cover if covered else self.procedure.lift, mono, utc)

    def _on_bell(self, pressed: bool, mono: float, utc: datetime) -> None:
        if pressed:
            if self.ringer is not None:
                self.ringer.blink(on_time=self.settings.bell_s, off_time=0.01, n=1, background=True)
            self._apply(self.procedure.bell, mono, utc)

    # --- calls from the round ---

    def show_result(self, areas: list[str]) -> bool:
        """Light the winning areas; refused (and reported) unless the dome was lifted after the bell."""
        unknown = sorted(set(areas) - set(self.areas))
        if unknown:
            raise DeviceConfigError(f"{self.name}: no lamp for winning area(s) {unknown}; known {sorted(self.areas)}")
        mono, utc = now_stamp()
        outcome = self._apply(self.procedure.show_result, mono, utc, areas=areas)
        return outcome.irregular is None

    def end_round(self) -> None:
        """All prizes paid: winning areas off; the dome may be covered again (004 §VII.11)."""
        mono, utc = now_stamp()
        self._apply(self.procedure.end_round, mono, utc)

    # --- internals ---

    def _apply(self, action: Callable[[], Outcome], mono: float, utc: datetime, areas: list[str] | None = None) -> Outcome:
        with self._lock:
            outcome = action()
            self._sync_outputs(areas)
            stamp = {"device": self.name, "mono": mono, "utc": utc}
            if outcome.irregular is None:
                detail = outcome.detail or (",".join(areas) if areas else "")
                self.emit(DomeStep(**stamp, action=outcome.action, phase=outcome.phase, presses=outcome.presses,
                                   detail=detail))
            else:
                self.emit(DomeOutOfOrder(**stamp, action=outcome.action, phase=outcome.phase,
                                         presses=outcome.presses, reason=outcome.irregular))
            return outcome

    def _sync_outputs(self, areas: list[str] | None = None) -> None:
        phase = self.procedure.phase
        self.light.value = phase is DomePhase.BETS_OPEN
        if phase is DomePhase.RESULT_SHOWN:
            if areas is not None:
                for area, lamp in self.areas.items():
                    lamp.value = area in areas
        else:
            for lamp in self.areas.values():
                lamp.off()

    def close(self) -> None:
        """Every output off, every pin released."""
        release_devices(self.name, self.debounce, self._devices)
