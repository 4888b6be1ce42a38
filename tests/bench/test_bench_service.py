"""Benchmarks of the table service (printed; no timed assertions):

1. dice at rest -> result received by a subscriber on a real Mosquitto (target <= 50 ms here);
2. rounds per second with 1,000 open bets per round, end to end over MQTT and in the engine alone;
3. journal write cost per round (commits, bytes, time in commits);
4. the service's resident memory over 1,000 simulated rounds (target <= 200 MB, not growing), and
   the start-up journal check that follows.
"""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

from firmware_host.config import load_config
from firmware_host.journal import Journal
from firmware_host.rounds.inputs import DiceSeen
from firmware_host.service import TableService
from firmware_host.simulation import table as sim_table
from tests.service.broker import MosquittoBroker
from tests.service.engine_harness import bet, feed, make_engine
from tests.service.listener import Listener
from tests.service.table_run import finish, start_table, table_config


def run_in_process(config_path: Path, rounds: int) -> TableService:
    service = TableService(load_config(config_path), str(config_path), simulate=True, rounds=rounds)
    thread = threading.Thread(target=service.run, daemon=True)
    thread.start()
    thread.join(600)
    assert not thread.is_alive(), "the service did not finish"
    return service


def test_dice_at_rest_to_result_received(tmp_path, monkeypatch):
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        at_rest: dict[tuple[int, int], float] = {}
        original = sim_table.SimulatedTable.seen

        def probe(self, round_no, attempt, faces, void):  # the camera says "at rest, read": start the clock
            at_rest[(round_no, attempt)] = time.monotonic()
            return original(self, round_no, attempt, faces, void)

        monkeypatch.setattr(sim_table.SimulatedTable, "seen", probe)
        listener = Listener(broker.url, ["tablehw/tables/sim-craps/result"])
        config = table_config(tmp_path, "craps", broker.url, action_seconds=0.05, betting_seconds=0.05,
                              bets_per_round=20, void_rate=0.0)
        run_in_process(config, 60)
        assert listener.wait_for(lambda m: len(m) >= 60, 20)
        latencies = []
        for message in listener.snapshot():
            body = message.json()
            key = (body["round"], body["attempt"])
            if key in at_rest:
                latencies.append((message.monotonic - at_rest[key]) * 1000)
        latencies.sort()
        print(f"\n[service] dice at rest -> result received by a subscriber, {len(latencies)} throws: "
              f"median {statistics.median(latencies):.1f} ms, p95 {latencies[int(0.95 * len(latencies))]:.1f} ms, "
              f"max {latencies[-1]:.1f} ms (target <= 50 ms; excludes the camera's own frames)")
        listener.close()
    finally:
        broker.kill()


def test_rounds_per_second_with_1000_bets(tmp_path):
    # In the engine alone: 1,000 bets fed as MQTT requests (one batch), no more bets, throw, settle.
    engine = make_engine(tmp_path / "engine.sqlite", game="cussec")
    from firmware_host.rounds.inputs import DomeStep

    rounds, start = 20, time.perf_counter()
    commit_time = [0.0]
    original = Journal.transaction

    def timed(self):
        class Timed:
            def __enter__(inner):
                inner.t = time.perf_counter()
                inner.cm = original(self)
                return inner.cm.__enter__()

            def __exit__(inner, *exc):
                result = inner.cm.__exit__(*exc)
                commit_time[0] += time.perf_counter() - inner.t
                return result
        return Timed()

    Journal.transaction = timed
    try:
        size0 = sum(p.stat().st_size for p in tmp_path.glob("engine.sqlite*"))
        for r in range(rounds):
            feed(engine, DomeStep("bets_open"))
            feed(engine, *[bet(engine, f"{r}-{i}", ("small", "big", "single_3", "total_10")[i % 4], 200 * (1 + i % 3))
                           for i in range(1000)])
            feed(engine, DomeStep("bell"), DomeStep("released"), DomeStep("lifted"))
            feed(engine, DiceSeen(engine.round, engine.attempt, (1 + r % 6, 2, 5), None))
        elapsed = time.perf_counter() - start
        size1 = sum(p.stat().st_size for p in tmp_path.glob("engine.sqlite*"))
    finally:
        Journal.transaction = original
    conn_rows = engine.journal.messages()
    print(f"\n[service] engine alone (cussec, 1,000 bets per round, real journal): {rounds / elapsed:.1f} rounds/s, "
          f"{elapsed / rounds * 1000:.0f} ms per round")
    print(f"[service] journal write cost per round: {commit_time[0] / rounds * 1000:.0f} ms in commits, "
          f"{(size1 - size0) / rounds / 1024:.0f} KiB written (records + outbox), "
          f"{len(conn_rows) / rounds:.0f} outgoing messages")
    engine.journal.close()

    # End to end: 1,000 bets per round sent by terminals over MQTT, answered, thrown, settled, published.
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        config = table_config(tmp_path, "cussec", broker.url, action_seconds=0.01, betting_seconds=0.01,
                              bets_per_round=1000, void_rate=0.0)
        listener = Listener(broker.url, ["tablehw/tables/sim-cussec/settlement"])
        start = time.perf_counter()
        run_in_process(config, 10)
        elapsed = time.perf_counter() - start
        assert listener.wait_for(lambda m: len(m) >= 10, 30)
        sizes = [len(m.json()["bets"]) for m in listener.snapshot()]
        print(f"[service] end to end over MQTT (cussec, {statistics.mean(sizes):.0f} bets per settlement): "
              f"{10 / elapsed:.2f} rounds/s including start-up and 1,000 bet requests/answers per round")
        listener.close()
    finally:
        broker.kill()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_memory_over_1000_rounds(tmp_path):
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        config = table_config(tmp_path, "craps", broker.url, action_seconds=0.002, betting_seconds=0.002,
                              bets_per_round=12)
        listener = Listener(broker.url, ["tablehw/tables/sim-craps/settlement"])
        process = start_table(config, rounds=1000, log_level="WARNING")
        samples: list[tuple[int, int]] = []
        while process.poll() is None:
            try:
                samples.append((len(listener.snapshot()), rss_kb(process.pid)))
            except (FileNotFoundError, ProcessLookupError):
                break
            time.sleep(0.5)
        finish(process, 60)
        assert process.returncode == 0
        marks = {}
        for rounds_done, rss in samples:
            for mark in (100, 250, 500, 750, 1000):
                if rounds_done >= mark and mark not in marks:
                    marks[mark] = rss
        peak = max(rss for _, rss in samples)
        print("\n[service] resident memory over 1,000 simulated craps rounds: "
              + ", ".join(f"round {m}: {kb / 1024:.0f} MB" for m, kb in sorted(marks.items()))
              + f"; peak {peak / 1024:.0f} MB (target <= 200 MB, not growing)")
        start = time.perf_counter()
        journal = Journal.open(tmp_path / "storage" / "journal.sqlite")
        count = journal.verify()
        print(f"[service] start-up journal check after 1,000 rounds: {count} records verified in "
              f"{(time.perf_counter() - start) * 1000:.0f} ms")
        journal.close()
        listener.close()
    finally:
        broker.kill()
