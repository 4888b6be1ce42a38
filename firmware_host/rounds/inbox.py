"""The round engine's inbox: the table's own events first, then requests, taken in turn from each requester.

    inbox.put(item)                         # devices, consoles, the broker link, timers' Stop: any thread
    inbox.put_request(user, request)        # the request gate (paho's thread); False: that user's lane is full
    events, requests = inbox.take(timeout_s, max_requests=100)   # the engine's thread

Events (a dealer's "no more bets" from the GPIO console or the pit console, a device's reading,
the link's status) never wait behind requests: the engine takes every waiting event, then at most
`max_requests` requests, one from each requester in turn, and checks its timers in between. Each
requester's lane holds at most `per_user` requests, so one terminal's flood neither delays another
terminal nor grows the process's memory.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any


class Inbox:
    """Thread-safe; one consumer (the engine's thread)."""

    def __init__(self, per_user: int = 40) -> None:
        self.per_user = per_user
        self._ready = threading.Condition()
        self._events: deque = deque()
        self._lanes: dict[str, deque] = {}
        self._turns: deque[str] = deque()  # requesters with something waiting, in the order they are served

    def put(self, item: Any) -> None:
        """An event for the engine (served before any request)."""
        with self._ready:
            self._events.append(item)
            self._ready.notify()

    def put_request(self, user: str, request: Any, *, beyond_limit: bool = False) -> bool:
        """Queue one request of `user`; False when its lane already holds `per_user` (nothing queued).
        `beyond_limit`: an answer to a refusal (at most one a second per user) is queued anyway."""
        with self._ready:
            lane = self._lanes.get(user)
            if lane is None:
                lane = self._lanes[user] = deque()
                self._turns.append(user)
            elif len(lane) >= self.per_user and not beyond_limit:
                return False
            lane.append(request)
            self._ready.notify()
            return True

    def take(self, timeout_s: float, max_requests: int) -> tuple[list, list]:
        """Every waiting event, and up to `max_requests` requests round-robin across requesters; waits
        up to `timeout_s` for something when both are empty."""
        with self._ready:
            if not self._events and not self._turns:
                self._ready.wait(timeout_s)
            events = list(self._events)
            self._events.clear()
            requests = []
            while self._turns and len(requests) < max_requests:
                user = self._turns.popleft()
                lane = self._lanes[user]
                requests.append(lane.popleft())
                if lane:
                    self._turns.append(user)
                else:
                    del self._lanes[user]
            return events, requests

    def waiting(self) -> int:
        """Requests waiting, all requesters together."""
        with self._ready:
            return sum(len(lane) for lane in self._lanes.values())
