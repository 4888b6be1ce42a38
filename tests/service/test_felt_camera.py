"""The camera of a dice table on a felt the reader was not validated on (vision/felt_check.py): refused at start unless
the config says the felt was checked, and its reads declined when the live table shows such a felt."""

from __future__ import annotations

import numpy as np
import pytest

from drivers.errors import DeviceError
from firmware_host.evidence import EvidenceStore
from firmware_host.rounds.inputs import DeviceHealthChanged
from vision.calibration import Calibration
from vision.synthetic import render

from .camera_table import Table, refused_unless_checked
from .throw_replay import rendered_replay
from .throwing_camera import ThrowingCamera, wait_for


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    return rendered_replay(tmp_path_factory.mktemp("replay"), seed=2, throws=1)  # a throw the reader is sure of


def grey_rig(replay, grey=(96, 96, 96)):
    return replay.rig.on_felt(grey, "grey")


def on_neutral_felt(replay) -> list[np.ndarray]:
    """The replay's table under its camera with its felt made grey: still frames of the empty table."""
    rig, rng = grey_rig(replay), np.random.default_rng(11)
    lit = rig.scene([], rng)
    return [render(lit, rng)[0] for _ in range(4)]


def thrown_on_neutral_felt(replay):
    """A valid throw on that grey table."""
    from vision.synthetic_scenes import random_scene
    from vision.throw_motion import render_throw

    rig, rng = grey_rig(replay), np.random.default_rng(14)
    return render_throw(rig, random_scene(rig, "valid", rng), rng, before=3, seconds=1.0, still=6)


def test_a_table_on_a_felt_the_reader_was_never_validated_on_refuses_to_start_unless_its_config_says(tmp_path, replay):
    """A grey felt: the pose network never saw one, and on the unseen looks' grey felt it took dice tipped towards the
    camera for flat in 42% of throws (docs/vision.md, twenty-seventh session). The table refuses to start, naming the
    felt and the setting; `[table] camera_unvalidated_felt = true` (the felt checked since) lets it start."""
    grey = on_neutral_felt(replay)[0]
    path = tmp_path / "grey.json"
    Calibration.load(replay.calibration).save(path, empty_table=grey)
    table = refused_unless_checked(tmp_path, path, "unvalidated_felt_ok",
                                   "more neutral than any the pose network was trained and checked on",
                                   "camera_unvalidated_felt = true")
    assert table.camera._felt is None


def test_a_felt_turned_neutral_under_a_running_camera_declines_its_reads(tmp_path, replay):
    """The calibration photo is of a coloured felt, the table now shows a grey one (re-clothed, or a photo not of this
    table): the model no longer fits, is replaced while bets are open, and its felt is checked. The camera is
    `degraded` saying why, and the next throw is declined (void `uncertain`), not read."""
    t = Table(tmp_path, replay.calibration, on_neutral_felt(replay))
    health = lambda: [(i.health, i.message) for i in t.items if isinstance(i, DeviceHealthChanged)]  # noqa: E731
    with t:
        t.table.phase_changed("betting", 2, 1)
        assert wait_for(lambda: t.table.camera.empty_table.version == 2, 30)
        assert wait_for(lambda: health() and health()[-1][0] == "degraded", 10)
        assert "the felt is not one the reader was validated on" in health()[-1][1]
        t.throw(thrown_on_neutral_felt(replay))
        assert wait_for(lambda: t.seen(), 30)
    seen = t.seen()[0]
    assert seen.faces is None and seen.void_reason == "uncertain"
    assert "the felt is not one the reader was validated on" in seen.detail["detail"]


@pytest.mark.parametrize("checked", [False, True])
def test_the_table_s_config_says_whether_its_neutral_felt_was_checked(tmp_path, replay, checked):
    """`[table] camera_unvalidated_felt` (docs/config.md) reaches the camera from the config file."""
    from firmware_host.config import load_config
    from firmware_host.service import TableService

    from .table_run import table_config

    path = tmp_path / "grey.json"
    Calibration.load(replay.calibration).save(path, empty_table=on_neutral_felt(replay)[0])
    config = table_config(tmp_path, "craps", "mqtt://127.0.0.1:1", name="grey.toml", sections={
        "table": {"id": "grey-1", "camera_calibration": str(path), "camera_unvalidated_felt": checked},
        "devices": {"camera": {"kind": "v4l2", "device": "throwing-camera", "fps": 30.0}}})
    service = TableService(load_config(config), str(config), capture_factory=ThrowingCamera(replay.empty))
    evidence = EvidenceStore(tmp_path / "storage", 7)
    if checked:
        table, _ = service.devices(evidence)
        assert table.camera is not None and table.camera.unvalidated_felt_ok
    else:
        with pytest.raises(DeviceError, match="camera_unvalidated_felt = true"):
            service.devices(evidence)


def test_a_calibration_photo_edited_to_a_coloured_felt_passes_the_start_not_the_throw(tmp_path, replay):
    """The table is grey; its calibration photo was edited to look coloured (red up, blue down: the same grey levels,
    so the empty-table model still fits the table). The start passes on the photo; the throw, thrown before any new
    model, is declined: the felt is looked at on the first frame of each rest of the dice (before, it was published
    valid, faces (4, 2))."""
    live = on_neutral_felt(replay)
    edited = live[0].astype(np.int16)
    edited[..., 2] += 30
    edited[..., 0] -= 30
    path = tmp_path / "edited.json"
    Calibration.load(replay.calibration).save(path, empty_table=np.clip(edited, 0, 255).astype(np.uint8))
    with Table(tmp_path, path, live) as t:
        assert t.table.camera._felt is None  # the photo passed
        t.throw(thrown_on_neutral_felt(replay))
        assert wait_for(lambda: t.seen(), 30)
    seen = t.seen()[0]
    assert seen.faces is None and seen.void_reason == "uncertain"
    assert "the felt is not one the reader was validated on" in seen.detail["detail"]
