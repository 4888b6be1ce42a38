"""The foreground's shortcuts find exactly what the plain way finds: parts near the strong pixels labelled first."""

from __future__ import annotations

import cv2
import numpy as np

from vision import die_finder
from vision.dice_reader import DiceReader
from vision.synthetic import render
from vision.synthetic_scenes import random_scene


def whole_mask_hysteresis(score: np.ndarray, strong: int, weak: int):
    """The plain way: label the whole weak mask, keep the parts holding a strong pixel."""
    weak_mask = cv2.morphologyEx(cv2.threshold(score, weak, 1, cv2.THRESH_BINARY)[1], cv2.MORPH_CLOSE,
                                 die_finder.CLOSING)
    n, labels, stats, centroids = die_finder.components(weak_mask)
    return n, labels, stats, centroids, die_finder.kept(n, labels, score > strong)


def assert_same_parts(fast, plain) -> None:
    kf, kp = np.nonzero(fast[4])[0], np.nonzero(plain[4])[0]
    assert len(kf) == len(kp) > 0
    assert np.array_equal(fast[2][kf], plain[2][kp]) and np.allclose(fast[3][kf], plain[3][kp])
    for i, j in zip(kf, kp):
        assert np.array_equal(fast[1] == i, plain[1] == j)


def table_score(reader: DiceReader, frame: np.ndarray) -> np.ndarray:
    fg = reader.foreground(frame)
    h, w = frame.shape[:2]
    small = cv2.resize(frame, (round(w * fg.scale), round(h * fg.scale)), interpolation=cv2.INTER_AREA)
    score = die_finder.foreground_score(cv2.cvtColor(small, cv2.COLOR_BGR2LAB), reader._background)
    return cv2.bitwise_and(score, reader.region(frame))


def test_parts_labelled_near_the_strong_pixels_are_the_parts_of_the_whole_mask(craps_rig):
    rig, empty, cal = craps_rig
    reader = DiceReader(cal, background=empty)
    rng = np.random.default_rng(7)
    for kind in ("valid", "touching", "cocked", "stacked", "overlapping"):
        frame = render(rig.scene(random_scene(rig, kind, rng), rng), rng)[0]
        score = table_score(reader, frame)
        assert_same_parts(die_finder.hysteresis(score, die_finder.STRONG, die_finder.WEAK),
                          whole_mask_hysteresis(score, die_finder.STRONG, die_finder.WEAK))


def test_a_part_reaching_past_the_strong_pixels_box_is_labelled_whole():
    """A long weak streak from a strong spot (a die's shadow across the felt) leaves the first box: the
    whole mask is labelled, and the streak's far end is kept with it."""
    score = np.zeros((360, 640), np.uint8)
    score[100:112, 100:112] = 90  # strong: a die
    score[104:108, 112:400] = 30  # weak, reaching 288 px to the right
    score[300:302, 600:602] = 30  # a weak speck alone: never kept
    fast = die_finder.hysteresis(score, die_finder.STRONG, die_finder.WEAK)
    assert_same_parts(fast, whole_mask_hysteresis(score, die_finder.STRONG, die_finder.WEAK))
    kept = np.nonzero(fast[4])[0]
    assert len(kept) == 1 and fast[2][kept[0], cv2.CC_STAT_WIDTH] == 300


def test_a_thin_streak_filling_its_box_holds_no_die_centre():
    """A blob's mask is cut to its bounding box: OpenCV measures no distance across the box's edge, so a
    streak of light 4 px wide that fills its box from edge to edge had every pixel "far inside" and every
    pixel a peak (a rendered craps frame, tune rig 1: 81 candidates in one streak, a read of 75 ms)."""
    d = 12.0  # die edge in work pixels
    streak = np.ones((4, 120), np.uint8)
    assert die_finder.cluster_points(streak, d) == []


def test_two_dice_side_by_side_filling_their_box_give_a_centre_in_each_die():
    """Two touching dice make one 12 x 24 blob that fills its box: candidates are the grid over its inside
    and the ridge of its distance transform (the middles of the dice), not every pixel of the box."""
    d = 12.0
    pair = np.ones((12, 24), np.uint8)
    points = die_finder.cluster_points(pair, d)
    assert 0 < len(points) < pair.size / 4
    near = lambda cx: any(abs(x - cx) <= 0.3 * d and abs(y - 5.5) <= 0.3 * d for x, y in points)
    assert near(5.5) and near(17.5)
    assert all(0.22 * d <= min(x + 1, 24 - x, y + 1, 12 - y) for x, y in points)  # inside, off the edges


def test_candidates_of_a_blob_lie_apart_with_a_calibrated_die_size():
    """The grid's first pixel of each cell and the ridge of the distance transform put candidates a pixel or two
    apart, each one crop more for the face network: with a calibrated die size a candidate closer than
    CANDIDATE_SPACING die edges to one kept before it is left out, and each die of the pair still has a centre."""
    d = 12.0
    pair = np.zeros((16, 30), np.uint8)
    pair[2:14, 3:27] = 1
    pair[1, 10:20] = 1  # a ragged top edge: grid cells whose first pixels lie side by side
    every = die_finder.cluster_points(pair, d)
    apart = die_finder.cluster_points(pair, d, die_finder.CANDIDATE_STEP, die_finder.CANDIDATE_SPACING)
    least = die_finder.CANDIDATE_SPACING * d
    assert 0 < len(apart) < len(every)
    assert all(p in every for p in apart)
    assert all(np.hypot(a[0] - b[0], a[1] - b[1]) >= least for i, a in enumerate(apart) for b in apart[i + 1:])
    assert any(np.hypot(a[0] - b[0], a[1] - b[1]) < least for i, a in enumerate(every) for b in every[i + 1:])
    near = lambda cx: any(abs(x - cx) <= 0.3 * d and abs(y - 7.5) <= 0.3 * d for x, y in apart)
    assert near(8.5) and near(20.5)


def test_the_grid_holds_the_first_pixel_of_each_cell_in_raster_order():
    """cluster_points picks its grid with numpy: the same points, in the same order, as walking the blob's inside
    pixels row by row and keeping the first of each cell (how it was written before)."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        h, w = rng.integers(8, 50, 2)
        mask = cv2.morphologyEx((rng.random((h, w)) < 0.8).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        d = float(rng.uniform(6, 20))
        padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
        dist = cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]
        step = max(1.0, die_finder.CANDIDATE_STEP * d)
        cells, walked = set(), []
        for y, x in zip(*np.nonzero(dist >= 0.22 * d)):
            cell = (round(x / step), round(y / step))
            if cell not in cells:
                cells.add(cell)
                walked.append((float(x), float(y)))
        assert die_finder.cluster_points(mask, d)[:len(walked)] == walked


def test_spaced_keeps_the_first_of_points_too_close():
    assert die_finder.spaced([(0.0, 0.0), (1.0, 0.0), (3.0, 0.0), (3.0, 2.9)], 3.0) == [(0.0, 0.0), (3.0, 0.0)]
    assert die_finder.spaced([], 3.0) == []


def test_the_foreground_is_looked_for_in_the_box_around_the_search_region_only(craps_rig):
    """The reader compares only the box around the table's search region with the empty table (its Lab and
    light measured there): dice on the table are found where comparing the whole frame finds them, and
    something outside that box is no part of the foreground."""
    rig, empty, cal = craps_rig
    reader = DiceReader(cal, background=empty)
    whole_table = die_finder.Background.of(empty, reader.settings.work_width)
    rng = np.random.default_rng(11)
    for kind in ("valid", "touching", "cocked"):
        frame = render(rig.scene(random_scene(rig, kind, rng), rng), rng)[0]
        x0, y0, x1, y1 = die_finder.region_box(reader.region(frame))
        assert (x1 - x0, y1 - y0) != reader.region(frame).shape[::-1]  # the box leaves part of the frame out
        # a white square outside the box, on the rail beside the table
        s = 1.0 / reader.foreground(frame).scale
        outside = frame.copy()
        cv2.rectangle(outside, (int(2 * s), int(y0 * s) + 40), (int((x0 - 4) * s), int(y0 * s) + 70), (255, 255, 255), -1)
        boxed = reader.foreground(outside)
        whole = die_finder.find_foreground(outside, die_size=cal.die_px, background=whole_table)
        assert len(boxed.candidates) > 0
        assert [(c.x, c.y) for c in boxed.candidates] == [(c.x, c.y) for c in whole.candidates if c.x >= x0 * s]
        assert any(c.x < x0 * s for c in whole.candidates)  # the whole frame's comparison finds the square
        assert not boxed.mask[:, :x0].any() and not boxed.mask[:, x1:].any() and not boxed.mask[y1:].any()


def test_only_the_search_box_is_downscaled_and_it_is_that_part_of_the_whole_frame_bit_for_bit():
    """Where the work scale divides the frame a whole number of times (1280x720 at 640: 2; 1920x1080: 3), area
    averaging only the box's part of the frame gives that part of the whole frame's average exactly; elsewhere
    (1000x600 at 640) the whole frame is averaged and the box cut from it."""
    rng = np.random.default_rng(5)
    for w, h in ((1280, 720), (1920, 1080), (1000, 600)):
        frame = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        s = die_finder.work_scale(w, 640)
        whole = cv2.resize(frame, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
        assert np.array_equal(die_finder.downscaled(frame, s), whole)
        for box in ((0, 0, whole.shape[1], whole.shape[0]), (55, 3, 622, 350), (1, 7, 2, 9), (49, 0, 559, 338)):
            x0, y0, x1, y1 = box
            part = die_finder.downscaled(frame, s, box)
            assert part.flags.c_contiguous and np.array_equal(part, whole[y0:y1, x0:x1]), (w, box)
    frame = rng.integers(0, 256, (360, 640, 3), dtype=np.uint8)  # already at work scale: cut, not resized
    assert np.array_equal(die_finder.downscaled(frame, 1.0, (3, 4, 50, 60)), frame[4:60, 3:50])


def test_the_empty_table_inside_a_box_is_prepared_once():
    lab = np.random.default_rng(3).integers(0, 255, (90, 160, 3), dtype=np.uint8)
    table = die_finder.Background.of_lab(lab, (320, 180))
    inside = table.inside((10, 20, 110, 80))
    assert table.inside((10, 20, 110, 80)) is inside
    assert np.array_equal(inside.lab, lab[20:80, 10:110]) and inside.frame_size == (320, 180)
    assert np.array_equal(inside.edges, die_finder.lightness_edges(np.ascontiguousarray(lab[20:80, 10:110, 0])))
    assert die_finder.region_box(np.zeros((9, 16), np.uint8)) == (0, 0, 16, 9)


def test_a_blob_is_looked_at_more_densely_when_the_die_size_is_only_estimated():
    """With a calibrated camera's die size the grid in a blob of touching dice is 0.5 die edges; with a size
    estimated from the frame (photos) 0.4 (on the development photos 0.5 read one die confidently wrong)."""
    d = 20.0
    pair = np.zeros((40, 64), np.uint8)
    pair[:, 4:60] = 1
    calibrated = die_finder.cluster_points(pair, d)
    estimated = die_finder.cluster_points(pair, d, die_finder.CANDIDATE_STEP_ESTIMATED)
    assert die_finder.CANDIDATE_STEP_ESTIMATED < die_finder.CANDIDATE_STEP
    assert 0 < len(calibrated) < len(estimated)
