"""Fixtures: a board simulator on a real pty and a host session connected to it."""

from __future__ import annotations

import pytest

from drivers.protocol.boards import WHEEL
from drivers.sim.board import BoardSim

from .harness import Collector, make_session


@pytest.fixture
def board(tmp_path):
    sim = BoardSim(WHEEL, serial="WSB-0001", path=tmp_path / "wheel0")
    sim.start()
    yield sim
    sim.stop()


@pytest.fixture
def collector():
    return Collector()


@pytest.fixture
def linked(board, collector):
    session = make_session(board.path, collector)
    session.connect(timeout=5.0)
    yield board, session, collector
    session.stop()
