"""Fixtures for the service tests: a private Mosquitto on a free loopback port."""

from __future__ import annotations

import pytest

from .broker import MosquittoBroker


@pytest.fixture
def broker(tmp_path):
    instance = MosquittoBroker(tmp_path / "broker").start()
    yield instance
    instance.kill()
