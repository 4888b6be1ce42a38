"""Board computation cost per round and payload size (printed; no timed assertions).

The service recomputes the board inside the journal transaction of every round, so its cost adds
to the time from a result to its publication."""

from __future__ import annotations

import random
import time

from firmware_host.boards.baccarat_roads import Coup
from firmware_host.boards.history import BaccaratHistory, BoardSettings, CrapsHistory, RouletteHistory
from firmware_host.boards.dice_history import craps_state_after
from firmware_host.boards.payload import encode
from firmware_host.boards.roulette_stats import Spin


def per_round(history, add, rounds: int) -> tuple[float, int]:
    """Mean seconds to add one result and build + encode the board message; last payload size."""
    t0 = time.perf_counter()
    size = 0
    for i in range(rounds):
        add(history, i)
        size = len(encode(history.message("2025-05-01T20:00:00.000Z")))
    return (time.perf_counter() - t0) / rounds, size


def test_bench_board_cost_per_round():
    rng = random.Random(1)
    winners = rng.choices("BPT", weights=[458, 446, 96], k=80)
    bac, bac_size = per_round(BaccaratHistory("t"), lambda h, i: h.add(Coup(winners[i], rng.random() < 0.07)), 80)
    spins = [Spin(rng.randrange(37), ("cw", "ccw")[i % 2]) for i in range(1000)]
    rou, rou_size = per_round(RouletteHistory("t", BoardSettings(window=500)), lambda h, i: h.add(spins[i]), 1000)

    def throw(h, i):
        faces = (rng.randint(1, 6), rng.randint(1, 6))
        point, shooter = craps_state_after(h.point, h.shooter, faces)
        h.add(faces, h.point, point, h.shooter, shooter)

    cra, cra_size = per_round(CrapsHistory("t"), throw, 1000)
    print(f"\nboard per round (add result + build + encode): baccarat {bac * 1e3:.2f} ms over an 80-coup shoe "
          f"(last payload {bac_size} bytes); roulette {rou * 1e3:.2f} ms with a 500-spin window over 1,000 spins "
          f"({rou_size} bytes); craps {cra * 1e3:.2f} ms over 1,000 throws ({cra_size} bytes)")
