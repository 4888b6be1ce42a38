"""Shared fixtures (paths to the shared regulations, oracles and datasets beside the repo) and the
Hypothesis profile every property test runs under."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

# Property tests must give the same verdict on every run and every machine: examples are drawn from
# a seed derived from each test (derandomize), no example database carries draws between runs, and
# no deadline or "too slow" health check can fail a test on a loaded machine. A test's own
# @settings(max_examples=...) keeps these (it inherits from the loaded profile).
settings.register_profile(
    "tablehw",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("tablehw")


@pytest.fixture
def repo_root() -> Path:
    return ROOT
