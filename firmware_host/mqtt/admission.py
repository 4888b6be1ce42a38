"""Admission of requests before they are decoded: a size limit and a rate limit per broker user.

    admission = Admission(Limits(max_request_bytes=4096, requests_per_second=20, burst=40))
    refusal = admission.check("terminal-07", len(payload))   # None: admitted
    refusal = admission.refuse("terminal-07", "not_authorised", "...")  # a refusal decided elsewhere

Each user has a token bucket (`burst` tokens, refilled at `requests_per_second`); a request that
finds it empty is refused `rate_limited`, one larger than `max_request_bytes` `too_large`. An answer
costs (a journal write and a message), so a refusal is answered at most once a second per user
(`Refusal.answer`); the others are only counted, and logged once per `LOG_EVERY_S` per user. It runs
on paho's network thread: no locks, no I/O but logging.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

log = logging.getLogger(__name__)

ANSWER_EVERY_S = 1.0  # at most one answered refusal per user per second
LOG_EVERY_S = 10.0  # at most one log line per user per ten seconds about its refusals
MAX_TRACKED_USERS = 10_000  # idle users are forgotten beyond this (a broker admits only its accounts)


@dataclass(frozen=True)
class Limits:
    """Per broker user: largest request (bytes, before decoding), sustained rate and burst."""

    max_request_bytes: int = 4096
    requests_per_second: float = 20.0
    burst: int = 40


@dataclass(frozen=True)
class Refusal:
    """Why a request was not admitted; `answer`: whether to tell the requester (else count only)."""

    reason: str
    message: str
    answer: bool


@dataclass
class _User:
    tokens: float
    refilled: float
    last_answer: float = float("-inf")
    last_log: float = float("-inf")
    unlogged: Counter = field(default_factory=Counter)


class Admission:
    """Size and rate of each user's requests; `counts` holds every refusal by reason."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.counts: Counter = Counter()
        self._users: dict[str, _User] = {}

    def check(self, user: str, size: int) -> Refusal | None:
        """Admit (None) or refuse one request of `size` bytes from `user`; every request spends a token."""
        now = self.clock()
        state = self._user(user, now)
        state.tokens = min(self.limits.burst, state.tokens + (now - state.refilled) * self.limits.requests_per_second)
        state.refilled = now
        if state.tokens < 1:
            return self.refuse(user, "rate_limited", f"more than {self.limits.requests_per_second:g} requests/s "
                                                     f"(burst {self.limits.burst}) from {user}: slow down")
        state.tokens -= 1
        if size > self.limits.max_request_bytes:
            return self.refuse(user, "too_large", f"request of {size} bytes; at most "
                                                  f"{self.limits.max_request_bytes} bytes are read")
        return None

    def refuse(self, user: str, reason: str, message: str) -> Refusal:
        """Count a refusal; say whether it is answered (once a second per user) and log it (throttled)."""
        now = self.clock()
        state = self._user(user, now)
        self.counts[reason] += 1
        state.unlogged[reason] += 1
        if now - state.last_log >= LOG_EVERY_S:
            summary = ", ".join(f"{n} {why}" for why, n in sorted(state.unlogged.items()))
            log.warning("requests from %s refused: %s (%s)", user, summary, message)
            state.unlogged.clear()
            state.last_log = now
        answer = now - state.last_answer >= ANSWER_EVERY_S
        if answer:
            state.last_answer = now
        return Refusal(reason, message, answer)

    def _user(self, user: str, now: float) -> _User:
        state = self._users.get(user)
        if state is None:
            if len(self._users) >= MAX_TRACKED_USERS:
                self._forget_idle(now)
            state = self._users[user] = _User(tokens=float(self.limits.burst), refilled=now)
        return state

    def _forget_idle(self, now: float) -> None:
        full_after = self.limits.burst / self.limits.requests_per_second
        idle = [u for u, s in self._users.items() if now - s.refilled >= max(full_after, ANSWER_EVERY_S, LOG_EVERY_S)]
        for user in idle or list(self._users)[: len(self._users) // 2]:
            del self._users[user]
