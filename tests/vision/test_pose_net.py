"""The pose network's input: crops turned so that "away from the camera" is up, and the view tangent."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.pose_net import POSE_PX, View, pose_crop, to_blob


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
