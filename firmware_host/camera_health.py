"""One owner of a dice camera's health: the worst of what its parts say, told when it changes.

The camera is `connected` once set up (`link/devices.py`). Then four parts of its path may each find a fault:
- the capture: a frame it fails to give makes the camera `lost`;
- the frames: frames that do not fit the calibration make it `degraded`;
- the reads: reads declined because the empty-table model is missing or no longer fits the table make it `degraded`;
- the calibration: markers found off their calibrated places (the camera moved) make it `degraded`, reads declined.

The camera's health is the worst fault held (`lost` before `degraded`; the part that found it first, among equals), or
`connected` when none is. It is told (a `DeviceHealthChanged` to the sink) when that changes: once, never per frame.
Thread-safe: the camera thread and the vision worker each report their parts.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from .rounds.inputs import DeviceHealthChanged

WORST_FIRST = ("lost", "degraded")


class CameraHealth:
    """The faults a camera's parts hold; `sink` is told each change of the worst (a `DeviceHealthChanged`)."""

    def __init__(self, sink: Callable[[Any], None], device: str = "camera") -> None:
        self.sink = sink
        self.device = device
        self._faults: dict[str, tuple[str, str]] = {}  # part -> (health, message), in the order found
        self._told = ("connected", "")
        self._lock = threading.Lock()

    def fault(self, part: str, health: str, message: str) -> bool:
        """`part` finds the camera `health` (lost or degraded), saying why; True when the part did not hold it already
        (held, its first message stands)."""
        if health not in WORST_FIRST:
            raise ValueError(f"a fault is lost or degraded, not {health!r}")
        with self._lock:
            if self._faults.get(part, ("",))[0] == health:
                return False
            self._faults.pop(part, None)
            self._faults[part] = (health, message)
            self._tell(message)
            return True

    def fine(self, part: str, message: str) -> None:
        """`part` finds no fault any more (`message`: what is fine again, told if the camera is `connected` then)."""
        with self._lock:
            if self._faults.pop(part, None) is not None:
                self._tell(message)

    @property
    def health(self) -> str:
        with self._lock:
            return self._worst()[0]

    def _worst(self) -> tuple[str, str]:
        for level in WORST_FIRST:
            for health, message in self._faults.values():
                if health == level:
                    return health, message
        return "connected", ""

    def _tell(self, why: str) -> None:
        health, message = self._worst()
        if (health, message) != self._told:
            self._told = (health, message)
            self.sink(DeviceHealthChanged(self.device, health, message or why))
