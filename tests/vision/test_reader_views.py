"""How many ways round the face network looks at a die it did not read plainly at first: four on a calibrated table
(the service, whose reads are timed), and mirrored too, eight, on an uncalibrated read (photos, `tablehw vision
read` without a calibration: docs/vision.md, thirty-ninth session)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.dice_reader import DiceReader
from vision.face_classifier import DEFAULT_WEIGHTS

pytestmark = pytest.mark.skipif(not DEFAULT_WEIGHTS.is_file(), reason="no committed weights")

# Development photos (a tune split) with dice the first look does not read plainly.
PHOTOS = ["IMG_20191208_111423", "IMG_20191209_095859"]


def views_asked(reader: DiceReader, frame: np.ndarray) -> list[int]:
    """The crops per die of each batch the reader asked for beyond its first looks (one crop a die)."""
    asked: list[int] = []
    view_crops = reader.view_crops

    def recording(image, found, counts):
        asked.extend(c for c in counts if c > 1)
        return view_crops(image, found, counts)

    reader.view_crops = recording
    reader.read(frame)
    return asked


def test_an_uncalibrated_read_looks_at_an_unread_die_mirrored_too(dice_photos):
    reader = DiceReader()
    asked = [n for name in PHOTOS for n in views_asked(reader, cv2.imread(str(dice_photos / "images" / f"{name}.jpg")))]
    assert asked and set(asked) == {8}, asked


def test_a_calibrated_read_looks_four_ways_round(craps_rig):
    from vision.die_geometry import resting_rotation
    from vision.synthetic import render
    from vision.synthetic_scenes import placed

    rig, empty, cal = craps_rig
    reader = DiceReader(cal, background=empty)
    rng = np.random.default_rng(8)
    d = rig.layout.die_mm
    w, h = rig.layout.felt_mm
    x, y, yaw = 0.7 * w, 0.5 * h, 0.4
    dice = [placed(x, y, resting_rotation(3, yaw), rig.style, "touching", d),
            placed(x + 1.02 * d * math.cos(yaw), y + 1.02 * d * math.sin(yaw), resting_rotation(5, yaw), rig.style,
                   "touching", d)]
    frame, _ = render(rig.scene(dice, rng), rng)
    asked = views_asked(reader, frame)
    assert asked and set(asked) == {4}, asked  # two dice touching: read four ways round where the fit puts them
