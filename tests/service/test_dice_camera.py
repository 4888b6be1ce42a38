"""The dice camera of a table on its devices: declines without an empty-table model, keeps taking frames while
a read is slow, refreshes the model while bets are open and never from dice lying there."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from drivers.errors import DeviceError
from firmware_host.evidence import EvidenceStore
from firmware_host.hardware import HardwareTable
from firmware_host.rounds.inputs import DeviceHealthChanged, DeviceNotice
from vision.calibration import Calibration
from vision.evidence import BANNER_PX
from vision.reading import HELD, Blob

from .camera_table import SECTION, Table
from .engine_harness import feed, make_engine, sent
from .throw_replay import rendered_replay
from .throwing_camera import ThrowingCamera, wait_for

@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    return rendered_replay(tmp_path_factory.mktemp("replay"), seed=2, throws=1)  # a throw the reader is sure of


def test_a_dice_table_needs_its_calibration(tmp_path):
    with pytest.raises(DeviceError, match="camera_calibration"):
        HardwareTable(SECTION, "craps", EvidenceStore(tmp_path, 7))


def test_the_camera_logs_the_pinned_hash_of_each_network_it_reads_with(tmp_path, replay, caplog):
    """Which networks read a table's dice is in the log of every start: the SHA-256 of the very files read
    (hashed here from disk; that SHA256SUMS pins them is tests/vision/test_network_manifest.py's to check)."""
    weights = Path(__file__).parents[2] / "vision" / "weights"
    with caplog.at_level("INFO", logger="firmware_host.dice_camera"), Table(tmp_path, replay.calibration, replay.empty):
        pass
    for name in ("face_net.int8.onnx", "pose_net.int8.onnx"):
        assert f"{name} sha256 {hashlib.sha256((weights / name).read_bytes()).hexdigest()}" in caplog.text


def test_the_camera_runs_opencv_on_the_one_thread_the_bench_times(tmp_path, replay):
    """`make bench` times a read on one core (tests/bench/test_bench_vision.py, built by `vision_for` as here): the
    service runs OpenCV so, not with its own pool of a thread per core."""
    before = cv2.getNumThreads()
    cv2.setNumThreads(2)  # OpenCV's default on this 2-core machine
    try:
        with Table(tmp_path, replay.calibration, replay.empty):
            assert cv2.getNumThreads() == 1
    finally:
        cv2.setNumThreads(before)


def test_the_floor_is_told_where_the_reader_learned_a_lamp_and_the_engine_publishes_it(tmp_path, replay):
    """A place where a lamp is mirrored in the dice's top faces, once learned (vision/lamp_spots.py), declines every
    die lying there: the camera tells the floor where on the felt, and what ends it (a `device` event, notice
    `lamp_mirrored`, docs/mqtt.md)."""
    with Table(tmp_path, replay.calibration, replay.empty) as t:
        spots = t.table.camera.reader.lamp_spots
        spots.saw(640.0, 300.0, (632.0, 296.0, 10.0))
        spots.saw(641.0, 301.0, (650.0, 310.0, 40.0))  # seen on a second die lying elsewhere: learned
    notices = [i for i in t.items if isinstance(i, DeviceNotice)]
    assert [n.kind for n in notices] == ["camera_calibration", "lamp_mirrored"]  # the first: every start's
    notice = notices[1]
    cal = Calibration.load(replay.calibration)
    tx, ty = cal.to_table(640.0, 300.0)
    assert (notice.device, notice.kind) == ("camera", "lamp_mirrored")
    assert notice.detail == {"pixel": [640, 300], "table_mm": [round(tx), round(ty)]}
    assert "(640, 300)" in notice.message and "polarised" in notice.message
    engine = make_engine(tmp_path / "engine")
    feed(engine, notice)
    events = [e for _, e in sent(engine, "/events") if e["kind"] == "device"]
    assert events[-1]["detail"]["notice"] == "lamp_mirrored"
    assert events[-1]["detail"]["table_mm"] == [round(tx), round(ty)]


class ResizingCamera(ThrowingCamera):
    """The stand-in giving its frames at another size while `size` is set (a camera back at its default mode)."""

    size: tuple[int, int] | None = None

    def read(self):
        ok, image = super().read()
        return ok, image if self.size is None else cv2.resize(image, self.size)


def test_frames_of_another_size_than_the_calibration_s_make_the_camera_degraded_and_are_not_read(tmp_path, replay):
    """Frames of another size (the camera reopened in its default mode) were handed to vision: the calibration refused
    them in the camera thread, which died, and the table went on "connected" reading nothing. Now they are skipped, the
    camera is `degraded` saying both sizes, and once frames fit again it is `connected` and throws are read."""
    camera = ResizingCamera(replay.empty)
    camera.size = (960, 540)
    t = Table(tmp_path, replay.calibration, replay.empty, camera)
    health = lambda: [i for i in t.items if isinstance(i, DeviceHealthChanged)]  # noqa: E731
    with t:
        assert wait_for(lambda: len(health()) >= 2, 10)
        degraded = health()[1]
        assert degraded.health == "degraded" and "960x540" in degraded.message and "1280x720" in degraded.message
        taken = t.table.camera.frames_taken
        assert wait_for(lambda: t.table.camera.frames_taken >= taken + 10, 5), "the camera thread stopped"
        assert len(health()) == 2, "told once, not for every frame"
        t.camera.size = None
        assert wait_for(lambda: len(health()) >= 3, 5)
        assert health()[2].health == "connected"
        t.throw(replay.throws[0])
        assert wait_for(lambda: t.seen(), 30)
    assert t.seen()[0].faces is not None


class KnockedCamera(ThrowingCamera):
    """The stand-in seeing the table `shift` pixels off while it is set (the camera knocked on its mount)."""

    shift: tuple[float, float] | None = None

    def read(self):
        ok, image = super().read()
        if self.shift is None:
            return ok, image
        move = np.float32([[1, 0, self.shift[0]], [0, 1, self.shift[1]]])
        return ok, cv2.warpAffine(image, move, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def test_a_camera_knocked_off_its_calibration_declines_reads_until_it_is_put_back(tmp_path, replay, monkeypatch):
    """Knocked on its mount, the camera read on with a calibration that places every die where it is not (and a table
    that no longer looked like its model got a new one, following the camera). Now the markers are looked for between
    throws: found off their calibrated places, the camera is `degraded` and reads are declined; put back, it reads."""
    from firmware_host import dice_camera

    monkeypatch.setattr(dice_camera, "MARKERS_EVERY_S", 0.2)
    camera = KnockedCamera(replay.empty)
    camera.shift = (6.0, 4.0)  # 7 px: a sixth of a die edge here
    t = Table(tmp_path, replay.calibration, replay.empty, camera)
    health = lambda: [i for i in t.items if isinstance(i, DeviceHealthChanged)]  # noqa: E731
    with t:
        assert wait_for(lambda: any(h.health == "degraded" for h in health()), 10)
        told = [h for h in health() if h.health == "degraded"][0].message
        assert "the camera moved since its calibration" in told and "marker 0 7.2 px" in told
        t.table.phase_changed("betting", 1, 1)  # bets open: the table no longer looks like its model ...
        time.sleep(4.0)  # ... and the model was replaced within 2.5 s (5 frames 0.5 s apart), following the camera
        assert t.table.camera.empty_table.version == 1
        t.throw(replay.throws[0])
        assert wait_for(lambda: t.seen(), 30)
        declined = t.seen()[0]
        assert declined.faces is None and declined.void_reason == "uncertain"
        assert "camera moved" in declined.detail["detail"]
        camera.shift = None  # put back
        assert wait_for(lambda: health()[-1].health == "connected", 10)
        t.throw(replay.throws[0])
        assert wait_for(lambda: len(t.seen()) == 2, 30)
    assert sorted(t.seen()[1].faces) == sorted(d.top_value for d in replay.throws[0].rest)


def counted_looks(monkeypatch) -> list[bool]:
    """Every look at the markers from now on, told by whether it found them moved (MarkerWatch.check counted)."""
    from vision.camera_moved import MarkerWatch

    looks: list[bool] = []
    check = MarkerWatch.check

    def counted(self, image, quick=False):
        result = check(self, image, quick)
        looks.append(result.moved)
        return result

    monkeypatch.setattr(MarkerWatch, "check", counted)
    return looks


def test_no_new_model_follows_a_camera_knocked_between_looks_and_the_markers_are_looked_at_once(tmp_path, replay,
                                                                                              monkeypatch):
    """Knocked 7 px after the markers were last looked at, while bets are open: the table still looks like its model
    (7% of it differs), so its still frames refreshed the model, following the camera, until the next look. Now the
    markers are looked at whenever a new model may be completed, and only then (before, at every frame offered while
    the model did not fit: each look 10 ms, 180 ms with the markers covered, most of a Pi's vision worker): found
    moved, no model is made, the frames gathered are dropped, and nothing is offered while the camera is off."""
    from firmware_host import dice_camera

    monkeypatch.setattr(dice_camera, "MARKERS_EVERY_S", 3600.0)  # the first look only: the offers must look
    looks = counted_looks(monkeypatch)
    camera = KnockedCamera(replay.empty)
    t = Table(tmp_path, replay.calibration, replay.empty, camera)
    health = lambda: [i for i in t.items if isinstance(i, DeviceHealthChanged)]  # noqa: E731
    with t:
        assert wait_for(lambda: looks == [False], 10)  # the first look, done before the knock: in place
        camera.shift = (6.0, 4.0)
        t.table.phase_changed("betting", 1, 1)
        assert wait_for(lambda: any(h.health == "degraded" for h in health()), 10)
        assert "the camera moved since its calibration" in [h for h in health() if h.health == "degraded"][0].message
        time.sleep(2.0)  # four more offers, 0.5 s apart
        assert t.table.camera.empty_table.version == 1, "a model followed the camera"
        assert looks == [False, True], f"the markers were looked at {len(looks) - 1} times since the knock"


def test_a_camera_knocked_during_a_throw_declines_that_throw(tmp_path, replay, monkeypatch):
    """Knocked 7 px between the last look and the dice coming to rest, with no bets open in between (no model made,
    so nothing looked): the throw was read against a calibration that places its dice where they are not. Now the
    markers are looked at (quickly) on the first frame read of each rest: moved, the throw is declined and the camera
    `degraded`."""
    from firmware_host import dice_camera

    monkeypatch.setattr(dice_camera, "MARKERS_EVERY_S", 3600.0)  # the first look only
    looks = counted_looks(monkeypatch)
    camera = KnockedCamera(replay.empty)
    t = Table(tmp_path, replay.calibration, replay.empty, camera)
    health = lambda: [i for i in t.items if isinstance(i, DeviceHealthChanged)]  # noqa: E731
    with t:
        assert wait_for(lambda: looks == [False], 10)  # in place, before the knock
        camera.shift = (6.0, 4.0)
        t.throw(replay.throws[0])
        assert wait_for(lambda: t.seen(), 30)
        declined = t.seen()[0]
        assert declined.faces is None and declined.void_reason == "uncertain"
        assert "the camera moved since its calibration" in declined.detail["detail"]
        assert any(h.health == "degraded" and "camera moved" in h.message for h in health())
    assert looks == [False, True]  # the throw's look found it


class FailingOnceCamera(ThrowingCamera):
    """The stand-in whose capture fails once its own way (not a DeviceError: an error of the driver underneath)."""

    failed = False

    def read(self):
        if not self.failed and self.delivered >= 5:
            self.failed = True
            raise RuntimeError("VIDIOC_DQBUF: No such device")
        return super().read()


def test_a_capture_that_fails_its_own_way_is_lost_then_read_again(tmp_path, replay):
    """An error of the capture that is not a DeviceError ended the camera thread; now the camera is `lost` with it,
    `connected` at the next frame, and throws are read."""
    t = Table(tmp_path, replay.calibration, replay.empty, FailingOnceCamera(replay.empty))
    with t:
        health = lambda: [i for i in t.items if isinstance(i, DeviceHealthChanged)]  # noqa: E731
        assert wait_for(lambda: len(health()) >= 3, 5)  # connected (set up), lost, connected (frames again)
        assert [h.health for h in health()] == ["connected", "lost", "connected"]
        assert "VIDIOC_DQBUF" in health()[1].message
        t.throw(replay.throws[0])
        assert wait_for(lambda: t.seen(), 30), "the camera thread ended"
    assert t.seen()[0].faces is not None


def test_without_an_empty_table_model_the_read_is_declined(tmp_path, replay):
    bare = tmp_path / "bare.json"  # a calibration made before the empty table was kept beside it
    replace(Calibration.load(replay.calibration), empty_table=None).save(bare)
    assert Calibration.load(bare).empty_table is None
    health = lambda: [(i.health, i.message) for i in t.items if isinstance(i, DeviceHealthChanged)]  # noqa: E731
    with Table(tmp_path, bare, replay.empty) as t:
        t.throw(replay.throws[0])
        assert wait_for(lambda: t.seen(), 30)
        # the floor sees why in `state` too: the camera is degraded until a model is made while bets are open
        assert health()[-1][0] == "degraded" and "reads declined: no empty-table model" in health()[-1][1]
        t.camera.clear()
        t.table.phase_changed("betting", 2, 1)
        assert wait_for(lambda: health()[-1][0] == "connected", 30)
        assert health()[-1][1] == "a new empty-table model (replaced)"
    seen = t.seen()[0]
    assert seen.faces is None and seen.void_reason == "uncertain"
    assert "no empty-table model" in seen.detail["detail"]


def test_the_frame_loop_keeps_taking_frames_while_a_read_is_slow(tmp_path, replay):
    with Table(tmp_path, replay.calibration, replay.empty) as t:
        camera = t.table.camera
        gate, reading = threading.Event(), threading.Event()
        read = camera.reader.read

        def held_read(frame):  # the vision worker is held inside a read until the gate opens
            reading.set()
            gate.wait(30)
            return read(frame)

        camera.reader.read = held_read
        t.throw(replay.throws[0])
        assert reading.wait(30)
        taken = camera.frames_taken
        assert wait_for(lambda: camera.frames_taken >= taken + 10, 10), "the frame loop waited for the reader"
        assert not t.seen()
        gate.set()
        assert wait_for(lambda: t.seen(), 30)
    seen = t.seen()[0]
    assert seen.faces is not None, (seen.void_reason, seen.detail)
    assert sorted(seen.faces) == sorted(d.top_value for d in replay.throws[0].rest)


def test_the_model_is_refreshed_while_bets_are_open_and_never_from_dice_lying_there(tmp_path, replay):
    with Table(tmp_path, replay.calibration, replay.empty) as t:
        model = t.table.camera.empty_table
        t.camera.throw(replay.throws[0])  # dice left on the table while bets are open
        t.table.phase_changed("betting", 2, 1)
        assert wait_for(lambda: model.refused >= 3, 30)
        assert model.version == 1
        t.camera.clear()  # the stickman takes them
        assert wait_for(lambda: model.version == 2, 30)
        assert model.how == "refreshed"


def test_a_model_replaced_from_unchecked_frames_is_told_to_the_floor(tmp_path, replay):
    """The table's light changed (the camera shows it 60 grey levels brighter than the installation photo): the
    model no longer fits, so it is replaced from still frames nothing can check (vision/empty_table.py) and the floor
    is told, as a `device` event, notice `empty_table_replaced` (docs/mqtt.md): a die lying there then is missed."""
    brighter = [cv2.add(e, np.full_like(e, 60)) for e in replay.empty]
    with Table(tmp_path, replay.calibration, brighter) as t:
        model = t.table.camera.empty_table
        t.table.phase_changed("betting", 2, 1)
        assert wait_for(lambda: model.version == 2, 30)
    assert model.how == "replaced"
    notices = [i for i in t.items if isinstance(i, DeviceNotice) and i.kind != "camera_calibration"]  # every start's
    assert [(n.device, n.kind, n.detail) for n in notices] == [("camera", "empty_table_replaced", {"model": 2})]
    assert "nothing to check them against" in notices[0].message


def one_picture(image: np.ndarray) -> list[np.ndarray]:
    """One still picture as a live camera sends it: its frames differ (here in the corner pixel's first byte, off the
    table), for the V4L2 camera skips a frame that is the last one again (frozen) and never reads it."""
    other = image.copy()
    other[0, 0, 0] ^= 1
    return [image, other]


def test_the_evidence_is_encoded_ahead_when_the_last_reading_agrees(tmp_path, replay):
    thrown = replay.throws[0]
    steady = replace(thrown, still=one_picture(thrown.still[0]))  # every reading of the rest is the same
    with Table(tmp_path, replay.calibration, replay.empty) as t:
        t.throw(steady)
        assert wait_for(lambda: t.seen(), 30)
        timing = t.table.camera.timings[-1]
    seen = t.seen()[0]
    assert sorted(seen.faces) == sorted(d.top_value for d in thrown.rest)
    assert timing.evidence_ahead  # drawn while the last frame was still to come
    kept = (tmp_path / "storage" / seen.evidence.ref).read_bytes()
    assert hashlib.sha256(kept).hexdigest() == seen.evidence.sha256
    image = cv2.imdecode(np.frombuffer(kept, np.uint8), cv2.IMREAD_COLOR)
    h, w = replay.empty[0].shape[:2]
    assert image.shape == (h + BANNER_PX, w, 3)  # the annotated frame, full size, with its stamp under it
    assert b"round 1  attempt 1" in kept  # the stamp names the round it was encoded ahead for
    calibration = hashlib.sha256(replay.calibration.read_bytes()).hexdigest()
    assert f"calibration {calibration[:16]}".encode() in kept  # ... and the calibration it was read with


def test_a_last_reading_that_disagrees_gets_the_last_frame_drawn_with_its_own_outcome(tmp_path, replay):
    from vision.reading import Reading

    thrown = replay.throws[0]
    steady = replace(thrown, still=one_picture(thrown.still[0]))
    with Table(tmp_path, replay.calibration, replay.empty) as t:
        camera = t.table.camera
        read, calls = camera.reader.read, []

        def last_sees_nothing(frame):  # the third reading of the rest finds no die
            calls.append(frame)
            return read(frame) if len(calls) < 3 else Reading(())

        camera.reader.read = last_sees_nothing
        t.throw(steady)
        assert wait_for(lambda: t.seen(), 30)
        timing = camera.timings[-1]
    seen = t.seen()[0]
    assert seen.faces is None and seen.void_reason == "uncertain"  # the frames disagree: no result
    assert not timing.evidence_ahead
    kept = (tmp_path / "storage" / seen.evidence.ref).read_bytes()
    assert hashlib.sha256(kept).hexdigest() == seen.evidence.sha256


def test_a_broken_calibration_file_is_refused_by_name_not_with_a_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1}')
    with pytest.raises(DeviceError, match=r"\[table\] camera_calibration: .*bad.json: missing or malformed key"):
        HardwareTable(SECTION, "craps", EvidenceStore(tmp_path / "storage", 7), calibration=str(bad))


def test_the_reader_s_own_broken_files_are_named_as_the_camera_s_not_the_calibration_s(tmp_path, replay, monkeypatch):
    """A network manifest gone (or a network edited) is the installation's fault, not the calibration file's: the
    refusal names it under the camera, so no one re-calibrates a table for it."""
    import vision.onnx_net

    monkeypatch.setattr(vision.onnx_net, "MANIFEST", tmp_path / "gone" / "SHA256SUMS")
    with pytest.raises(DeviceError, match=r"^camera: cannot read the networks' manifest") as refused:
        HardwareTable(SECTION, "craps", EvidenceStore(tmp_path / "storage", 7), calibration=str(replay.calibration))
    assert "camera_calibration" not in str(refused.value)


def test_the_judge_is_told_what_the_empty_table_model_holds(tmp_path, replay):
    """A chip lying on the layout between throws is learned into the model (vision/empty_table.py), so the reader no
    longer sees it; the camera tells the judge each reading where such things lie (`EmptyTable.seen`): a die thrown
    onto one is void `uncertain`, not read as if it lay on the felt."""
    with Table(tmp_path, replay.calibration, replay.empty) as t:
        camera = t.table.camera
        first = camera.reader.read(replay.throws[0].still[0]).dice[0]
        size = 2.0 * camera.reader.calibration.die_px
        camera.empty_table.objects = (Blob(first.x + 3.0, first.y, size, size, HELD),)  # as if a chip lay there
        t.throw(replay.throws[0])
        assert wait_for(lambda: t.seen(), 30)
    seen = t.seen()[0]
    assert seen.faces is None and seen.void_reason == "uncertain"
    assert f"something at ({first.x:.0f}, {first.y:.0f}) px lies where the empty-table model holds an object" in seen.detail["detail"]


def test_a_die_the_reader_declines_voids_the_throw_saying_why_in_words_and_as_a_key(tmp_path, replay):
    """The camera hands the engine why the die was not read (docs/vision.md, `Die.declined`): the verdict's words
    and the reason's key, which the void result publishes (`VoidOutcome.declined`)."""
    thrown = replay.throws[0]
    steady = replace(thrown, still=one_picture(thrown.still[0]))
    with Table(tmp_path, replay.calibration, replay.empty) as t:
        camera = t.table.camera
        read = camera.reader.read

        def lamp_on_the_first_die(frame):
            reading = read(frame)
            first = replace(reading.dice[0], sure=False, declined="lamp")
            return replace(reading, dice=(first, *reading.dice[1:]))

        camera.reader.read = lamp_on_the_first_die
        t.throw(steady)
        assert wait_for(lambda: t.seen(), 30)
    seen = t.seen()[0]
    assert seen.faces is None and seen.void_reason == "uncertain"
    assert seen.detail["declined"] == "lamp"
    assert seen.detail["detail"].endswith("the reader is not sure of its value (a lamp is mirrored in its top face)")
