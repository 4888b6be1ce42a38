"""The shoe procedure (Portugal 1995 I.13-14, II.4-7, V.8-11) and the base of every card validator.

`ShoeRules` says how a game's shoe is built and used: decks, where the cut (warning) card goes,
which cards are burned and when, and what a card found face up means. `Shoe` follows one shoe
from shuffle to its last coup: what is left of its composition, the burns still due, and the
cut card ("the coup in progress is the last of the shoe"). `ShoeCoup` is the common part of
the per-game dealing validators: burns, composition, face-up cards, misdeals and voiding.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .cards import Card, parse_card, pip_value, shoe_composition
from .errors import RulesError
from .misdeal import (COMPLETE, BeyondComposition, CoupVoid, DecisionNeeded, Due, Misdeal, Remedy,
                      TooManyCards, UnknownCard, WrongOrder)


class ShoeFinished(RulesError, ValueError):
    """A coup asked of a shoe whose last coup was played: the cards must be shuffled again."""


@dataclass(frozen=True, slots=True)
class ShoeRules:
    """How a game builds and uses its shoe."""

    game: str
    decks: int
    cut_from_end: int  # cards behind the cut (warning) card, approximately
    first_burn: int | None  # cards burned when the shoe starts; None: as many as the first card's value (I.13)
    burn_between_coups: int  # burned before every coup but the first (II.12)
    face_up_counts: bool  # a card found face up is valid (II.7) or burned (I.106 a)
    min_after_cut: int  # the last coup is void with fewer cards than this behind the cut card (I.106 d)
    article: str  # where these rules stand, for messages

    def describe(self) -> list[str]:
        """The procedure as steps for the dealer console."""
        burn = (f"burn the first {self.first_burn} card(s)" if self.first_burn is not None
                else "draw one card and burn as many cards as its value (faces 0: that card only)")
        steps = [f"shuffle {self.decks} decks and have them cut",
                 f"place the cut card about {self.cut_from_end} cards from the end", burn]
        if self.burn_between_coups:
            steps.append(f"before every coup but the first, burn {self.burn_between_coups} card(s)")
        steps.append("when the cut card comes out, the coup in progress (or about to start) is the last of the shoe")
        steps.append("a card found face up in the shoe " + ("counts" if self.face_up_counts else "is burned"))
        return steps


def punto_banco_shoe(decks: int = 8) -> ShoeRules:
    """Punto banco (II.1, II.4-7; III the same): 6 decks on a single table, 8 on a double."""
    if decks not in (6, 8):
        raise RulesError(f"punto banco is dealt from 6 or 8 decks (II.1), not {decks}")
    return ShoeRules("punto_banco", decks, 12, 8, 1, True, 0, "Portugal 1995 II.4-7")


def chemin_de_fer_shoe() -> ShoeRules:
    """Chemin de fer (I.4, I.13-14, I.106): 6 decks; the warning card goes between the 7th and
    8th card from the end; the burn is counted by the first card; a face-up card is burned."""
    return ShoeRules("chemin_de_fer", 6, 7, None, 0, False, 6, "Portugal 1995 I.13-14, I.106")


def blackjack_shoe(decks: int = 6, players: int = 2) -> ShoeRules:
    """Blackjack (V.3, V.9-11): 4 or 6 decks; the warning card near the 50th card from the end,
    or mid-shoe when only one player is at the table; one card burned."""
    if decks not in (4, 6):
        raise RulesError(f"blackjack is dealt from 4 or 6 decks (V.3), not {decks}")
    cut = decks * 26 if players == 1 else 50
    return ShoeRules("blackjack", decks, cut, 1, 0, True, 0, "Portugal 1995 V.8-11")


class Shoe:
    """One shoe from shuffle to its last coup (pure state; the validators drive it)."""

    def __init__(self, rules: ShoeRules, *, burns: bool = True) -> None:
        """`burns=False`: no burn card is ever due (coups checked on their own, mid-shoe)."""
        self.rules = rules
        self.burns = burns
        self.remaining: Counter = shoe_composition(rules.decks)
        self.cards_out = 0
        self.coups = 0
        self.coup_open = False
        self.cut_card_out = False
        self.last_coup = False
        self.finished = False
        self._burns_due = 0
        self._first_burn_pending = False  # chemin de fer: the next burn card says how many follow

    @property
    def cards_left(self) -> int:
        return self.rules.decks * 52 - self.cards_out

    @property
    def last_coup_short(self) -> bool:
        """The cut card came out with fewer cards behind it than the last coup needs (I.106 d)."""
        return self.cut_card_out and self.rules.min_after_cut > 0 and self.cards_left < self.rules.min_after_cut

    def begin_coup(self) -> None:
        if self.finished:
            raise ShoeFinished(f"the last coup of this shoe was played: shuffle again ({self.rules.article})")
        if self.coup_open:
            raise RulesError("a coup is already in progress on this shoe")
        self.coup_open = True
        if not self.burns:
            self._burns_due = 0
        elif self.coups == 0:
            if self.rules.first_burn is None:
                self._first_burn_pending = True
                self._burns_due = 1
            else:
                self._burns_due = self.rules.first_burn
        else:
            self._burns_due = self.rules.burn_between_coups

    def reopen_coup(self) -> None:
        """The coup just ended goes on (a fault found after its last card); no later coup may have begun."""
        if self.coup_open or self.coups == 0:
            raise RulesError("only the coup that just ended on this shoe can go on")
        self.coups -= 1
        self.coup_open = True
        self.finished = False

    def end_coup(self) -> None:
        self.coup_open = False
        self.coups += 1
        self._burns_due = 0
        if self.last_coup:
            self.finished = True

    def burns_due(self) -> int:
        return self._burns_due

    def check(self, card: Card, article: str) -> None:
        """Raise `BeyondComposition` if the shoe holds no more of this card."""
        if self.remaining[card] <= 0:
            raise BeyondComposition(
                f"{card}: a {self.rules.decks}-deck shoe holds {self.rules.decks} of it and all are already out",
                Remedy.VOID_COUP, article, card=card)

    def take(self, card: Card, article: str) -> None:
        self.check(card, article)
        self.remaining[card] -= 1
        self.cards_out += 1

    def burn(self, card: Card, article: str) -> None:
        self.take(card, article)
        if self._first_burn_pending:
            self._first_burn_pending = False
            self._burns_due = max(pip_value(card), 1) - 1
        elif self._burns_due > 0:
            self._burns_due -= 1

    def cut_card(self) -> None:
        """The cut card came out: the coup in progress, or the next one, is the last (II.6, V.11, I.14)."""
        self.cut_card_out = True
        self.last_coup = True


class ShoeCoup:
    """Common part of a coup validator: burns, the composition, face-up cards, misdeals, voiding.

    Subclasses give `_due_card()` (the next card's place, a decision, or COMPLETE when the tableau
    is done), `_accept(card, to)` and `_misplaced(card, to, due, face_up)` (the misdeal for a card
    sent somewhere it is not due). Held cards (`hold`) go to the next place a card is due to."""

    article = ""  # the dealing-slip article (II.14 ...), for remedies
    decision_article = ""  # what happens to a card drawn before the decision it depends on

    def __init__(self, shoe: Shoe) -> None:
        self.shoe = shoe
        shoe.begin_coup()
        self.burned: list[Card] = []
        self.discarded: list[Card] = []
        self.held: list[Card] = []  # out of the shoe face down, for the next place that asks (V.18)
        self.void_reason: str | None = None
        self.void_article: str | None = None
        self._closed = False

    # --- what comes next --------------------------------------------------------------------
    @property
    def is_void(self) -> bool:
        return self.void_reason is not None

    @property
    def is_complete(self) -> bool:
        return not self.is_void and self.due().complete

    def due(self) -> Due:
        if self.is_void:
            return Due(complete=True, why=f"void: {self.void_reason} ({self.void_article})")
        if self.shoe.burns_due():
            return Due(to="burn", why=f"burn card ({self.shoe.rules.article})")
        return self._due_card()

    # --- events from the shoe and the console -------------------------------------------------
    def deal(self, card: Card | str | tuple, to: str | None = None, *, face_up: bool = False) -> Due:
        """One card out of the shoe, to `to` (None: wherever it is due). Returns what is due next;
        raises a `Misdeal` when the card breaks the procedure."""
        if self.is_void:
            raise CoupVoid(f"the coup is void ({self.void_reason})", Remedy.VOID_COUP, self.void_article or self.article)
        try:
            card = parse_card(card, article=self.article)
            self.shoe.check(card, self.article)
        except (UnknownCard, BeyondComposition) as exc:
            self._void(exc.message, exc.article)
            raise
        due = self.due()
        if face_up and not self.shoe.rules.face_up_counts:
            self.shoe.take(card, self.article)
            self.burned.append(card)
            return self._after_card()
        if due.to == "burn":
            if to not in (None, "burn"):
                raise WrongOrder(f"{card} sent to {to} while a burn card is due", Remedy.CORRECT_AT_ONCE,
                                 self.shoe.rules.article, card=card, due=due)
            self.shoe.burn(card, self.article)
            self.burned.append(card)
            return self._after_card()
        if due.complete:
            raise TooManyCards(f"{card} drawn after the coup is complete", Remedy.BURN_CARD, self.article,
                               card=card, due=due)
        if due.decision is not None:
            remedy, article = self._unasked_card(face_up)
            what = "the card is burned" if remedy is Remedy.BURN_CARD else \
                "unseen, the card is held for the next place that asks for one; turned, it is discarded"
            raise DecisionNeeded(f"{card} drawn while waiting for the decision {due.decision!r}: {what}",
                                 remedy, article, card=card, due=due)
        place = due.to if to is None else to
        if place != due.to:
            raise self._misplaced(card, place, due, face_up)
        self.shoe.take(card, self.article)
        self._accept(card, place)
        return self._after_card()

    def hold(self, card: Card | str | tuple) -> Due:
        """A card drawn by mistake and still face down (a `HOLD_FOR_NEXT` remedy): it is held and given
        to the next place that asks for a card; if none does before the coup is complete, it is discarded."""
        if self.is_void:
            raise CoupVoid(f"the coup is void ({self.void_reason})", Remedy.VOID_COUP, self.void_article or self.article)
        card = parse_card(card, article=self.article)
        try:
            self.shoe.take(card, self.article)
        except BeyondComposition as exc:
            self._void(exc.message, exc.article)
            raise
        self.held.append(card)
        return self._after_card()

    def discard(self, card: Card | str | tuple) -> Due:
        """A card that left the shoe outside the procedure goes to the discard (a `BURN_CARD` remedy)."""
        card = parse_card(card, article=self.article)
        try:
            self.shoe.take(card, self.article)
        except BeyondComposition as exc:
            self._void(exc.message, exc.article)
            raise
        self.discarded.append(card)
        return self.due()

    def cut_card(self) -> Due:
        """The cut card came out of the shoe."""
        self.shoe.cut_card()
        if self.shoe.last_coup_short and not self.is_void:
            self._void(f"only {self.shoe.cards_left} cards behind the cut card", self.shoe.rules.article)
        return self.due()

    def void(self, reason: str, article: str) -> None:
        """The dealer or the inspector voids the coup (a slip that cannot be corrected)."""
        self._void(reason, article)

    # --- for subclasses -------------------------------------------------------------------------
    def _void(self, reason: str, article: str) -> None:
        if self.void_reason is None:
            self.void_reason, self.void_article = reason, article
            self._close()

    def _after_card(self) -> Due:
        due = self.due()
        while self.held and due.to not in (None, "burn"):
            self._accept(self.held.pop(0), due.to)
            due = self.due()
        if due.complete:
            self.discarded.extend(self.held)
            self.held.clear()
            self._close()
        return due

    def _close(self) -> None:
        if not self._closed:
            self._closed = True
            self.shoe.end_coup()

    def _reopen(self) -> None:
        if self._closed and not self.is_void:
            self.shoe.reopen_coup()
            self._closed = False

    def _due_card(self) -> Due:
        return COMPLETE

    def _accept(self, card: Card, to: str) -> None:
        raise NotImplementedError

    def _misplaced(self, card: Card, to: str, due: Due, face_up: bool) -> Misdeal:
        raise NotImplementedError

    def _unasked_card(self, face_up: bool) -> tuple[Remedy, str]:
        """The remedy (and article) for a card drawn while a decision is due: burned by default (I.104 n)."""
        return Remedy.BURN_CARD, self.decision_article
