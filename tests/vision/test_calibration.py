"""Calibration from four ArUco markers on rendered tables: table millimetres within 2 mm."""

from __future__ import annotations

import hashlib
import json

import cv2
import numpy as np
import pytest

from vision.calibration import Calibration, annotate, calibrate
from vision.errors import CalibrationError
from vision.layouts import layout_for
from vision.synthetic import render
from vision.synthetic_scenes import random_rig


@pytest.mark.parametrize("game", ["craps", "banca-francesa", "cussec", "paikao"])
def test_table_millimetres_within_2_mm_on_rendered_frames(game):
    rng = np.random.default_rng(7)
    for _ in range(3):
        rig = random_rig(game, rng)
        frame, _ = render(rig.scene([], rng), rng)
        cal = calibrate(frame, rig.layout)
        w, h = rig.layout.felt_mm
        pts = np.column_stack([rng.uniform(0, w, 300), rng.uniform(0, h, 300), np.zeros(300)])
        back = cal.points_to_table(rig.camera.project(pts))
        error = np.hypot(*(back - pts[:, :2]).T)
        assert error.max() <= 2.0, f"{game}: worst table error {error.max():.2f} mm"
        assert cal.error_mm < 1.0


def test_camera_height_gives_the_camera_pose(craps_rig):
    rig, _, cal = craps_rig
    cam = cal.camera
    assert cam is not None
    pts = np.array([[100.0, 100.0, 0.0], [600.0, 300.0, 19.0], [350.0, 190.0, 38.0]])
    assert np.abs(cam.project(pts) - rig.camera.project(pts)).max() < 1.0


def test_missing_markers_are_named(craps_rig):
    _, empty, _ = craps_rig
    covered = empty.copy()
    covered[: empty.shape[0] // 2, : empty.shape[1] // 2] = 40  # hide the top-left marker
    with pytest.raises(CalibrationError, match=r"markers not found: \[0\].*marker 0 expected at .*grey levels"):
        calibrate(covered, layout_for("craps"))


@pytest.mark.parametrize("shape", [(12, 640, 3), (720, 8200, 3)])
def test_a_photo_of_a_size_no_calibration_file_can_hold_is_refused_before_any_search(shape):
    """A calibration file's image size is bounded (16-8192 px a side, `Calibration.load`): a photo outside it is
    refused up front, not searched for markers (the whole-photo search grows with the photo: 11 s at 3840x2160)
    and then saved as a file the service refuses."""
    with pytest.raises(CalibrationError, match=rf"the photo is {shape[1]}x{shape[0]}: .* 16-8192 pixels a side"):
        calibrate(np.zeros(shape, np.uint8), layout_for("craps"))


def test_saved_calibration_loads_the_same(tmp_path, craps_rig):
    _, _, cal = craps_rig
    path = tmp_path / "cal.json"
    cal.save(path)
    doc = json.loads(path.read_text())
    for key in ("homography", "table_polygon_px", "middle_px", "walls_px", "die_px", "layout", "camera_height_mm"):
        assert key in doc
    back = Calibration.load(path)
    assert np.allclose(back.homography, cal.homography)
    assert back.to_table(640, 360) == pytest.approx(cal.to_table(640, 360))
    assert back.camera_height_mm == cal.camera_height_mm


def test_the_empty_table_is_kept_beside_the_calibration(tmp_path, craps_rig):
    _, empty, cal = craps_rig
    saved = cal.save(tmp_path / "cam.json", empty_table=empty)
    assert saved.empty_table == tmp_path / "cam.empty.png"
    back = Calibration.load(tmp_path / "cam.json")
    assert back.empty_table == saved.empty_table
    assert np.array_equal(back.empty_table_frame(), empty)  # PNG: lossless
    with pytest.raises(CalibrationError, match="empty-table frame is 640x360"):
        cal.save(tmp_path / "small.json", empty_table=cv2.resize(empty, (640, 360)))
    (tmp_path / "cam.empty.png").unlink()
    with pytest.raises(CalibrationError, match="missing or unreadable"):
        back.empty_table_frame()
    assert not (tmp_path / "small.json").exists()  # refused before anything was written


# A calibration file as `save` writes it, but for what each case below changes (an edited file).
GOOD = ('{"version": 1, "image_size": [1280, 720], "homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], '
        '"layout": %s}' % json.dumps(layout_for("craps").as_json()))


@pytest.mark.parametrize("text, message", [
    ("not json", "not JSON"),
    (b"\xff\xfe{}", "not JSON"),  # not UTF-8 (an editor's UTF-16, a damaged card): named, not a traceback
    ('{"version": 2}', "version must be 1"),
    ('{"version": 1, "image_size": [1280, 720]}', "missing or malformed key"),
    (GOOD.replace('"image_size": [1280, 720]', '"image_size": [1280, 7200000]'), "image_size must be 16-8192"),
    (GOOD.replace('"image_size": [1280, 720]', '"image_size": [-1280, 720]'), "image_size must be 16-8192"),
    (GOOD.replace('[[1, 0, 0], [0, 1, 0], [0, 0, 1]]', '[[1, 2, 0], [2, 4, 0], [0, 0, 1]]'), "singular"),
])
def test_bad_calibration_files_are_refused_with_the_reason(tmp_path, text, message):
    (tmp_path / "good.json").write_text(GOOD)
    assert Calibration.load(tmp_path / "good.json").image_size == (1280, 720)  # what the cases change is all
    path = tmp_path / "cal.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(CalibrationError, match=message):
        Calibration.load(path)


def test_a_loaded_calibration_knows_the_sha256_of_the_bytes_it_was_made_from(tmp_path, craps_rig):
    """The digests the service publishes at every start (firmware_host/dice_camera.py, `camera_calibration`): of the
    file as read, and of the photo's bytes the reader's first empty-table model is decoded from."""
    _, empty, cal = craps_rig
    assert cal.sha256 is None  # made here, not loaded
    cal.save(tmp_path / "cam.json", empty_table=empty)
    back = Calibration.load(tmp_path / "cam.json")
    assert back.sha256 == hashlib.sha256((tmp_path / "cam.json").read_bytes()).hexdigest()
    frame, photo_sha256 = back.empty_table_photo()
    assert photo_sha256 == hashlib.sha256((tmp_path / "cam.empty.png").read_bytes()).hexdigest()
    assert np.array_equal(frame, empty)
    doc = json.loads((tmp_path / "cam.json").read_text())
    doc["layout"]["middle"][0][0] += 30.0  # the middle line moved 30 mm: geometry no marker check can see
    (tmp_path / "cam.json").write_text(json.dumps(doc, indent=2) + "\n")
    edited = Calibration.load(tmp_path / "cam.json")
    assert edited.sha256 != back.sha256
    assert edited.layout.middle != back.layout.middle and edited.empty_table_photo()[1] == photo_sha256
    assert Calibration(cal.layout, cal.image_size, cal.homography, cal.error_mm).empty_table_photo() is None


def test_annotated_image_draws_the_layout(craps_rig):
    _, empty, cal = craps_rig
    out = annotate(empty, cal)
    assert out.shape == empty.shape
    assert np.count_nonzero(cv2.absdiff(out, empty)) > 1000


def test_dome_circle_is_stored_for_dome_games():
    rng = np.random.default_rng(3)
    rig = random_rig("cussec", rng)
    frame, _ = render(rig.scene([], rng, clean=True), rng)
    cal = calibrate(frame, rig.layout)
    (cx, cy), r = cal.dome_px()
    (mx, my), rmm = rig.layout.dome
    px, py = rig.camera.project(np.array([[mx, my, 0.0]]))[0]
    assert abs(cx - px) < 1.5 and abs(cy - py) < 1.5
    assert r == pytest.approx(rmm * cal.px_per_mm_at(mx, my), rel=0.03)
