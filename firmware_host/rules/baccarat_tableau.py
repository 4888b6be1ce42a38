"""Baccarat points and drawing tables: punto banco (Portugal 1995 II.13, III.13) and chemin de fer (I.64-67).

Points are the sum of the card values modulo 10 (II.8: 10 and 20 count 0). Punto banco draws
by a fixed tableau; chemin de fer leaves the player's 5 and two banker cells to the hand's
choice ("O", optional), which the validator asks of the dealer console.
"""

from __future__ import annotations

import enum
from typing import Iterable

from .cards import Card, baccarat_value


def points(cards: Iterable[Card]) -> int:
    """A baccarat hand's points: the sum of card values modulo 10."""
    return sum(baccarat_value(c) for c in cards) % 10


def is_natural(two_card_points: int) -> bool:
    """8 or 9 on the first two cards: shown at once, nobody draws (II.13)."""
    return two_card_points >= 8


# --- punto banco (II.13 / III.13) ------------------------------------------------------------

def player_draws(player_points: int) -> bool:
    """The player's group draws on 0-5 and stands on 6-7 (naturals are handled before)."""
    return player_points <= 5


# Banker's points -> the player's third-card values on which the banker draws (II.13 table).
BANKER_DRAWS_ON = {
    3: frozenset({0, 1, 2, 3, 4, 5, 6, 7, 9}),  # "1-2-3-4-5-6-7-9-10": draws unless the card is an 8
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
}


def banker_draws(banker_points: int, player_third: int | None) -> bool:
    """The banker's group draws per II.13: 0-2 always; 3-5 when the player did not draw, 6 stands
    then; with a player's third card, 3-6 by the table; 7 stands."""
    if banker_points <= 2:
        return True
    if banker_points >= 7:
        return False
    if player_third is None:
        return banker_points <= 5
    return player_third in BANKER_DRAWS_ON[banker_points]


# --- chemin de fer (I.64, I.67) ---------------------------------------------------------------

class Cell(enum.StrEnum):
    """One cell of the chemin de fer tables: must draw, must stand, or the hand's option."""

    DRAW = "T"  # tirar
    STAND = "F"  # ficar
    OPTIONAL = "O"  # à vontade


def player_cell(player_points: int) -> Cell:
    """I.64: 6-7 stand, under 5 draw, 5 at the player's will (naturals are shown before)."""
    if player_points == 5:
        return Cell.OPTIONAL
    return Cell.DRAW if player_points < 5 else Cell.STAND


# I.67 d: banker 3-6 against the player's third card 0-9, and "the player did not ask for a card".
_CDF_TABLE = {
    3: "TTTTTTTTFO" + "T",
    4: "FFTTTTTTFF" + "T",
    5: "FFFFOTTTFF" + "T",
    6: "FFFFFFTTFF" + "F",
}


def banker_cell(banker_points: int, player_third: int | None) -> Cell:
    """I.67: 7 stands; 0-2 draw (the player did not show: naturals end the coup before);
    3-6 by the table, the last column when the player stood."""
    if banker_points >= 7:
        return Cell.STAND
    if banker_points <= 2:
        return Cell.DRAW
    row = _CDF_TABLE[banker_points]
    return Cell(row[10] if player_third is None else row[player_third])
