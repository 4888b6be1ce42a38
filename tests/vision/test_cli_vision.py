"""`tablehw vision read | eval | calibrate | render` end to end, with real files."""

from __future__ import annotations

import hashlib
import json
import shutil

import cv2
import numpy as np

from firmware_host.cli import main
from vision.calibration import detect_markers
from vision.dataset import DEVELOPMENT, split_of


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_render_calibrate_read_json_and_evidence(tmp_path, capsys):
    frame, empty = tmp_path / "throw.png", tmp_path / "empty.png"
    code, out, _ = run(capsys, "vision", "render", "--game", "craps", "--kind", "valid", "--seed", "4",
                       "--out", str(frame), "--empty", str(empty))
    assert code == 0
    truth = json.loads(out)
    cal = tmp_path / "cal.json"
    code, out, _ = run(capsys, "vision", "calibrate", str(empty), "--out", str(cal), "--game", "craps",
                       "--camera-height", str(truth["camera_height_mm"]))
    assert code == 0 and cal.is_file() and (tmp_path / "cal.png").is_file()
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (cal, tmp_path / "cal.empty.png")]
    assert f"sha256 {digests[0]}, empty-table photo sha256 {digests[1]}: record them" in out  # what starts publish
    code, out, _ = run(capsys, "vision", "read", str(frame), "--calibration", str(cal), "--game", "craps",
                       "--background", str(empty), "--json", "--evidence", str(tmp_path / "evidence"))
    assert code == 0
    doc = json.loads(out)
    assert set(doc) >= {"image", "dice", "verdict", "reason", "ms"}
    assert doc["image"] == str(frame) and doc["verdict"] in ("valid", "void")
    for d in doc["dice"]:
        assert set(d) >= {"value", "x", "y", "w", "h", "confidence", "pose"}
    assert len(doc["dice"]) == len(truth["dice"])
    read = [d["value"] for d in doc["dice"] if d["pose"] != "uncertain"]
    assert all(v in [t["value"] for t in truth["dice"]] for v in read), "a confident misread"
    if doc["verdict"] == "valid":
        assert doc["reason"] is None and sorted(read) == sorted(t["value"] for t in truth["dice"])
    else:
        # A decline, or a die the pose network took for stacked or cocked (about 2% of flat dice on the
        # tune looks, docs/vision.md): a void, never a value published.
        assert doc["reason"] in ("uncertain", "stacked", "cocked")
    evidence = cv2.imread(doc["evidence"])
    assert evidence is not None and evidence.shape == cv2.imread(str(frame)).shape


def test_read_without_calibration_refuses_a_table_with_markers(tmp_path, capsys):
    """Its ArUco markers would be read as dice: refused, naming them and what to do, nothing read."""
    frame = tmp_path / "t.png"
    run(capsys, "vision", "render", "--game", "banca-francesa", "--seed", "2", "--out", str(frame))
    code, out, err = run(capsys, "vision", "read", str(frame), str(frame))
    assert code == 2 and out == ""
    assert "t.png: shows the table's calibration markers (ArUco [0, 1, 2, 3])" in err and "--calibration" in err


def test_read_without_calibration_reads_an_image_without_markers(tmp_path, capsys):
    frame = tmp_path / "t.png"
    run(capsys, "vision", "render", "--game", "banca-francesa", "--seed", "2", "--out", str(frame))
    image = cv2.imread(str(frame))
    for corners in detect_markers(image).values():  # the same table with its markers painted over
        cv2.fillPoly(image, [corners.astype(np.int32)], (40, 90, 40))
    cv2.imwrite(str(frame), image)
    code, out, _ = run(capsys, "vision", "read", str(frame), str(frame))
    assert code == 0
    assert out.count("t.png: ") == 2


def test_missing_image_is_a_clear_error(tmp_path, capsys):
    code, _, err = run(capsys, "vision", "read", str(tmp_path / "nope.png"))
    assert code == 2 and "nope.png: no such file" in err


def test_not_an_image_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.png"
    bad.write_text("hello")
    code, _, err = run(capsys, "vision", "read", str(bad))
    assert code == 2 and "not an image" in err


def test_calibrate_without_markers_names_them(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 90, np.uint8))
    code, _, err = run(capsys, "vision", "calibrate", str(blank), "--out", str(tmp_path / "c.json"))
    assert code == 2 and "markers not found: [0, 1, 2, 3]" in err
    assert not (tmp_path / "c.json").exists()


def test_eval_scores_a_labelled_folder(tmp_path, capsys, dice_photos):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    names = [p.stem for p in sorted((dice_photos / "images").iterdir()) if split_of(p.name) == DEVELOPMENT][:3]
    for n in names:
        shutil.copy(dice_photos / "images" / f"{n}.jpg", tmp_path / "images")
        shutil.copy(dice_photos / "labels" / f"{n}.txt", tmp_path / "labels")
    code, out, err = run(capsys, "vision", "eval", "--dataset", str(tmp_path), "--json")
    assert code == 0
    assert [line.split(" (")[0] for line in err.splitlines()] == [f"scored {n}/3 images" for n in (1, 2, 3)]
    doc = json.loads(out)
    s = doc["splits"]["all"]
    assert s["images"] == 3 and s["dice"] > 0
    for key in ("accuracy", "confident_misread_rate", "declined_rate", "images_fully_right"):
        assert 0.0 <= s[key] <= 1.0


def test_eval_of_a_bad_label_names_the_line(tmp_path, capsys):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"), np.full((64, 64, 3), 128, np.uint8))
    (tmp_path / "labels" / "a.txt").write_text("0 0.5 0.5 0.1 0.1\n9 0.5 0.5 0.1 0.1\n")
    code, _, err = run(capsys, "vision", "eval", "--dataset", str(tmp_path))
    assert code == 2 and "a.txt:2" in err and "class 9" in err


def test_calibrate_on_a_neutral_felt_warns_that_the_table_will_refuse_it(tmp_path, capsys):
    """The calibration (the geometry) is written; the warning says the service refuses the felt, and what lets it
    start (vision/felt_check.py)."""
    from vision.synthetic import render
    from vision.synthetic_scenes import random_rig

    rng = np.random.default_rng(3)
    rig = random_rig("craps", rng)
    rig = rig.on_felt((96, 96, 96), "grey")
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    photo, cal = tmp_path / "grey.png", tmp_path / "grey.json"
    cv2.imwrite(str(photo), empty)
    code, out, err = run(capsys, "vision", "calibrate", str(photo), "--out", str(cal), "--game", "craps",
                         "--camera-height", str(float(rig.camera.position[2])))
    assert code == 0 and cal.is_file()
    assert "warning: the felt's colour" in err and "camera_unvalidated_felt = true" in err


def test_calibrate_tells_the_camera_s_lean_and_warns_when_the_table_will_refuse_it(tmp_path, capsys):
    """The calibration is written either way; a camera leaning more than the reader was validated for (vision/
    camera_check.py) is warned of, with what lets the table start."""
    from vision.synthetic import render
    from vision.synthetic_scenes import camera_leaning, random_rig

    rng = np.random.default_rng(3)
    straight = random_rig("craps", rng)
    for name, rig in (("straight", straight), ("leaning", camera_leaning(straight, 5.0, 2.0))):
        empty, _ = render(rig.scene([], rng, clean=True), rng)
        photo, cal = tmp_path / f"{name}.png", tmp_path / f"{name}.json"
        cv2.imwrite(str(photo), empty)
        code, out, err = run(capsys, "vision", "calibrate", str(photo), "--out", str(cal), "--game", "craps",
                             "--camera-height", str(float(rig.camera.position[2])))
        assert code == 0 and cal.is_file()
        if name == "straight":
            assert f"camera {straight.camera.off_vertical_deg:.1f} degrees off straight down" in out and not err
        else:
            assert "camera 5.0 degrees off straight down" in out
            assert "warning: the camera leans 5.0 degrees" in err and "camera_unvalidated_tilt = true" in err
