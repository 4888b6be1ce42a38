"""Chaos, short (make test): real controllers and ledgers killed, the broker restarted -> every round booked
once, cent for cent, gaps filled, planted anomalies reported (the full-size run: tests/bench/test_bench_chaos.py)."""

from __future__ import annotations

import pytest

from .chaos import Plan, run_chaos


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_chaos_every_round_booked_once_cent_for_cent(postgres, tmp_path):
    figures = run_chaos(Plan(kills=6, restarts=2, rounds=30, chaos_budget_s=400), postgres, tmp_path)
    assert figures["rounds"] >= 30
