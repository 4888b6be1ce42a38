"""A rendered throw replayed at 30 fps through the service on its devices, to a subscriber on a real Mosquitto."""

from __future__ import annotations

import hashlib

from .broker import MosquittoBroker
from .listener import Listener
from .throw_replay import rendered_replay, replay_through_service


def test_a_thrown_pair_is_read_and_published_as_rendered(tmp_path):
    replay = rendered_replay(tmp_path, seed=8, throws=2)  # two throws the reader is sure of
    broker = MosquittoBroker(tmp_path / "broker").start()
    events = Listener(broker.url, [f"tablehw/tables/replay-{replay.seed}/events"])
    try:
        thrown, service, camera = replay_through_service(tmp_path, broker.url, replay)
        told = events.wait_for(lambda m: any(x.json()["detail"].get("notice") == "camera_calibration" for x in m), 10)
    finally:
        events.close()
        broker.kill()
    assert len(thrown) == 2, f"{len(thrown)} results for 2 throws"
    for throw in thrown:
        result = throw.result
        assert result["void"] is False, result  # plain throws, both dice flat past the middle
        assert tuple(sorted(result["faces"])) == throw.truth
        assert (service.storage / result["evidence"]["ref"]).is_file()  # the annotated frame, kept
        assert throw.latency_ms > 0  # the result came after the dice stopped
    assert camera.delivered > 0
    # What the camera read with, told at the start, as the subscriber got it (docs/mqtt.md, `camera_calibration`).
    assert told, "no camera_calibration notice on events"
    notice = [m.json() for m in events.snapshot() if m.json()["detail"].get("notice") == "camera_calibration"]
    assert len(notice) == 1 and notice[0]["kind"] == "device"
    assert notice[0]["detail"]["sha256"] == hashlib.sha256(replay.calibration.read_bytes()).hexdigest()
    photo = replay.calibration.with_name("camera.empty.png")
    assert notice[0]["detail"]["empty_table_sha256"] == hashlib.sha256(photo.read_bytes()).hexdigest()
