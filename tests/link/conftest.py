"""Fixtures: a board simulator on a real pty and a host session connected to it."""

from __future__ import annotations

import queue
import time

import pytest

from drivers.events import DeviceHealth, Health
from drivers.protocol import DeviceType
from drivers.protocol.boards import WHEEL
from drivers.sim.board import BoardSim
from drivers.transport import Backoff
from firmware_host.link import ExpectedDevice, FrameTransport, LinkSession, LinkTiming

FAST = LinkTiming(heartbeat_s=0.05, degraded_after_s=0.25, lost_after_s=0.6, hello_retry_s=0.05,
                  hello_retry_max_s=0.2, command_timeout_s=2.0)


class Collector:
    """Board events and status events as the service queue would receive them."""

    def __init__(self) -> None:
        self.events: queue.Queue = queue.Queue()
        self.status: queue.Queue = queue.Queue()
        self.health_log: list[DeviceHealth] = []
        self._cursor = 0

    def on_event(self, event) -> None:
        self.events.put(event)

    def on_status(self, event) -> None:
        if isinstance(event, DeviceHealth):
            self.health_log.append(event)
        self.status.put(event)

    def take_events(self, count: int, timeout: float = 5.0) -> list:
        out = []
        end = time.monotonic() + timeout
        while len(out) < count and time.monotonic() < end:
            try:
                out.append(self.events.get(timeout=max(0.001, end - time.monotonic())))
            except queue.Empty:
                break
        return out

    def wait_health(self, state: Health, timeout: float = 5.0) -> DeviceHealth:
        """The next health event in `state` after the one this returned last time."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for index in range(self._cursor, len(self.health_log)):
                if self.health_log[index].state is state:
                    self._cursor = index + 1
                    return self.health_log[index]
            time.sleep(0.005)
        raise AssertionError(f"no {state} within {timeout} s; health log: {self.health_log}")


def make_session(path: str, collector: Collector, expect: ExpectedDevice | None = None,
                 timing: LinkTiming = FAST) -> LinkSession:
    transport = FrameTransport(path, name="board", tick=0.003, backoff=Backoff(0.02, 0.2))
    session = LinkSession(transport, expect or ExpectedDevice(DeviceType.WHEEL_SENSOR), name="board", timing=timing)
    session.subscribe(collector.on_event, collector.on_status)
    return session


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
