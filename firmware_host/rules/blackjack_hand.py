"""Blackjack hands (Portugal 1995 V.1, V.6, V.20, V.26-35): totals, blackjack, the 6-7-8 / 7-7-7 bonus.

The ace counts 1 or 11 (V.6); a player's hand counts it 11 whenever that keeps the hand at 21
or under, except an ace among the first two cards of a hand doubled as 9 or 10, which stays 1
(V.32: "uma das duas primeiras cartas"); an ace drawn on the double is any ace (A-8 doubled, then an
ace: 1 + 8 + 11 = 20). The dealer's ace counts 11 when that makes 17 to 21, so he stands on soft 17.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import Card, blackjack_value


def hard_total(cards: list[Card]) -> int:
    """Every ace counted 1."""
    return sum(blackjack_value(c) for c in cards)


def best_total(cards: list[Card]) -> int:
    """One ace counted 11 when that keeps the total at 21 or under (V.6)."""
    hard = hard_total(cards)
    return hard + 10 if any(c.rank == "A" for c in cards) and hard + 10 <= 21 else hard


def is_soft(cards: list[Card]) -> bool:
    return best_total(cards) != hard_total(cards)


def is_ten_value(card: Card) -> bool:
    return blackjack_value(card) == 10


def dealer_stands(cards: list[Card]) -> bool:
    """V.6, V.19: the dealer stands on 17 or more, an ace counting 11 when that makes 17-21 (soft 17 stands)."""
    return best_total(cards) >= 17


def is_bonus(cards: list[Card]) -> bool:
    """V.35: 6-7-8 of one suit, or three 7s."""
    if len(cards) != 3:
        return False
    ranks = sorted(c.rank for c in cards)
    if ranks == ["7", "7", "7"]:
        return True
    return ranks == ["6", "7", "8"] and len({c.suit for c in cards}) == 1


@dataclass
class Hand:
    """One hand of a box: its cards and what was decided on it."""

    cards: list[Card] = field(default_factory=list)
    from_split: bool = False
    split_aces: bool = False  # V.26: split aces take one card each
    doubled: bool = False
    ace_as_one: bool = False  # V.32: doubled as 9 or 10 with an ace of the first two cards counted 1
    resplit_aces: bool = False  # V.27: a split ace that draws another ace may split again (the table's reading)
    stood: bool = False
    asked: bool = False  # the holder said "card": one card is due to this hand
    even_money: bool = False  # V.34: a blackjack paid 1:1 before the hole card is known

    @property
    def total(self) -> int:
        if not self.ace_as_one:
            return best_total(self.cards)
        # V.32 binds the aces of the first two cards only; the card drawn on the double counts as V.6 says.
        hard = hard_total(self.cards)
        drawn_ace = any(c.rank == "A" for c in self.cards[2:])
        return hard + 10 if drawn_ace and hard + 10 <= 21 else hard

    @property
    def aces_to_resplit(self) -> bool:
        """A split ace that drew another ace, where the table lets aces split again (V.27)."""
        return (self.split_aces and self.resplit_aces and len(self.cards) == 2
                and all(c.rank == "A" for c in self.cards) and not self.stood)

    @property
    def is_blackjack(self) -> bool:
        """An ace and a ten-value card as a hand's first two cards, not after a split (V.1 a, V.20)."""
        return not self.from_split and len(self.cards) == 2 and best_total(self.cards) == 21

    @property
    def bust(self) -> bool:
        return self.total > 21

    @property
    def wants_card(self) -> bool:
        """A card is due: the second card of a split hand, the card asked for, the card on a double."""
        return len(self.cards) < 2 or self.asked or (self.doubled and len(self.cards) == 2)

    @property
    def finished(self) -> bool:
        """No more cards or decisions: stood, bust, 21 (V.18), a blackjack, or one card after a double or split aces."""
        if len(self.cards) < 2:
            return False
        return (self.stood or self.bust or self.total == 21 or self.is_blackjack or self.even_money
                or (self.doubled and len(self.cards) == 3)
                or (self.split_aces and len(self.cards) == 2 and not self.aces_to_resplit))

    def view(self) -> dict:
        out = {"cards": [str(c) for c in self.cards], "total": self.total}
        for flag in ("from_split", "doubled", "ace_as_one", "even_money"):
            if getattr(self, flag):
                out[flag] = True
        if self.is_blackjack:
            out["blackjack"] = True
        if self.bust:
            out["bust"] = True
        return out
