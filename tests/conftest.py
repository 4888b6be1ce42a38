"""Shared fixtures: paths to the shared regulations, oracles and datasets beside the repo."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture
def repo_root() -> Path:
    return ROOT
