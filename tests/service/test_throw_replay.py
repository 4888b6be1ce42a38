"""A rendered throw replayed at 30 fps through the service on its devices, to a subscriber on a real Mosquitto."""

from __future__ import annotations

from .broker import MosquittoBroker
from .throw_replay import rendered_replay, replay_through_service


def test_a_thrown_pair_is_read_and_published_as_rendered(tmp_path):
    replay = rendered_replay(tmp_path, seed=5, throws=2)
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        thrown, service, camera = replay_through_service(tmp_path, broker.url, replay)
    finally:
        broker.kill()
    assert len(thrown) == 2, f"{len(thrown)} results for 2 throws"
    for throw in thrown:
        result = throw.result
        assert result["void"] is False, result  # plain throws, both dice flat past the middle
        assert tuple(sorted(result["faces"])) == throw.truth
        assert (service.storage / result["evidence"]["ref"]).is_file()  # the annotated frame, kept
        assert throw.latency_ms > 0  # the result came after the dice stopped
    assert camera.delivered > 0
