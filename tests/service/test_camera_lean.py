"""The camera of a dice table leaning more off straight down than the reader was validated for (vision/camera_check.py):
refused at start unless the config says it was checked, and told with every start (the calibration notice)."""

from __future__ import annotations

import numpy as np
import pytest

from drivers.errors import DeviceError
from firmware_host.evidence import EvidenceStore
from vision.calibration import calibrate
from vision.synthetic import render
from vision.synthetic_scenes import camera_leaning

from .camera_table import refused_unless_checked
from .throw_replay import rendered_replay
from .throwing_camera import ThrowingCamera


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    return rendered_replay(tmp_path_factory.mktemp("replay"), seed=2, throws=1)


def leaning_calibration(replay, path, degrees=4.0):
    """The replay's table under its camera leaning `degrees`, calibrated on its empty table; that frame too."""
    rig, rng = camera_leaning(replay.rig, degrees, 0.7), np.random.default_rng(12)
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    calibrate(empty, rig.layout, float(rig.camera.position[2])).save(path, empty_table=empty)
    return empty


def test_a_camera_leaning_beyond_what_the_reader_was_validated_for_refuses_to_start_unless_its_config_says(
        tmp_path, replay):
    """Leaning 3-6 degrees the pose network takes more cocked dice for flat than at 2 degrees or less (the network
    before took 1.7 times as many on tune seed 9451, and published one at 4.5 degrees: docs/vision.md). The table
    refuses to start, naming the lean and the setting; `[table] camera_unvalidated_tilt = true` (checked since) lets
    it start."""
    path = tmp_path / "leaning.json"
    leaning_calibration(replay, path)
    table = refused_unless_checked(tmp_path, path, "unvalidated_tilt_ok",
                                   "the camera leans 4.0 degrees off straight down", "camera_unvalidated_tilt = true")
    assert table.camera.calibration_notice.detail["camera_tilt_deg"] == pytest.approx(4.0, abs=0.15)


@pytest.mark.parametrize("checked", [False, True])
def test_the_table_s_config_says_whether_its_leaning_camera_was_checked(tmp_path, replay, checked):
    """`[table] camera_unvalidated_tilt` (docs/config.md) reaches the camera from the config file."""
    from firmware_host.config import load_config
    from firmware_host.service import TableService

    from .table_run import table_config

    path = tmp_path / "leaning.json"
    empty = leaning_calibration(replay, path)
    config = table_config(tmp_path, "craps", "mqtt://127.0.0.1:1", name="leaning.toml", sections={
        "table": {"id": "lean-1", "camera_calibration": str(path), "camera_unvalidated_tilt": checked},
        "devices": {"camera": {"kind": "v4l2", "device": "throwing-camera", "fps": 30.0}}})
    service = TableService(load_config(config), str(config), capture_factory=ThrowingCamera(empty))
    evidence = EvidenceStore(tmp_path / "storage", 7)
    if checked:
        table, _ = service.devices(evidence)
        assert table.camera is not None
    else:
        with pytest.raises(DeviceError, match="camera_unvalidated_tilt = true"):
            service.devices(evidence)
