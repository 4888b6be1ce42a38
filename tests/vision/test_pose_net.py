"""The pose network's input: crops turned so that "away from the camera" is up, and the view tangent."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision import pose_net
from vision.pose_net import DOUBTFUL_FLAT, POSE_PX, PoseNet, View, looked_again, pose_crop, to_blob
from vision.read_checks import FLAT_ALONE, TOUCHING_FLAT
from vision.synthetic import render
from vision.synthetic_scenes import random_scene


def test_the_view_of_a_calibrated_camera_is_the_point_under_it(craps_rig):
    rig, _, cal = craps_rig
    view = View.of(cal, rig.camera.width, rig.camera.height)
    cam = rig.camera
    u, v = cam.project(np.array([[cam.position[0], cam.position[1], 0.0]]))[0]
    # The calibration's camera is estimated from the markers: within a pixel of the rig's.
    assert (view.nadir_x, view.nadir_y) == pytest.approx((u, v), abs=1.0)
    assert view.focal_px == pytest.approx(cam.focal_px, rel=0.02)
    # A point on the table 0.3 camera heights from the foot of the camera is seen under a tangent of about 0.3.
    x, y = cam.position[0] + 0.3 * cam.position[2], cam.position[1]
    px = cam.project(np.array([[x, y, 0.0]]))[0]
    assert view.outward(*px)[1] == pytest.approx(0.3, abs=0.03)


def test_without_a_camera_the_view_is_from_above_the_image_centre():
    view = View.of(None, 1280, 720)
    assert (view.nadir_x, view.nadir_y, view.focal_px) == (640.0, 360.0, 1280.0)


@pytest.mark.parametrize("direction", [0, 45, 90, 180, 250, 315])
def test_the_crop_puts_the_side_away_from_the_camera_upwards(direction):
    """A bright spot just beyond a die on the far side from the camera's foot lands above the crop centre."""
    frame = np.zeros((720, 1280, 3), np.uint8)
    view = View(640.0, 360.0, 1000.0)
    a = math.radians(direction)
    x, y = 640 + 200 * math.cos(a), 360 + 200 * math.sin(a)
    spot = (int(round(x + 20 * math.cos(a))), int(round(y + 20 * math.sin(a))))
    frame[spot[1] - 2:spot[1] + 3, spot[0] - 2:spot[0] + 3] = 255
    img, tan = pose_crop(frame, x, y, 24.0, view)
    ys, xs = np.nonzero(img[..., 0] > 100)
    assert len(ys), "the spot is inside the crop"
    assert ys.mean() < POSE_PX / 2 - 8 and abs(xs.mean() - POSE_PX / 2) < 3
    assert tan == pytest.approx(0.2)


def test_the_blob_has_a_fourth_plane_with_the_tangent():
    crops = np.full((2, POSE_PX, POSE_PX, 3), 255, np.uint8)
    blob = to_blob(crops, [0.0, 0.25])
    assert blob.shape == (2, 4, POSE_PX, POSE_PX)
    assert np.allclose(blob[:, :3], 0.5)
    assert np.allclose(blob[0, 3], -0.5) and np.allclose(blob[1, 3], 0.0)


def test_only_dice_found_flat_but_not_surely_are_looked_at_again():
    low, high = DOUBTFUL_FLAT
    p_flat = np.array([low - 0.01, low, 0.9, high - 0.001, high, 1.0, 0.2])
    probs = np.stack([p_flat, 1.0 - p_flat, 0 * p_flat, 0 * p_flat, 0 * p_flat], axis=1)
    assert looked_again(probs).tolist() == [1, 2, 3]


def test_every_die_the_reader_could_read_flat_is_in_the_band_looked_at_again():
    """The band starts no higher than the least P(flat) a die is read at (alone or touching another): a die read on
    a P(flat) the hue-turned crops were never asked about would be the case the second look is for."""
    assert DOUBTFUL_FLAT[0] <= min(FLAT_ALONE, TOUCHING_FLAT) < DOUBTFUL_FLAT[1] <= 1.0


def test_a_die_looked_at_again_takes_the_less_flat_of_its_crop_and_the_hue_turned_mean(craps_rig, monkeypatch):
    """The committed network on a rendered craps table: with every die in the band, each die's probabilities are its
    crop's own or the mean of its crop and the crop with its colour channels turned (B, G, R -> G, R, B and R, B, G),
    whichever finds it less flat; outside the band, its crop's own."""
    rig, _, cal = craps_rig
    rng = np.random.default_rng(7)
    frame, truth = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
    view = View.of(cal, frame.shape[1], frame.shape[0])
    centres = [(t.x, t.y) for t in truth]
    net = PoseNet()
    pairs = [pose_crop(frame, x, y, cal.die_px, view) for x, y in centres]
    crops, tans = np.stack([c for c, _ in pairs]), np.array([t for _, t in pairs], np.float32)
    own = net.probabilities(crops, tans)
    turned = [net.probabilities(crops[..., list(order)], tans) for order in ((1, 2, 0), (2, 0, 1))]
    mean = (own + turned[0] + turned[1]) / 3.0
    expected = np.where((mean[:, 0] < own[:, 0])[:, None], mean, own)
    assert (mean[:, 0] < own[:, 0]).any() and (mean[:, 0] >= own[:, 0]).any(), "this frame has dice of both kinds"

    monkeypatch.setattr(pose_net, "DOUBTFUL_FLAT", (0.0, 1.01))
    looked = net.poses(frame, centres, cal.die_px, view)
    assert np.allclose(looked, expected, atol=1e-6)
    assert np.allclose(looked.sum(axis=1), 1.0, atol=1e-5)
    assert not np.allclose(turned[0], own, atol=1e-3), "the turned crops are other inputs"

    monkeypatch.setattr(pose_net, "DOUBTFUL_FLAT", (2.0, 2.0))  # nobody in the band
    assert np.allclose(net.poses(frame, centres, cal.die_px, view), own, atol=1e-6)
