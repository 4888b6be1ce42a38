"""A dice table's HardwareTable on the camera stand-in (tests/service/throwing_camera.py), its inputs collected as the
engine's inbox would: for the camera's tests."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from drivers.errors import DeviceError
from drivers.settings import DevicesSection
from firmware_host.evidence import EvidenceStore
from firmware_host.hardware import HardwareTable
from firmware_host.rounds.inputs import DiceSeen, ThrowStarted

from .throwing_camera import ThrowingCamera

SECTION = msgspec.convert({"camera": {"kind": "v4l2", "device": "stand-in"}}, DevicesSection)


class Table:
    """A HardwareTable on the camera stand-in, its inputs collected as the engine's inbox would."""

    def __init__(self, tmp_path: Path, calibration: Path, empty, camera: ThrowingCamera | None = None) -> None:
        self.camera = camera or ThrowingCamera(empty)
        self.items: list = []
        self.table = HardwareTable(SECTION, "craps", EvidenceStore(tmp_path / "storage", 7),
                                   calibration=str(calibration), capture_factory=self.camera)

    def __enter__(self) -> "Table":
        self.table.start(self.items.append)
        assert self.table.handshake(5.0) == {"camera": "connected"}
        return self

    def __exit__(self, *exc) -> None:
        self.table.stop()

    def seen(self) -> list[DiceSeen]:
        return [i for i in self.items if isinstance(i, DiceSeen)]

    def throw(self, frames) -> None:
        self.table.phase_changed("no_more_bets", 1, 1)
        assert any(isinstance(i, ThrowStarted) for i in self.items)
        self.table.read_dice(1, 1)
        self.camera.throw(frames)


def refused_unless_checked(tmp_path: Path, calibration: Path, checked: str, *words: str) -> HardwareTable:
    """A craps table on `calibration` refuses to start, its error saying each of `words`; told that what it refused
    was checked (`checked`: HardwareTable's keyword, as the config's `[table] camera_unvalidated_*` sets it), it
    starts: that table."""
    with pytest.raises(DeviceError) as refused:
        HardwareTable(SECTION, "craps", EvidenceStore(tmp_path / "storage", 7), calibration=str(calibration))
    for said in words:
        assert said in str(refused.value)
    table = HardwareTable(SECTION, "craps", EvidenceStore(tmp_path / "storage", 7), calibration=str(calibration),
                          **{checked: True})
    assert table.camera is not None
    return table
