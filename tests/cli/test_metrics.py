"""Prometheus metrics ([metrics]) scraped from a running simulated table over HTTP, with a real broker."""

from __future__ import annotations

import socket
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from tests.service.broker import MosquittoBroker, free_port
from tests.service.table_run import finish, start_table, stop_table, table_config


def scrape(port: int) -> dict[tuple[str, tuple], float]:
    """Every sample: (name, sorted labels) -> value; empty while the endpoint does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
            text = answer.read().decode()
    except OSError:
        return {}
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: dict, name: str, **labels) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


def scrape_until(port: int, predicate, timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    samples: dict = {}
    while time.monotonic() < deadline:
        samples = scrape(port)
        if samples and predicate(samples):
            return samples
        time.sleep(0.2)
    raise AssertionError(f"metrics never showed what was awaited; last scrape: {sorted(samples.items())[:40]}")


def test_metrics_of_a_running_table_follow_rounds_voids_broker_and_outbox(tmp_path):
    broker = MosquittoBroker(tmp_path / "broker").start()
    port = free_port()
    config = table_config(tmp_path, "craps", broker.url, action_seconds=0.05, betting_seconds=0.05, void_rate=0.5,
                          camera="random", sections={"metrics": {"port": port}})
    table = start_table(config)
    try:
        playing = scrape_until(port, lambda s: (value(s, "tablehw_rounds_total", outcome="settled") or 0) >= 3
                               and sum(v for (n, _), v in s.items() if n == "tablehw_void_attempts_total") >= 1, 180)
        assert value(playing, "tablehw_broker_connected") == 1
        assert value(playing, "tablehw_device_health", device="camera", state="connected") == 1
        assert value(playing, "tablehw_device_health", device="camera", state="lost") == 0
        assert value(playing, "tablehw_journal_bytes") > 0 and value(playing, "tablehw_storage_free_bytes") > 0
        assert value(playing, "tablehw_reading_seconds_count") >= 3
        assert value(playing, "tablehw_outbox_pending") >= 0 and value(playing, "tablehw_round") >= 3
        info = [dict(labels) for (name, labels), v in playing.items() if name == "tablehw_table_info" and v == 1]
        assert info and {k: info[0][k] for k in ("table", "game", "rulebook")} == \
            {"table": "sim-craps", "game": "craps", "rulebook": "macau-2010"}
        broker.kill()  # the table plays on; what it publishes waits in the outbox
        scrape_until(port, lambda s: value(s, "tablehw_broker_connected") == 0
                     and (value(s, "tablehw_outbox_pending") or 0) > 0, 120)
    finally:
        stop_table(table, 60)
        broker.kill()
    assert table.returncode == 0


def test_a_busy_metrics_port_is_logged_and_the_table_plays_on(tmp_path):
    broker = MosquittoBroker(tmp_path / "broker").start()
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    config = table_config(tmp_path, "roulette", broker.url, action_seconds=0.05, betting_seconds=0.05,
                          sections={"metrics": {"port": port}})
    try:
        out, err = finish(start_table(config, rounds=2), 120)
    finally:
        taken.close()
        broker.kill()
    assert "metrics: cannot listen on 127.0.0.1" in err and "the table plays on without metrics" in err
    assert out.splitlines()[2] == f"metrics: http://127.0.0.1:{port}/metrics (docs/metrics.md)"
    assert "rounds this run" in out and out.count("sim-roulette-0000000") == 2
