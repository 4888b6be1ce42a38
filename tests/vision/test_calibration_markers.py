"""Calibration on rails drawn independently of our renderer: labels beside the markers, markers printed on a label's
edge against a dark rail; markers found, table millimetres within 2 mm, and the reason when a marker is not found."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibration import calibrate
from vision.errors import CalibrationError
from vision.markers import CELLS, DICTIONARY, detect_markers, marker_corners_mm

from .marker_tables import felt_error_mm, marker_table

GAMES = ("craps", "banca-francesa", "cussec")


def plain_detector(image: np.ndarray) -> set[int]:
    """What `calibrate` used to run: one ArUco pass with the default settings."""
    _, ids, _ = cv2.aruco.ArucoDetector(DICTIONARY, cv2.aruco.DetectorParameters()).detectMarkers(
        cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    return set() if ids is None else {int(i) for i in ids.ravel()}


@pytest.mark.parametrize("seed, recovered", [(500, [2]), (502, [1, 2]), (513, [])])
def test_markers_on_a_labels_edge_against_a_dark_rail_are_found(seed, recovered):
    image, layout, cam = marker_table(GAMES[seed % 3], seed, "dark", "flush")
    assert plain_detector(image) < set(layout.markers)  # the plain detector misses some
    cal = calibrate(image, layout)
    assert [int(n.split()[1]) for n in cal.notes] == recovered
    assert felt_error_mm(cal, layout, cam) <= 2.0


@pytest.mark.parametrize("rail", ["dark", "light"])
def test_labels_beside_the_markers_on_dark_and_light_rails(rail):
    for seed in (520, 521, 522):
        image, layout, cam = marker_table(GAMES[seed % 3], seed, rail, "beside")
        cal = calibrate(image, layout)
        assert felt_error_mm(cal, layout, cam) <= 2.0


def test_too_few_markers_to_look_for_the_rest_are_named_with_the_advice():
    image, layout, _ = marker_table(GAMES[508 % 3], 508, "dark", "flush")
    with pytest.raises(CalibrationError, match=r"markers not found: \[0, 1, 2\] \(found \[3\].*white margin"):
        calibrate(image, layout)


def test_a_marker_with_a_cell_painted_over_is_refused_saying_what_was_read():
    image, layout, cam = marker_table(GAMES[500 % 3], 500, "dark", "flush")  # marker 2 has no margin
    corners = cam.project(np.c_[marker_corners_mm(layout, 2), np.zeros(4)]).astype(np.float32)
    size = float(CELLS)
    to_image = cv2.getPerspectiveTransform(np.float32([(0, 0), (size, 0), (size, size), (0, size)]), corners)
    bits = DICTIONARY.getBitsFromByteList(DICTIONARY.bytesList[2:3], DICTIONARY.markerSize)
    r, c = map(int, np.argwhere(bits == 1)[0])  # a white cell
    cell = np.float32([(c + 1, r + 1), (c + 2, r + 1), (c + 2, r + 2), (c + 1, r + 2)]).reshape(-1, 1, 2)
    cv2.fillConvexPoly(image, np.round(cv2.perspectiveTransform(cell, to_image)).astype(np.int32), (15, 15, 15))
    with pytest.raises(CalibrationError, match=r"marker 2 expected at \(\d+, \d+\) px: 1 of its 16 bits read wrong"):
        calibrate(image, layout)


def test_markers_found_on_a_prepared_image_get_corners_fitted_to_their_bits():
    image, layout, cam = marker_table(GAMES[513 % 3], 513, "dark", "flush")
    found = detect_markers(image)
    for m in layout.markers:
        truth = cam.project(np.c_[marker_corners_mm(layout, m), np.zeros(4)])
        assert np.abs(found[m] - truth).max() < 2.0, f"marker {m}"
