"""What the round engine tells those who watch it (metrics, `tablehw run`'s report): a hook that never acts.

The engine calls these on its own thread after the journal commit of what they report; an observer
only counts or prints, never blocks and never raises into the engine.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import RoundSummary

log = logging.getLogger(__name__)


class RoundObserver:
    """Does nothing; subclasses override what they watch."""

    def reading_taken(self, seconds: float) -> None:
        """A reading reached the engine `seconds` after its throw, spin, deal or dome lift began."""

    def attempt_voided(self, reason: str) -> None:
        """An attempt was void (a void throw, a no-spin ...): the round goes on."""

    def die_declined(self, why: str) -> None:
        """That void attempt was the camera's for a die it did not read, and why (docs/vision.md, `declined`)."""

    def round_finished(self, summary: RoundSummary) -> None:
        """A round ended: settled, or voided with its stakes returned."""


class RoundObservers(RoundObserver):
    """Several observers as one, told in order; one that fails is logged and the engine goes on."""

    def __init__(self, observers: list[RoundObserver]) -> None:
        self.observers = observers

    def reading_taken(self, seconds: float) -> None:
        self._tell("reading_taken", seconds)

    def attempt_voided(self, reason: str) -> None:
        self._tell("attempt_voided", reason)

    def die_declined(self, why: str) -> None:
        self._tell("die_declined", why)

    def round_finished(self, summary: RoundSummary) -> None:
        self._tell("round_finished", summary)

    def _tell(self, what: str, argument: object) -> None:
        for observer in self.observers:
            try:
                getattr(observer, what)(argument)
            except Exception:  # a report that cannot print (a closed pipe) must not stop the table
                log.exception("%s.%s failed; the table plays on", type(observer).__name__, what)
