"""Benchmark and differential: 20,000 random blackjack coups through the service's path (the round engine on a
real journal, console plays and scanner cards) and through the rules core directly; identical money for
every coup (tests/service/blackjack_differential.py). Prints the figures; asserts only that every coup agreed."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from tests.service.blackjack_differential import play

COUPS = 20_000


def test_bench_blackjack_differential_20000_coups(tmp_path):
    shm = Path("/dev/shm")  # the journal on tmpfs where there is one: this is a differential, not a disk test
    folder = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path
    start = time.perf_counter()
    try:
        result = play(folder / "journal.sqlite", coups=COUPS, seed=2026, report_every=1000)
    finally:
        if folder != tmp_path:
            shutil.rmtree(folder)
    seconds = time.perf_counter() - start
    print(f"\nblackjack differential: {result.coups:,} coups ({result.lines:,} settlement lines) identical through "
          f"the service's path and the rules core: paid {result.paid:,}, kept {result.kept:,}, returned "
          f"{result.returned:,} (minor units); {seconds:.0f} s, {result.coups / seconds:.1f} coups/s "
          f"(journal in {folder.parent}); plays {dict(sorted(result.plays.items()))}")
    assert result.coups == COUPS
