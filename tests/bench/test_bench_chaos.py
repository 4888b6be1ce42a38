"""The ledger's full chaos run (issue 16, "What it must show"): 3 simulated tables, 2 ledger instances in one
shared group, >= 20 kills of controllers and ledgers, >= 5 broker restarts, >= 300 rounds; prints its figures."""

from __future__ import annotations

import pytest

from tests.ledger.chaos import Plan, run_chaos
from tests.ledger.postgres import PostgresCluster


@pytest.mark.timeout(2400)
def test_bench_chaos_full_size(tmp_path):
    cluster = PostgresCluster().start()
    try:
        figures = run_chaos(Plan(kills=20, restarts=5, rounds=300, chaos_budget_s=1500), cluster, tmp_path)
    finally:
        cluster.stop()
    assert figures["rounds"] >= 300 and sum(figures["kills"].values()) >= 20
