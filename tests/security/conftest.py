"""Fixtures for the attack suite: a test CA, the documented broker, and a controller on it."""

from __future__ import annotations

import pytest

from .certs import FloorCA
from .deployed_broker import DeployedBroker
from .table import Table


@pytest.fixture(scope="session")
def ca(tmp_path_factory):
    return FloorCA(tmp_path_factory.mktemp("ca"))


@pytest.fixture
def broker(tmp_path, ca):
    instance = DeployedBroker(tmp_path / "broker", ca).start()
    yield instance
    instance.kill()


@pytest.fixture
def table(tmp_path, broker):
    instance = Table(tmp_path / "table", broker).start()
    yield instance
    instance.close()
