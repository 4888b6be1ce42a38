"""Cussec dome simulator: the dealer's hands on the dome's contacts, through gpiozero mock pins.

The dome speaks GPIO levels, so its simulator drives `MockFactory` pins the way the dealer and the
hardware would: scripted steps (the regular round, or any order), contact bounce, a stuck sensor,
a pause between steps. Contacts are pulled up: closed (pressed, fastened, dome on) is low.
"""

from __future__ import annotations

import time

from ..errors import DeviceConfigError
from ..settings import DomeSettings

REGULAR_ROUND = ("cover", "fasten left", "fasten right", "press", "press", "press", "bell", "release left",
                 "release right", "lift")


def regular_round(presses: int = 3) -> list[str]:
    steps = [s for s in REGULAR_ROUND if s != "press"]
    return steps[:3] + ["press"] * presses + steps[3:]


class DomeSim:
    """Drive a dome's mock pins from a script of steps."""

    def __init__(self, factory, settings: DomeSettings, *, gap: float = 0.0, bounce: int = 0,
                 stuck: frozenset[str] = frozenset()) -> None:
        self.factory = factory
        self.settings = settings
        self.gap = gap          # seconds between steps (must exceed the driver's debounce when bouncing)
        self.bounce = bounce    # extra edges at every contact change
        self.stuck = stuck      # contacts that no longer move: "lever", "clasp_left", "clasp_right", "dome", "bell"

    def _pin(self, contact: str):
        return self.factory.pin(getattr(self.settings, contact))

    def _set(self, contact: str, closed: bool) -> None:
        if contact in self.stuck:
            return
        pin = self._pin(contact)
        for _ in range(self.bounce):
            (pin.drive_low if closed else pin.drive_high)()
            (pin.drive_high if closed else pin.drive_low)()
        (pin.drive_low if closed else pin.drive_high)()

    def step(self, step: str) -> None:
        words = step.split()
        action, side = words[0], (words[1] if len(words) > 1 else "")
        if action in ("fasten", "release") and side not in ("left", "right"):
            raise DeviceConfigError(f"dome step {step!r}: say which clasp (left or right)")
        if action == "cover":
            self._set("dome", True)
        elif action == "lift":
            self._set("dome", False)
        elif action == "fasten":
            self._set(f"clasp_{side}", True)
        elif action == "release":
            self._set(f"clasp_{side}", False)
        elif action in ("press", "bell"):
            contact = "lever" if action == "press" else "bell"
            self._set(contact, True)
            if self.gap:
                time.sleep(self.gap)
            self._set(contact, False)
        else:
            raise DeviceConfigError(f"unknown dome step {step!r}; steps: cover, fasten/release left/right, press, "
                                    "bell, lift")
        if self.gap:
            time.sleep(self.gap)

    def run(self, steps) -> None:
        for step in steps:
            self.step(step)
