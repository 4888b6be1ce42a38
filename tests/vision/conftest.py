"""Fixtures for the vision tests: the shared dice photos, and rendered tables with their calibration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.calibration import calibrate
from vision.synthetic import render
from vision.synthetic_scenes import random_rig

DATASET = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "dice-topdown"


@pytest.fixture(scope="session")
def dice_photos() -> Path:
    if not (DATASET / "images").is_dir():
        pytest.skip(f"dataset not present: {DATASET}")
    return DATASET


@pytest.fixture(scope="session")
def craps_rig():
    """A craps table under a fixed camera, its empty frame and its calibration."""
    rng = np.random.default_rng(42)
    rig = random_rig("craps", rng)
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    return rig, empty, calibrate(empty, rig.layout, float(rig.camera.position[2]))
