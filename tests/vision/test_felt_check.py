"""vision/felt_check.py: a felt more neutral than any the pose network was trained and checked on is named, with its
colour and saturation; every felt the training draws passes. The floor was chosen on the training's felts only
(docs/vision.md, twenty-seventh session)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.calibration import calibrate
from vision.errors import CalibrationError
from vision.felt_check import FELT_SATURATION_FLOOR, felt_saturation, saturation_of, unvalidated_felt
from vision.synthetic import render
from vision.synthetic_looks import FELTS
from vision.synthetic_scenes import random_rig
from vision.training.make_synthetic_set import random_felt

FELT_JITTER = 18  # synthetic_looks.random_look: each channel of a look's felt is drawn within this of its family's


def empty_table(rig, rng):
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    return empty, calibrate(empty, rig.layout, float(rig.camera.position[2]))


def on_felt(rig, bgr):
    return rig.on_felt(bgr, "other")


def test_every_felt_the_pose_network_was_trained_on_is_over_the_floor():
    """The tune looks' felts at their most neutral draw (the largest channel down, the smallest up), and felts of
    random colours (`make_synthetic_set.random_felt`, saturation drawn from 80 of 255)."""
    for name, bgr in FELTS["tune"].items():
        worst = [c - FELT_JITTER if c == max(bgr) else c + FELT_JITTER if c == min(bgr) else c for c in bgr]
        assert saturation_of(worst) >= FELT_SATURATION_FLOOR, name
    rng = np.random.default_rng(0)
    assert min(saturation_of(random_felt(rng, (40, 40, 200))) for _ in range(300)) >= FELT_SATURATION_FLOOR


@pytest.mark.parametrize("game, seed", [("craps", 3), ("banca-francesa", 5), ("cussec", 6)])
def test_a_rendered_table_of_the_tune_looks_passes(game, seed):
    rng = np.random.default_rng(seed)
    empty, cal = empty_table(random_rig(game, rng), rng)
    assert unvalidated_felt(empty, cal) is None


@pytest.mark.parametrize("grey", [(96, 96, 96), (40, 42, 40), (200, 200, 205)])
def test_a_neutral_felt_is_named_with_its_colour_and_what_it_needed(grey):
    """Grey, black and white felts: the pose network never saw one (the unseen looks' grey felt: docs/vision.md)."""
    rng = np.random.default_rng(3)
    empty, cal = empty_table(on_felt(random_rig("craps", rng), grey), rng)
    assert felt_saturation(empty, cal) < FELT_SATURATION_FLOOR
    why = unvalidated_felt(empty, cal)
    assert why is not None and "more neutral than any the pose network was trained and checked on" in why
    assert f"saturation {FELT_SATURATION_FLOOR:.0f} or more" in why and "BGR" in why


def test_the_felt_is_measured_in_frames_of_the_calibration_s_size_only():
    rng = np.random.default_rng(3)
    empty, cal = empty_table(random_rig("craps", rng), rng)
    with pytest.raises(CalibrationError, match="calibrated for 1280x720"):
        unvalidated_felt(empty[:360, :640], cal)


def test_a_calibration_that_places_the_felt_off_the_photo_is_refused_by_name():
    """An edited homography (the table moved 100 m off): no felt to measure is an error, not a pass."""
    rng = np.random.default_rng(3)
    empty, cal = empty_table(random_rig("craps", rng), rng)
    moved = replace(cal, homography=np.array([[1, 0, 1e5], [0, 1, 1e5], [0, 0, 1]]) @ cal.homography)
    with pytest.raises(CalibrationError, match="places no felt in the image"):
        unvalidated_felt(empty, moved)
