"""The silhouette fitter's geometry (vision/pose_fit.py): batched corners and projections, and a fit that
finds a die where it is."""

import math

import cv2
import numpy as np
import pytest

from vision.camera_model import PinholeCamera
from vision.pose_fit import DiePose, SilhouetteFitter, corners_of, pixels_of

DIE_MM = 19.0
CAMERA = PinholeCamera.over((400.0, 250.0), (800.0, 450.0), height_mm=1100.0, tilt=(0.03, -0.02, 0.01))
POSES = [DiePose(380.0, 240.0, 0.3), DiePose(420.5, 260.0, -1.1, math.radians(25), 2),
         DiePose(300.0, 200.0, 2.0, 0.0, 0, DIE_MM), DiePose(500.0, 300.0, 0.7, math.radians(40), 3)]


def test_a_pose_has_the_same_corners_alone_and_in_a_batch():
    batch = corners_of(POSES, DIE_MM)
    for pose, corners in zip(POSES, batch):
        assert np.array_equal(pose.corners(DIE_MM), corners)
    assert np.array_equal(pixels_of(CAMERA, batch)[1], pixels_of(CAMERA, batch[1]))


def test_a_searchs_neighbouring_poses_sharing_their_turns_have_the_corners_they_have_alone():
    # corners_of works out each orientation once per batch: 26 neighbours of a pose share three yaws
    steps = [(dx, dy, da) for dx in (-1.5, 0.0, 1.5) for dy in (-1.5, 0.0, 1.5) for da in (-0.1, 0.0, 0.1)]
    neighbours = [p.moved(*s) for p in POSES for s in steps]
    for pose, corners in zip(neighbours, corners_of(neighbours, DIE_MM)):
        assert np.array_equal(pose.corners(DIE_MM), corners)


def test_corners_turned_once_and_kept_are_the_corners_worked_out_anew():
    # the fitter keeps each orientation's turned corners (corners_of's `turned`): the same numbers as without
    turned: dict = {}
    first = corners_of(POSES[:2], DIE_MM, turned)
    again = corners_of(POSES[::-1], DIE_MM, turned)  # two from the kept turns, two new
    assert len(turned) == 4
    assert np.array_equal(first, corners_of(POSES[:2], DIE_MM))
    assert np.array_equal(again, corners_of(POSES[::-1], DIE_MM))


def test_corners_rest_on_their_base_with_the_die_edge_between_them():
    for pose, corners in zip(POSES, corners_of(POSES, DIE_MM)):
        assert corners[:, 2].min() == pytest.approx(pose.base, abs=1e-9)
        edges = [np.linalg.norm(corners[a] - corners[b]) for a in range(8) for b in range(a + 1, 8)]
        assert min(edges) == pytest.approx(DIE_MM)  # a cube of the die's edge, whatever its pose
    flat = corners_of([POSES[0]], DIE_MM)[0]
    assert flat[:, 2].max() == pytest.approx(DIE_MM)
    assert flat[:, :2].mean(axis=0) == pytest.approx([POSES[0].x, POSES[0].y])


def test_pixels_of_is_the_cameras_projection():
    points = corners_of(POSES, DIE_MM).reshape(-1, 3)
    assert np.allclose(pixels_of(CAMERA, points), CAMERA.project(points), atol=1e-9)
    assert not np.allclose(CAMERA.tilt, np.eye(3))  # a tilted camera: every term of the rotation counts


def test_the_flat_fit_finds_a_die_seen_off_by_three_millimetres_and_six_degrees():
    truth = DiePose(402.0, 251.0, 0.4)
    px = CAMERA.project(truth.corners(DIE_MM))
    origin = (int(px[:, 0].min()) - 30, int(px[:, 1].min()) - 30)
    silhouette = np.zeros((160, 160), np.uint8)
    cv2.fillConvexPoly(silhouette, np.round(cv2.convexHull(px.astype(np.float32)) - origin).astype(np.int32), 1)
    fitter = SilhouetteFitter(CAMERA, DIE_MM, silhouette, origin)
    start = DiePose(truth.x + 2.0, truth.y - 2.2, truth.yaw + math.radians(6))
    assert fitter.iou((start,)) < 0.85
    fit = fitter.fit_flat([start])
    found = fit.poses[0]
    assert fit.kind == "flat" and fit.iou > 0.93
    assert math.hypot(found.x - truth.x, found.y - truth.y) < 0.6
    turn = (found.yaw - truth.yaw + math.pi / 4) % (math.pi / 2) - math.pi / 4  # a square turned 90 degrees is itself
    assert abs(math.degrees(turn)) < 2.0


def test_the_flat_fit_puts_two_touching_dice_seen_too_close_where_they_lie_with_fewer_scores():
    """Two flat dice side by side, each seen 2.5 mm towards the other (a crop showing both pulls them together):
    the fit along the axes (fit_flat) finds both within a millimetre, as well as trying all 26 neighbouring poses
    does, from fewer scores."""
    truths = [DiePose(400.0, 250.0, 0.2), DiePose(400.0 + 19.2 * math.cos(0.2), 250.0 + 19.2 * math.sin(0.2), 0.25)]
    px = [CAMERA.project(t.corners(DIE_MM)) for t in truths]
    origin = (int(min(p[:, 0].min() for p in px)) - 30, int(min(p[:, 1].min() for p in px)) - 30)
    silhouette = np.zeros((200, 220), np.uint8)
    for p in px:
        cv2.fillConvexPoly(silhouette, np.round(cv2.convexHull(p.astype(np.float32)) - origin).astype(np.int32), 1)
    u = (math.cos(0.2), math.sin(0.2))
    seen = [truths[0].moved(2.5 * u[0], 2.5 * u[1], 0.05), truths[1].moved(-2.5 * u[0], -2.5 * u[1], -0.05)]
    axes = SilhouetteFitter(CAMERA, DIE_MM, silhouette, origin)
    fit = axes.fit_flat(list(seen))
    for found, truth in zip(fit.poses, truths):
        assert math.hypot(found.x - truth.x, found.y - truth.y) < 1.0
    every = SilhouetteFitter(CAMERA, DIE_MM, silhouette, origin)
    poses = [p._replace(tilt=0.0, base=0.0) for p in seen]
    for _ in range(2):
        for i in range(2):
            every.refine(poses, i, 0.12 * DIE_MM, math.radians(6))  # the default: all 26 neighbours, two rounds
    assert fit.iou >= every.iou(tuple(poses)) - 0.01 and fit.iou > 0.9
    assert len(axes._scores) < len(every._scores)


def test_interpenetration_kept_by_pair_is_the_sum_a_fresh_fitter_makes():
    """A search moves one die at a time, so the fitter keeps each pair's overlap (`_pairs`): the sum it gives for three
    dice, after other searches asked for pairs they share, is the number a fitter asked first gives, bit for bit."""
    silhouette = np.zeros((50, 50), np.uint8)
    lying = [DiePose(400.0, 250.0, 0.2), DiePose(416.0, 252.0, 0.5), DiePose(405.0, 266.0, -0.3)]
    warmed = SilhouetteFitter(CAMERA, DIE_MM, silhouette, (0, 0))
    for k in range(2):
        for dx in (-1.5, 0.0, 1.5):
            moved = list(lying)
            moved[k] = lying[k].moved(dx, 0.0, 0.0)
            warmed.interpenetration(tuple(moved))
    for poses in (tuple(lying), (lying[0], lying[2]), (lying[1], lying[0]._replace(tilt=0.3), lying[2])):
        fresh = SilhouetteFitter(CAMERA, DIE_MM, silhouette, (0, 0)).interpenetration(poses)
        assert warmed.interpenetration(poses) == fresh
    assert fresh > 0.0  # dice lying over each other: the test measures something
