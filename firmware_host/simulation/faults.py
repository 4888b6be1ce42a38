"""Crash injection for the simulation: `[simulation] crash_at = "settling:3"` kills the process with
SIGKILL the first time the round engine reaches that checkpoint in that round (or later), so tests
can prove that a restart resumes the round and settles every accepted bet exactly once."""

from __future__ import annotations

import logging
import os
import signal

from ..errors import ConfigError

log = logging.getLogger(__name__)

CHECKPOINTS = ("betting", "no_more_bets", "throwing", "spinning", "dealing", "revealing", "reading", "settling",
               "publishing")


class CrashAt:
    """The engine's checkpoint hook that SIGKILLs this process at `phase` of round `round_no` or later."""

    def __init__(self, spec: str) -> None:
        phase, _, round_text = spec.partition(":")
        if phase not in CHECKPOINTS or not round_text.isdigit():
            raise ConfigError(f"simulation.crash_at: {spec!r} is not PHASE:ROUND with PHASE one of {', '.join(CHECKPOINTS)}")
        self.phase, self.round = phase, int(round_text)

    def __call__(self, phase: str, round_no: int) -> None:
        if phase == self.phase and round_no >= self.round:
            log.warning("simulation: crashing (SIGKILL) at %s of round %d", phase, round_no)
            for handler in logging.getLogger().handlers:
                handler.flush()
            os.kill(os.getpid(), signal.SIGKILL)
