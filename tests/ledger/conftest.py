"""Fixtures for the ledger tests: the books on SQLite and on a real PostgreSQL, a private Mosquitto."""

from __future__ import annotations

import pytest

from firmware_host.ledger.database import Database
from firmware_host.ledger.migrate import migrate
from tests.service.broker import MosquittoBroker

from .postgres import PostgresCluster


@pytest.fixture(scope="session")
def postgres():
    cluster = PostgresCluster().start()
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def books_url(request, tmp_path):
    """An empty books database on each engine."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'books.sqlite'}"
    return request.getfixturevalue("postgres").database()


@pytest.fixture
def books(books_url):
    database = Database.connect(books_url)
    migrate(database)
    yield database
    database.close()


@pytest.fixture
def broker(tmp_path):
    instance = MosquittoBroker(tmp_path / "broker").start()
    yield instance
    instance.kill()
