"""A cussec table's camera: read once the dome is lifted, without motion, so a camera frozen on the last round's
picture must never give that round's dice as the next round's result (docs/devices.md, docs/vision.md)."""

from __future__ import annotations

import time
from dataclasses import replace

import msgspec
import numpy as np
import pytest

from drivers.settings import DevicesSection
from firmware_host.evidence import EvidenceStore
from firmware_host.hardware import HardwareTable
from firmware_host.rounds.inputs import DeviceHealthChanged, DiceSeen
from vision.calibration import calibrate
from vision.synthetic import render
from vision.synthetic_scenes import random_rig, random_scene
from vision.throw_motion import ThrowFrames

from .throwing_camera import ThrowingCamera, wait_for

SECTION = msgspec.convert({"camera": {"kind": "v4l2", "device": "stand-in"}}, DevicesSection)
SEED = 2  # a cussec rig whose two scenes the reader reads valid (seeds 1-2 tried: 1 has a die read unsure)


@pytest.fixture(scope="module")
def dome(tmp_path_factory):
    rng = np.random.default_rng(SEED)
    rig = random_rig("cussec", rng)
    clean, _ = render(rig.scene([], rng, clean=True), rng)
    path = tmp_path_factory.mktemp("cussec") / "camera.json"
    calibrate(clean, rig.layout, float(rig.camera.position[2])).save(path, empty_table=clean)
    lit = rig.scene([], rng)
    empty = [render(lit, rng)[0] for _ in range(4)]
    scenes = []
    for _ in range(2):
        dice = random_scene(rig, "valid", rng)
        still = [render(replace(lit, dice=list(dice)), rng)[0] for _ in range(4)]  # each with its own noise
        scenes.append(ThrowFrames([], [], still, dice))
    return path, empty, scenes


class FrozenCamera(ThrowingCamera):
    """The stand-in, frozen on demand: it then hands back the same image, byte for byte, at every frame."""

    frozen: np.ndarray | None = None

    def read(self):
        ok, image = super().read()
        if self.frozen is None:
            return ok, image
        return ok, self.frozen


def started(tmp_path, calibration, camera: ThrowingCamera) -> tuple[HardwareTable, list]:
    """A cussec HardwareTable on the camera stand-in, started; the inputs it gives the engine are collected."""
    items: list = []
    table = HardwareTable(SECTION, "cussec", EvidenceStore(tmp_path / "storage", 7), calibration=str(calibration),
                          capture_factory=camera)
    table.start(items.append)
    return table, items


def faces(scene: ThrowFrames) -> list[int]:
    return sorted(d.top_value for d in scene.rest)


def test_dice_lying_as_in_the_last_result_are_not_published_again(tmp_path, dome):
    """The camera shows the last round's dice again (frozen upstream, each frame re-encoded with its own noise, or a
    dome not shaken): before, the round was read valid with the last round's faces. Now it is void `uncertain`,
    the dealer's read; a round whose dice lie otherwise is read."""
    calibration, empty, (first, second) = dome
    camera = ThrowingCamera(empty)
    table, items = started(tmp_path, calibration, camera)
    seen = lambda: [i for i in items if isinstance(i, DiceSeen)]  # noqa: E731
    try:
        assert table.handshake(5.0) == {"camera": "connected"}
        camera.throw(first)
        table.read_dice(1, 1)
        assert wait_for(lambda: len(seen()) == 1, 30)
        assert seen()[0].faces is not None and sorted(seen()[0].faces) == faces(first)
        table.read_dice(2, 1)  # the same dice, the same places: the dome was not shaken, or the picture is old
        assert wait_for(lambda: len(seen()) == 2, 30)
        assert seen()[1].faces is None and seen()[1].void_reason == "uncertain"
        camera.throw(second)
        table.read_dice(3, 1)
        assert wait_for(lambda: len(seen()) == 3, 30)
        assert seen()[2].faces is not None and sorted(seen()[2].faces) == faces(second)
    finally:
        table.stop()


def test_a_camera_frozen_byte_for_byte_gives_no_reading_and_is_lost(tmp_path, dome):
    """Frozen byte for byte (the capture hands back its last buffer): its frames are never read as new, the camera is
    `lost` saying so, and no result comes (the engine's reading timeout voids the round)."""
    calibration, empty, (first, _) = dome
    camera = FrozenCamera(empty)
    table, items = started(tmp_path, calibration, camera)
    try:
        assert table.handshake(5.0) == {"camera": "connected"}
        camera.frozen = first.still[0]  # the picture of dice on the table, frozen
        table.read_dice(1, 1)
        lost = lambda: [i for i in items if isinstance(i, DeviceHealthChanged) and i.health == "lost"]  # noqa: E731
        assert wait_for(lambda: lost(), 10)
        assert "the same frame 30 times running" in lost()[0].message
        time.sleep(1.0)  # a rest is 9 frames: it would have been read several times over
        assert not [i for i in items if isinstance(i, DiceSeen)]
    finally:
        table.stop()
