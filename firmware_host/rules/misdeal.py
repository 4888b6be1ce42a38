"""Misdeals and what comes next: the dealing validators' vocabulary.

A validator consumes scanned cards one at a time and says at every step what must come next
(`Due`). A card that breaks the procedure raises a typed `Misdeal` carrying what the regulation
says happens (`Remedy`) and the article it comes from. Raising never changes the validator's
state, except a `VOID_COUP` remedy, which voids the coup: a void coup settles nothing and every
stake goes back.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .errors import RulesError


class Remedy(enum.StrEnum):
    """What the regulation says happens after a misdeal."""

    CORRECT_AT_ONCE = "correct_at_once"  # put the card where it was due (Portugal 1995 II.14, III.14)
    BURN_CARD = "burn_card"  # the card goes to the discard; the coup goes on (I.106 a, V.18 when turned)
    HOLD_FOR_NEXT = "hold_for_next"  # unseen, it is held for the next place that asks for a card (V.18, I.104 f)
    VOID_COUP = "void_coup"  # cannot be corrected: the coup is void, every stake returned (II.14)


class MisdealKind(enum.StrEnum):
    """Stable codes for misdeals, sent to the dealer console and the journal."""

    CARD_NOT_DUE = "card_not_due"
    WRONG_ORDER = "wrong_order"
    TOO_MANY_CARDS = "too_many_cards"
    UNKNOWN_CARD = "unknown_card"
    BEYOND_COMPOSITION = "beyond_composition"
    DECISION_NEEDED = "decision_needed"
    COUP_VOID = "coup_void"


class Misdeal(RulesError, ValueError):
    """A card (or event) the dealing procedure does not allow at this point."""

    kind: MisdealKind = MisdealKind.CARD_NOT_DUE

    def __init__(self, message: str, remedy: Remedy, article: str, *, card: object = None,
                 due: "Due | None" = None) -> None:
        super().__init__(f"{self.kind.value}: {message} — {remedy.value} ({article})")
        self.message = message
        self.remedy = remedy
        self.article = article
        self.card = card
        self.due = due


class CardNotDue(Misdeal):
    """A card for a hand that gets no more cards in this coup, while the coup is not over."""

    kind = MisdealKind.CARD_NOT_DUE


class WrongOrder(Misdeal):
    """A card for a hand that is due a card later, but not now."""

    kind = MisdealKind.WRONG_ORDER


class TooManyCards(Misdeal):
    """A card after the coup is complete."""

    kind = MisdealKind.TOO_MANY_CARDS


class UnknownCard(Misdeal):
    """Something that is not a card of a 52-card deck."""

    kind = MisdealKind.UNKNOWN_CARD


class BeyondComposition(Misdeal):
    """A card the shoe cannot hold any more of (one more than its decks contain)."""

    kind = MisdealKind.BEYOND_COMPOSITION


class DecisionNeeded(Misdeal):
    """A card while the coup waits for a decision from the console (draw or stand, split ...)."""

    kind = MisdealKind.DECISION_NEEDED


class CoupVoid(Misdeal):
    """A card or event for a coup already void."""

    kind = MisdealKind.COUP_VOID


class DecisionRefused(RulesError, ValueError):
    """A console decision the rules do not allow now (none is due, a forced cell, a forbidden play)."""


class CoupNotFinished(RulesError, ValueError):
    """A result or a settlement asked of a coup that is void or not complete."""


@dataclass(frozen=True, slots=True)
class Due:
    """What must come next: a card `to` a place ("burn", "player", "banker", "box 2", "dealer" ...),
    a `decision` from the console, or nothing (`complete`). `why` cites the rule."""

    to: str | None = None
    decision: str | None = None
    complete: bool = False
    why: str = ""

    def view(self) -> dict:
        out = {"complete": self.complete}
        if self.to is not None:
            out["to"] = self.to
        if self.decision is not None:
            out["decision"] = self.decision
        if self.why:
            out["why"] = self.why
        return out


COMPLETE = Due(complete=True, why="coup complete")
