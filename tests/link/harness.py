"""Test harness shared by link and driver tests: a collector standing in for the service queue, fast timing."""

from __future__ import annotations

import queue
import time

from drivers.events import DeviceHealth, Health
from drivers.protocol import DeviceType
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


class EventSink:
    """A driver's `emit` target: typed events in arrival order, with bounded waits."""

    def __init__(self) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.seen: list = []
        self._taken: set[int] = set()

    def __call__(self, event) -> None:
        self.queue.put(event)

    def _pull(self, timeout: float) -> bool:
        try:
            self.seen.append(self.queue.get(timeout=timeout))
            return True
        except queue.Empty:
            return False

    def take(self, kind: type, count: int = 1, timeout: float = 5.0) -> list:
        """The first `count` events of `kind` not taken before (fewer if `timeout` passes)."""
        end = time.monotonic() + timeout
        while True:
            matches = [e for e in self.seen if isinstance(e, kind) and id(e) not in self._taken]
            if len(matches) >= count or time.monotonic() >= end:
                for event in matches[:count]:
                    self._taken.add(id(event))
                return matches[:count]
            self._pull(min(0.05, max(0.001, end - time.monotonic())))

    def settle(self, quiet: float = 0.2) -> None:
        """Drain until nothing new arrives for `quiet` seconds."""
        while self._pull(quiet):
            pass

    def of_type(self, kind: type) -> list:
        return [e for e in self.seen if isinstance(e, kind)]
