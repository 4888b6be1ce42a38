"""Calibration on rails drawn independently of our renderer: labels beside the markers, markers printed on a label's
edge against a dark rail; markers found, table millimetres within 2 mm, and the reason when a marker is not found."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibration import calibrate
from vision.errors import CalibrationError
from vision.markers import CELLS, DICTIONARY, detect_markers, detect_sightings, marker_corners_mm

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
    assert list(cal.recovered) == recovered and cal.read_twice == ()
    assert [int(n.split()[1]) for n in cal.notes] == recovered  # a note per marker, naming it
    assert felt_error_mm(cal, layout, cam) <= 2.0


@pytest.mark.parametrize("rail", ["dark", "light"])
def test_labels_beside_the_markers_on_dark_and_light_rails(rail):
    for seed in (520, 521, 522):
        image, layout, cam = marker_table(GAMES[seed % 3], seed, rail, "beside")
        cal = calibrate(image, layout)
        assert felt_error_mm(cal, layout, cam) <= 2.0


def test_three_markers_on_a_labels_edge_are_found_from_the_one_left():
    """Tune seed 508: only marker 3 has a closed outline (the refusal of the independent rigs' dark rails with
    markers flush on labels, 15 of 100 before). Its own corners put the others within 10 cells; a second marker
    found so brings the homography in."""
    image, layout, cam = marker_table(GAMES[508 % 3], 508, "dark", "flush")
    assert set(detect_markers(image)) == {3}
    cal = calibrate(image, layout)
    assert cal.recovered == (0, 1, 2) and [int(n.split()[1]) for n in cal.notes] == [0, 1, 2]
    assert felt_error_mm(cal, layout, cam) <= 2.0


def cover(image: np.ndarray, cam, layout, marker: int) -> None:
    """A dark patch over a marker and its margin (a chip rack on it)."""
    corners = cam.project(np.c_[marker_corners_mm(layout, marker), np.zeros(4)])
    centre = corners.mean(axis=0)
    cv2.fillConvexPoly(image, np.round(centre + 1.6 * (corners - centre)).astype(np.int32), (30, 30, 30))


def test_markers_none_of_which_has_a_closed_outline_are_found_by_their_pattern():
    """Tune seed 722: every marker on a label's edge against the dark rail, no closed outline anywhere (the one
    rig of 100 the bench's dark flush row still refused). The whole photo is searched for their patterns."""
    image, layout, cam = marker_table(GAMES[722 % 3], 722, "dark", "flush")
    assert detect_markers(image) == {}
    cal = calibrate(image, layout)
    assert cal.recovered == (0, 1, 2, 3)
    assert len(cal.notes) == 4 and all("found by a search of the whole photo" in n for n in cal.notes), cal.notes
    assert felt_error_mm(cal, layout, cam) <= 2.0


def test_markers_beyond_the_near_search_of_two_on_one_side_are_found_by_their_pattern():
    """Marker tables seed 4034 (first used unseen, the one refusal of 600; looked at since): only markers 0 and 3,
    both on the table's left side, have a closed outline. Their homography puts 1 and 2 about 50 px (7 cells) off,
    beyond the near search, and calibration was refused. The photo is then searched whole for the two."""
    image, layout, cam = marker_table(GAMES[4034 % 3], 4034, "dark", "flush")
    assert set(detect_markers(image)) == {0, 3}
    cal = calibrate(image, layout)
    assert cal.recovered == (1, 2)
    assert [n.split(" found by ")[1] for n in cal.notes] == ["a search of the whole photo for its pattern (every bit "
                                                             "read right)"] * 2, cal.notes
    assert felt_error_mm(cal, layout, cam) <= 2.0


def test_no_marker_anywhere_is_named_with_the_advice():
    image, layout, cam = marker_table(GAMES[508 % 3], 508, "dark", "flush")
    for m in layout.markers:
        cover(image, cam, layout, m)
    with pytest.raises(CalibrationError, match=r"markers not found: \[0, 1, 2, 3\] \(found \[\].*its pattern found "
                                               r"nowhere in the photo, and no other marker found.*white margin"):
        calibrate(image, layout)


def test_a_covered_marker_is_named_when_the_rest_are_found_from_one():
    """Only marker 3 has a closed outline and marker 2 is covered: 0 and 1 are found from 3, and 2 is named with
    what was read where the three put it."""
    image, layout, cam = marker_table(GAMES[508 % 3], 508, "dark", "flush")
    cover(image, cam, layout, 2)
    with pytest.raises(CalibrationError, match=r"markers not found: \[2\] \(found \[0, 1, 3\].*marker 2 expected at "
                                               r"\(\d+, \d+\) px: (\d+ of its 16 bits read wrong|black and white differ)"):
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


def paint_marker(image: np.ndarray, cam, layout, marker: int, centre_mm: tuple[float, float]) -> None:
    """A printed copy of `marker` on white paper, lying on the felt at `centre_mm` (as printing that reads as
    a marker would): drawn through the camera."""
    side = 120
    paper = np.full((2 * side, 2 * side), 250, np.uint8)
    paper[side // 2:side // 2 + side, side // 2:side // 2 + side] = DICTIONARY.generateImageMarker(marker, side)
    half = layout.marker_mm  # the paper is twice the marker's side
    x, y = centre_mm
    corners = cam.project(np.array([(x - half, y - half, 0), (x + half, y - half, 0), (x + half, y + half, 0),
                                    (x - half, y + half, 0)], np.float64)).astype(np.float32)
    warp = cv2.getPerspectiveTransform(np.float32([(0, 0), (2 * side, 0), (2 * side, 2 * side), (0, 2 * side)]),
                                       corners)
    h, w = image.shape[:2]
    drawn = cv2.warpPerspective(cv2.cvtColor(paper, cv2.COLOR_GRAY2BGR), warp, (w, h), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full((2 * side, 2 * side), 255, np.uint8), warp, (w, h)) > 127
    image[inside] = drawn[inside]


def test_printing_read_as_a_marker_is_not_used():
    """A tune table of the rendered bench (seed 41, rig of throw 188) had 'PASS LINE' printed on its felt read
    as marker 1 besides marker 1 itself, and the first sighting was used: refused, 407 mm RMS off. Here a copy
    of marker 1 lies on the felt: the sighting that lies with the others is used, and the note says so."""
    image, layout, cam = marker_table(GAMES[520 % 3], 520, "dark", "beside")
    w, h = layout.felt_mm
    paint_marker(image, cam, layout, 1, (0.45 * w, 0.55 * h))
    assert len(detect_sightings(image)[1]) == 2
    cal = calibrate(image, layout)
    assert felt_error_mm(cal, layout, cam) <= 2.0
    assert cal.read_twice == (1,) and cal.recovered == ()
    assert any(n.startswith("marker 1 read at") and "also read at" in n for n in cal.notes), cal.notes


def test_a_marker_missed_while_printing_reads_as_it_is_looked_for_where_the_others_put_it():
    image, layout, cam = marker_table(GAMES[500 % 3], 500, "dark", "flush")  # marker 2: only found by looking
    w, h = layout.felt_mm
    paint_marker(image, cam, layout, 2, (0.5 * w, 0.4 * h))
    cal = calibrate(image, layout)
    assert felt_error_mm(cal, layout, cam) <= 2.0
    assert cal.recovered == (2,) and [int(n.split()[1]) for n in cal.notes] == [2]


def test_a_marker_whose_only_sighting_is_off_is_refused_naming_it():
    image, layout, cam = marker_table(GAMES[520 % 3], 520, "dark", "beside")
    corners = cam.project(np.c_[marker_corners_mm(layout, 1), np.zeros(4)])
    centre = corners.mean(axis=0)
    cover = np.round(centre + 1.6 * (corners - centre)).astype(np.int32)
    cv2.fillConvexPoly(image, cover, (30, 30, 30))  # marker 1 covered (a chip rack on it)
    w, h = layout.felt_mm
    paint_marker(image, cam, layout, 1, (0.45 * w, 0.55 * h))
    with pytest.raises(CalibrationError, match=r"mm RMS off .*marker 1, read at \(\d+, \d+\) px, does not lie where "
                                               r"the others put it .*marker 1 expected at"):
        calibrate(image, layout)


def test_a_copy_of_a_covered_marker_is_not_taken_when_the_rest_are_found_by_their_pattern():
    """Seed 4034 again (marker 2 found by the whole-photo search), with marker 1 covered and its pattern printed
    on the rail, no paper round it: the copy is read as marker 1, does not fit the others, and the calibration is
    refused naming it."""
    image, layout, cam = marker_table(GAMES[4034 % 3], 4034, "dark", "flush")
    cover(image, cam, layout, 1)
    w, _ = layout.felt_mm
    half, side = layout.marker_mm / 2, 120
    x, y = 0.5 * w, -layout.rail_mm / 2
    corners = cam.project(np.array([(x - half, y - half, 0), (x + half, y - half, 0), (x + half, y + half, 0),
                                    (x - half, y + half, 0)], np.float64)).astype(np.float32)
    warp = cv2.getPerspectiveTransform(np.float32([(0, 0), (side, 0), (side, side), (0, side)]), corners)
    h, w_px = image.shape[:2]
    drawn = cv2.warpPerspective(cv2.cvtColor(DICTIONARY.generateImageMarker(1, side), cv2.COLOR_GRAY2BGR), warp,
                                (w_px, h), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full((side, side), 255, np.uint8), warp, (w_px, h)) > 127
    image[inside] = drawn[inside]
    with pytest.raises(CalibrationError, match=r"mm RMS off .*marker 1, read at \(\d+, \d+\) px, does not lie where "
                                               r"the others put it .*marker 1 expected at"):
        calibrate(image, layout)
