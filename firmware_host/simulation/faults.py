"""Crash injection for the simulation: `[simulation] crash_at = "settling:3"` kills the process with
SIGKILL the first time the round engine reaches that checkpoint in that round (or later), so tests
can prove that a restart resumes the round and settles every accepted bet exactly once.

`"card:2:4"` waits for the 4th time the checkpoint is reached in that round (or later rounds): a
card game journals each card out of the shoe at checkpoint `card`, so this kills the table with
the coup's first four cards out of the shoe."""

from __future__ import annotations

import logging
import os
import signal

from ..errors import ConfigError

log = logging.getLogger(__name__)

CHECKPOINTS = ("preparing", "betting", "no_more_bets", "throwing", "spinning", "dealing", "card", "revealing",
               "reading", "confirming", "held", "settling", "publishing")


class CrashAt:
    """The engine's checkpoint hook that SIGKILLs this process at the `nth` time it reaches `phase` in
    round `round_no` or later."""

    def __init__(self, spec: str) -> None:
        parts = spec.split(":")
        phase, round_text, nth_text = (parts + ["1"])[:3] if len(parts) in (2, 3) else ("", "", "")
        if phase not in CHECKPOINTS or not round_text.isdigit() or not nth_text.isdigit() or int(nth_text) < 1:
            raise ConfigError(f"simulation.crash_at: {spec!r} is not PHASE:ROUND[:NTH] with PHASE one of "
                              f"{', '.join(CHECKPOINTS)}")
        self.phase, self.round, self.nth = phase, int(round_text), int(nth_text)
        self.reached = 0

    def __call__(self, phase: str, round_no: int) -> None:
        if phase != self.phase or round_no < self.round:
            return
        self.reached += 1
        if self.reached >= self.nth:
            log.warning("simulation: crashing (SIGKILL) at %s of round %d", phase, round_no)
            for handler in logging.getLogger().handlers:
                handler.flush()
            os.kill(os.getpid(), signal.SIGKILL)
