"""What the dice camera reads with, told off the Pi at every start: the SHA-256 of its calibration file and of the
empty-table photo beside it (a `device` event, notice `camera_calibration`, docs/mqtt.md). The Pi's disk can be
edited, and some edits no check on the Pi can see; the back office, which knows the calibration approved for the table,
sees another one the first time the table starts on it."""

from __future__ import annotations

import hashlib
import json
import logging

import cv2
import pytest

from firmware_host.rounds.inputs import DeviceNotice
from vision.calibration import Calibration

from .camera_table import Table
from .engine_harness import feed, make_engine, sent
from .throw_replay import rendered_replay


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    return rendered_replay(tmp_path_factory.mktemp("replay"), seed=2, throws=1)


def sha256_of(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def start_notice(tmp_path, calibration, empty) -> DeviceNotice:
    with Table(tmp_path, calibration, empty) as t:
        pass
    notices = [i for i in t.items if isinstance(i, DeviceNotice)]
    assert [n.kind for n in notices] == ["camera_calibration"], notices
    return notices[0]


def test_every_start_tells_the_floor_the_calibration_and_photo_it_reads_with(tmp_path, replay, caplog):
    notice = start_notice(tmp_path / "a", replay.calibration, replay.empty)
    cal = Calibration.load(replay.calibration)
    photo = replay.calibration.with_name("camera.empty.png")
    assert notice.device == "camera"
    assert notice.detail == {
        "sha256": sha256_of(replay.calibration), "empty_table_sha256": sha256_of(photo), "layout": "craps",
        "image_size": [1280, 720], "error_mm": round(cal.error_mm, 3), "camera_height_mm": cal.camera_height_mm,
        "camera_tilt_deg": round(cal.camera.off_vertical_deg, 2)}  # how far it leans off straight down
    assert sha256_of(replay.calibration)[:16] in notice.message and "approved" in notice.message
    engine = make_engine(tmp_path / "engine")
    with caplog.at_level(logging.INFO, logger="firmware_host.rounds.engine"):
        feed(engine, notice)
    logged = [r for r in caplog.records if "camera_calibration" in r.getMessage()]
    assert [r.levelno for r in logged] == [logging.INFO]  # a record of every start, not a fault: no warning
    event = [e for _, e in sent(engine, "/events") if e["kind"] == "device"][-1]
    assert (event["detail"]["notice"], event["detail"]["sha256"]) == ("camera_calibration", sha256_of(replay.calibration))
    assert event["detail"]["empty_table_sha256"] == sha256_of(photo)


def test_a_calibration_edited_where_no_check_on_the_pi_can_see_starts_under_another_digest(tmp_path, replay):
    """The middle line moved 30 mm in the file: the markers are where the photo shows them and the felt is the felt,
    so the table starts (its camera connected); only the digest it starts under tells. The photo re-saved (same
    picture, other bytes) is told too."""
    approved = start_notice(tmp_path / "a", replay.calibration, replay.empty).detail
    folder = tmp_path / "edited"
    folder.mkdir()
    doc = json.loads(replay.calibration.read_text())
    doc["layout"]["middle"][0][0] += 30.0
    doc["layout"]["middle"][1][0] += 30.0
    (folder / "camera.json").write_text(json.dumps(doc))
    photo = cv2.imread(str(replay.calibration.with_name("camera.empty.png")))
    assert cv2.imwrite(str(folder / "camera.empty.png"), photo, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    edited = start_notice(tmp_path / "b", folder / "camera.json", replay.empty).detail
    assert edited["sha256"] == sha256_of(folder / "camera.json") != approved["sha256"]
    assert edited["empty_table_sha256"] == sha256_of(folder / "camera.empty.png") != approved["empty_table_sha256"]
    assert {k: v for k, v in edited.items() if "sha256" not in k} == \
        {k: v for k, v in approved.items() if "sha256" not in k}  # all else the same: the digests are what tells
