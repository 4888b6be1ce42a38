"""Link health as connected / degraded / lost from what a link saw and when (pure; used by every serial link)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .events import Health


@dataclass(frozen=True)
class HealthChange:
    state: Health
    reason: str


class HealthMonitor:
    """Degraded after `degraded_after_s` of silence or `trouble_limit` errors within `trouble_window_s`."""

    def __init__(self, *, degraded_after_s: float, trouble_limit: int = 3, trouble_window_s: float = 2.0) -> None:
        self.degraded_after_s = degraded_after_s
        self.trouble_limit = trouble_limit
        self.trouble_window_s = trouble_window_s
        self.state: Health | None = None
        self.reason = ""
        self._trouble: deque[tuple[float, str]] = deque()
        self.last_heard = 0.0

    def set(self, state: Health, reason: str) -> HealthChange | None:
        """Force a state (connected after a handshake, lost when the port or the session is gone)."""
        if state is Health.CONNECTED:
            self._trouble.clear()
        if state is self.state and (state is not Health.LOST or reason == self.reason):
            return None  # a new reason for being lost is news; a new reason to stay connected is not
        self.state, self.reason = state, reason
        return HealthChange(state, reason)

    def heard(self, now: float) -> None:
        self.last_heard = now

    def trouble(self, now: float, what: str) -> None:
        """A CRC error, a retransmission, a gap: counted over the trouble window."""
        self._trouble.append((now, what))

    def evaluate(self, now: float) -> HealthChange | None:
        """While linked: connected <-> degraded from silence and recent trouble."""
        if self.state not in (Health.CONNECTED, Health.DEGRADED):
            return None
        while self._trouble and now - self._trouble[0][0] > self.trouble_window_s:
            self._trouble.popleft()
        silent = now - self.last_heard
        if silent > self.degraded_after_s:
            return self._to(Health.DEGRADED, f"no frame from the device for {silent:.2f} s")
        if len(self._trouble) >= self.trouble_limit:
            kinds = sorted({what for _, what in self._trouble})
            return self._to(Health.DEGRADED, f"{len(self._trouble)} link errors in {self.trouble_window_s:g} s "
                                             f"({', '.join(kinds)})")
        if self.state is Health.DEGRADED and not self._trouble:
            return self._to(Health.CONNECTED, "link clean again")
        return None

    def _to(self, state: Health, reason: str) -> HealthChange | None:
        if state is self.state and (state is not Health.LOST or reason == self.reason):
            return None  # a new reason for being lost is news; a new reason to stay connected is not
        self.state, self.reason = state, reason
        return HealthChange(state, reason)
