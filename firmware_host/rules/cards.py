"""Playing cards as the shoe scanner reports them: rank and suit, their values, and a shoe's composition.

A card is read as text ("AS", "10h", "Td", "qc") or a (rank, suit) pair. Ranks: A 2-10 J Q K
(T is read as 10); suits: S H D C. Values follow Portugal 1995: baccarat (I.9, II.8) counts
the ace 1 and tens and faces 0; blackjack (V.6) counts faces 10 and the ace 1 or 11.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .misdeal import Remedy, UnknownCard

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")  # spades, hearts, diamonds, clubs
_RANK_ALIASES = {"T": "10", "1": "A"}


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card, e.g. Card("10", "H")."""

    rank: str
    suit: str

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"


def parse_card(card: Card | str | tuple[str, str] | list, *, article: str = "II.14") -> Card:
    """A `Card` from text or a (rank, suit) pair; anything that is not a card of a 52-card deck
    raises `UnknownCard` (a misdeal: a card foreign to the shoe cannot be corrected)."""
    if isinstance(card, Card):
        rank, suit = card.rank, card.suit
    elif isinstance(card, str):
        text = card.strip().upper()
        rank, suit = text[:-1], text[-1:]
    elif isinstance(card, (tuple, list)) and len(card) == 2 and all(isinstance(x, (str, int)) for x in card):
        rank, suit = str(card[0]).strip().upper(), str(card[1]).strip().upper()
    else:
        raise UnknownCard(f"not a card: {card!r}", Remedy.VOID_COUP, article)
    rank = _RANK_ALIASES.get(rank, rank)
    if rank not in RANKS or suit not in SUITS:
        raise UnknownCard(f"not a card of a 52-card deck: {card!r} (ranks A 2-10 J Q K, suits S H D C)",
                          Remedy.VOID_COUP, article)
    return Card(rank, suit)


def baccarat_value(card: Card) -> int:
    """Points in baccarat (Portugal 1995 I.9, II.8): ace 1, 2-9 their pips, 10 and faces 0."""
    if card.rank == "A":
        return 1
    if card.rank in ("10", "J", "Q", "K"):
        return 0
    return int(card.rank)


def blackjack_value(card: Card) -> int:
    """Points in blackjack with the ace as 1 (Portugal 1995 V.6): faces 10, others their pips."""
    if card.rank == "A":
        return 1
    if card.rank in ("J", "Q", "K"):
        return 10
    return int(card.rank)


def pip_value(card: Card) -> int:
    """The card's printed value, faces 0 (chemin de fer I.9: used to count the burn cards, I.13)."""
    if card.rank in ("J", "Q", "K"):
        return 0
    return 1 if card.rank == "A" else int(card.rank)


def shoe_composition(decks: int) -> Counter:
    """Every card of `decks` 52-card decks, as card -> count."""
    return Counter({Card(r, s): decks for r in RANKS for s in SUITS})


def baccarat_value_counts(decks: int) -> list[int]:
    """How many cards of each baccarat value 0-9 a shoe of `decks` decks holds."""
    counts = [0] * 10
    for card, n in shoe_composition(decks).items():
        counts[baccarat_value(card)] += n
    return counts
