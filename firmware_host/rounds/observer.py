"""What the round engine tells those who watch it (metrics, `tablehw run`'s report): a hook that never acts.

The engine calls these on its own thread after the journal commit of what they report; an observer
only counts or prints, never blocks and never raises into the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import RoundSummary


class RoundObserver:
    """Does nothing; subclasses override what they watch."""

    def reading_taken(self, seconds: float) -> None:
        """A reading reached the engine `seconds` after its throw, spin, deal or dome lift began."""

    def attempt_voided(self, reason: str) -> None:
        """An attempt was void (a void throw, a no-spin ...): the round goes on."""

    def round_finished(self, summary: RoundSummary) -> None:
        """A round ended: settled, or voided with its stakes returned."""


class RoundObservers(RoundObserver):
    """Several observers as one, told in order."""

    def __init__(self, observers: list[RoundObserver]) -> None:
        self.observers = observers

    def reading_taken(self, seconds: float) -> None:
        for observer in self.observers:
            observer.reading_taken(seconds)

    def attempt_voided(self, reason: str) -> None:
        for observer in self.observers:
            observer.attempt_voided(reason)

    def round_finished(self, summary: RoundSummary) -> None:
        for observer in self.observers:
            observer.round_finished(summary)
