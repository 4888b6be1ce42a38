"""Dealer console on GPIO (gpiozero): debounced buttons and the supervisor key in, lamps and a buzzer out."""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from gpiozero import LED, Buzzer

from .errors import DeviceConfigError
from .events import ButtonPressed, ConsoleButton, DeviceEvent, SupervisorKey
from .gpio_inputs import DebounceGroup, DebouncedInput, release_devices
from .settings import ConsoleSettings

BUTTONS = (ConsoleButton.NO_MORE_BETS, ConsoleButton.CONFIRM, ConsoleButton.VOID, ConsoleButton.NEW_SHOOTER)


class DealerConsole:
    """Buttons emit `ButtonPressed` (once per press, after debounce); the key emits `SupervisorKey`."""

    def __init__(self, settings: ConsoleSettings, *, emit: Callable[[DeviceEvent], None], name: str = "console",
                 pin_factory=None) -> None:
        self.settings = settings
        self.emit = emit
        self.name = name
        self._devices: list = []
        self.debounce = DebounceGroup(settings.debounce_s, name)
        kw = {"group": self.debounce, "pull_up": settings.pull_up, "pin_factory": pin_factory}
        try:
            self.lamps = {lamp: self._keep(LED(pin, pin_factory=pin_factory)) for lamp, pin in settings.lamps.items()}
            self.buzzer = (self._keep(Buzzer(settings.buzzer, pin_factory=pin_factory))
                           if settings.buzzer is not None else None)
            self.buttons = {button: self._keep(DebouncedInput(getattr(settings, button.value), self._press(button),
                                                              name=f"{name}.{button.value}", **kw))
                            for button in BUTTONS}
            self.key = self._keep(DebouncedInput(settings.supervisor_key, self._on_key,
                                                 name=f"{name}.supervisor_key", **kw))
        except DeviceConfigError:
            self.close()
            raise
        except Exception as exc:  # gpiozero's own errors for outputs
            self.close()
            raise DeviceConfigError(f"{name}: cannot set up output pins: {exc}") from None

    def _keep(self, device):
        self._devices.append(device)
        return device

    @property
    def supervisor(self) -> bool:
        return self.key.level

    def _press(self, button: ConsoleButton):
        def handler(pressed: bool, mono: float, utc: datetime) -> None:
            if pressed:
                self.emit(ButtonPressed(device=self.name, mono=mono, utc=utc, button=button,
                                        supervisor=self.supervisor))
        return handler

    def _on_key(self, on: bool, mono: float, utc: datetime) -> None:
        self.emit(SupervisorKey(device=self.name, mono=mono, utc=utc, on=on))

    def set_lamp(self, lamp: str, on: bool) -> None:
        try:
            self.lamps[lamp].value = on
        except KeyError:
            raise DeviceConfigError(f"{self.name}: no lamp {lamp!r}; configured: {sorted(self.lamps)}") from None

    def beep(self, seconds: float = 0.1, count: int = 1) -> None:
        """Sound the buzzer `count` times (in the background); nothing if the console has none."""
        if self.buzzer is not None:
            self.buzzer.beep(on_time=seconds, off_time=seconds, n=count, background=True)

    def close(self) -> None:
        """Lamps and buzzer off, pins released."""
        release_devices(self.name, self.debounce, self._devices)
