"""Has the camera moved since its calibration? Its markers looked for where the calibration photo shows them."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.calibration import calibrate
from vision.camera_moved import MarkerWatch
from vision.markers import marker_corners_mm
from vision.synthetic import render
from vision.synthetic_scenes import random_rig


@pytest.fixture(scope="module", params=["craps", "cussec"])
def table(request):
    rng = np.random.default_rng(31)
    rig = random_rig(request.param, rng)
    photo, _ = render(rig.scene([], rng, clean=True), rng)
    cal = calibrate(photo, rig.layout, float(rig.camera.position[2]))
    frame, _ = render(rig.scene([], rng), rng)  # the table lit for play, its own sensor noise
    return cal, photo, frame


def moved_by(frame: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    return cv2.warpAffine(frame, matrix, (frame.shape[1], frame.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def test_a_camera_where_it_was_calibrated_has_not_moved(table):
    cal, photo, frame = table
    check = MarkerWatch(cal, photo).check(frame)
    assert check.in_place and not check.moved, check.describe()
    assert max(check.off_px.values()) < 0.5  # the same fit on the photo and the frame: tenths of a pixel


@pytest.mark.parametrize("matrix", [np.float32([[1, 0, 3], [0, 1, 0]]),  # knocked 3 px: about 0.07 die edges
                                    cv2.getRotationMatrix2D((640, 360), 0.5, 1.0),  # turned half a degree
                                    np.float32([[1, 0, -90], [0, 1, 60]])],  # knocked beyond the search near them
                         ids=["3px", "half_a_degree", "108px"])
def test_a_camera_knocked_or_turned_has_moved(table, matrix):
    """The calibration then places every die on the table where it is not: off-table, the middle line, the dome."""
    cal, photo, frame = table
    check = MarkerWatch(cal, photo).check(moved_by(frame, matrix))
    assert check.moved and not check.in_place, check.describe()


def test_the_quick_look_of_a_throw_finds_a_camera_knocked_near_or_far(table):
    """The look during a throw (`quick`: the whole frame searched by the detector's default settings alone, 6-8 ms,
    not every setting, 160-180 ms) finds a knock of 3 px near the markers' places, and one of 108 px beyond them."""
    cal, photo, frame = table
    watch = MarkerWatch(cal, photo)
    assert watch.check(moved_by(frame, np.float32([[1, 0, 3], [0, 1, 0]])), quick=True).moved
    far = watch.check(moved_by(frame, np.float32([[1, 0, -90], [0, 1, 60]])), quick=True)
    assert far.moved and not far.in_place, far.describe()


def test_a_calibration_file_edited_away_from_its_photo_finds_the_camera_moved(table):
    """The places are fitted in the calibration photo, near where the calibration puts the markers: an edited
    homography (5 px off) was fitted back to the photo's markers, found in place, and every die then placed 5 px from
    where it lies. The calibration's own places are kept where the photo's fit lies off them."""
    cal, photo, frame = table
    shifted = replace(cal, homography=cal.homography @ np.array([[1.0, 0, -5.0], [0, 1, 0], [0, 0, 1]]))
    check = MarkerWatch(shifted, photo).check(frame)
    assert check.moved and not check.in_place, check.describe()


def test_markers_covered_say_nothing_and_one_covered_leaves_the_others_to_say(table):
    """Chips or an arm over the markers: not found, so neither moved nor in place (the state held stays)."""
    cal, photo, frame = table
    watch = MarkerWatch(cal, photo)
    covered = frame.copy()
    for m in cal.layout.markers:
        corners = cal.points_to_image(marker_corners_mm(cal.layout, m))
        centre = corners.mean(axis=0)
        box = np.round(centre + (corners - centre) * 1.6).astype(np.int32)
        cv2.fillConvexPoly(covered, box, (60, 90, 140))
    check = watch.check(covered)
    assert not check.moved and not check.in_place and len(check.unseen) == len(watch.places)
    one = frame.copy()
    corners = cal.points_to_image(marker_corners_mm(cal.layout, 0))
    cv2.fillConvexPoly(one, np.round(corners).astype(np.int32), (60, 90, 140))
    assert watch.check(one).in_place and watch.check(moved_by(one, np.float32([[1, 0, 4], [0, 1, 0]]))).moved


def test_without_the_calibration_photo_the_calibrated_corners_are_the_place(table):
    """Older calibrations have no photo: the detector's corners, which `align` fits up to 0.7 px off at the centre."""
    cal, _, frame = table
    watch = MarkerWatch(cal)
    assert watch.check(frame).in_place
    assert watch.check(moved_by(frame, np.float32([[1, 0, 0], [0, 1, 4]]))).moved
