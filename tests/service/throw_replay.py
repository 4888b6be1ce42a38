"""Throw replays through the real service: rendered throws at 30 fps -> the camera stand-in -> TableService on
its devices (HardwareTable, DiceCamera, ThrowWatcher, DiceReader as the service builds them) -> a real
Mosquitto -> a subscriber on the result topic. Used by tests/service/test_throw_replay.py and the bench.

The shooter here watches the table's `state` topic: when the phase is `throwing` it throws (the next
rendered throw starts at the camera's next frame); when bets open again the dice are taken back.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from firmware_host.config import load_config
from firmware_host.service import TableService
from vision.calibration import calibrate
from vision.synthetic import render
from vision.synthetic_scenes import TableRig, random_rig, random_scene
from vision.throw_motion import ThrowFrames, render_throw

from .listener import Listener
from .table_run import table_config
from .throwing_camera import ThrowingCamera


@dataclass(frozen=True)
class Replay:
    """A rendered craps table under its camera, calibrated on its empty frame, and throws to replay."""

    seed: int
    rig: TableRig
    calibration: Path
    empty: list[np.ndarray]
    throws: list[ThrowFrames]


def rendered_replay(tmp: Path, seed: int, throws: int, kinds: tuple[str, ...] = ("valid",),
                    game: str = "craps") -> Replay:
    """A `game` rig of `seed`, its calibration (with the empty table kept beside it) and `throws` throws
    whose resting dice are of `kinds` in turn (scene kinds of vision.synthetic_scenes)."""
    rng = np.random.default_rng(seed)
    rig = random_rig(game, rng)
    clean, _ = render(rig.scene([], rng, clean=True), rng)
    path = tmp / "camera.json"
    calibrate(clean, rig.layout, float(rig.camera.position[2])).save(path, empty_table=clean)
    lit = rig.scene([], rng)
    empty = [render(lit, rng)[0] for _ in range(4)]
    frames = [render_throw(rig, random_scene(rig, kinds[i % len(kinds)], rng), rng, before=3, seconds=1.0, still=6)
              for i in range(throws)]
    return Replay(seed, rig, path, empty, frames)


@dataclass(frozen=True)
class Thrown:
    """One throw as the subscriber saw it."""

    truth: tuple[int, ...]  # the faces rendered, sorted
    result: dict  # the result message
    last_motion: float  # capture time of the throw's last moving frame (monotonic)
    received: float  # when the subscriber got the result (monotonic)

    @property
    def latency_ms(self) -> float:
        return (self.received - self.last_motion) * 1000


def service_config(tmp: Path, url: str, table_id: str, calibration: Path, betting_seconds: float) -> Path:
    """config/sim-craps.toml on its devices: the camera (a V4L2 device: the stand-in), the calibration."""
    return table_config(tmp, "craps", url, name="replay.toml", sections={
        "table": {"id": table_id, "camera_calibration": str(calibration), "betting_seconds": betting_seconds},
        "devices": {"camera": {"kind": "v4l2", "device": "throwing-camera", "fps": 30.0}},
    })


def replay_through_service(tmp: Path, url: str, replay: Replay, *, betting_seconds: float = 1.0,
                           timeout_s: float = 120.0) -> tuple[list[Thrown], TableService, ThrowingCamera]:
    """Run the table until every throw of `replay` has a result at the subscriber (or `timeout_s`)."""
    table = f"replay-{replay.seed}"  # a table (topics, MQTT session) of its own per rig
    config = service_config(tmp, url, table, replay.calibration, betting_seconds)
    camera = ThrowingCamera(replay.empty)
    service = TableService(load_config(config), str(config), rounds=len(replay.throws), capture_factory=camera)
    listener = Listener(url, [f"tablehw/tables/{table}/state", f"tablehw/tables/{table}/result"])
    runner = threading.Thread(target=service.run, name="table", daemon=True)
    runner.start()
    thrown: dict[tuple[int, int], int] = {}  # (round, attempt) -> which throw was thrown
    done: list[Thrown] = []
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline and runner.is_alive():
            messages = listener.snapshot()
            states = [m.json() for m in messages if m.topic.endswith("/state")]
            state = states[-1] if states else {}
            key = (state.get("round"), state.get("attempt"))
            if state.get("phase") == "throwing" and key not in thrown:
                thrown[key] = len(thrown)  # a void attempt is thrown again: the throws are used in turn
                camera.throw(replay.throws[thrown[key] % len(replay.throws)])
            elif state.get("phase") == "betting":
                camera.clear()
            results = [m for m in messages if m.topic.endswith("/result")]
            if len(results) >= len(replay.throws):
                break
            time.sleep(0.005)
        # the last result may still be on its way when the table stops after its last round
        listener.wait_for(lambda m: sum(x.topic.endswith("/result") for x in m) >= len(thrown), 10)
    finally:
        service.stop_event.set()
        runner.join(30)
        listener.close()
    for message in [m for m in listener.snapshot() if m.topic.endswith("/result")]:
        body = message.json()
        index = thrown.get((body["round"], body["attempt"]))
        if index is None:
            continue
        truth = tuple(sorted(d.top_value for d in replay.throws[index % len(replay.throws)].rest))
        done.append(Thrown(truth, body, camera.last_motion[index], message.monotonic))
    return done, service, camera
