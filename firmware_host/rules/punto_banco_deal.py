"""Punto banco dealing validator (Portugal 1995 II.12-14, III.12-14): card by card, what comes next.

Two cards to each group, one at a time and alternately, the player's group first (II.12);
then at most one more card each, the player's first, by the tableau (II.13). A card sent to
the wrong group is corrected at once; one drawn after the coup is complete is burned; a card
foreign to the shoe cannot be corrected and voids the coup (II.14).
"""

from __future__ import annotations

from dataclasses import dataclass

from .baccarat_tableau import banker_draws, is_natural, player_draws, points
from .cards import Card, baccarat_value
from .misdeal import COMPLETE, CardNotDue, CoupNotFinished, Due, Misdeal, Remedy, WrongOrder
from .shoe import Shoe, ShoeCoup, punto_banco_shoe

PLACES = ("player", "banker")


@dataclass(frozen=True, slots=True)
class BaccaratResult:
    """A finished coup as the boards show it: cards, points, winner, naturals and pairs."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    player_points: int
    banker_points: int
    winner: str  # "banker", "player" or "tie"
    natural: bool
    player_pair: bool  # the group's first two cards of the same rank (recorded, not bet)
    banker_pair: bool

    def view(self) -> dict:
        return {
            "player": [str(c) for c in self.player], "banker": [str(c) for c in self.banker],
            "player_points": self.player_points, "banker_points": self.banker_points,
            "winner": self.winner, "natural": self.natural,
            "player_pair": self.player_pair, "banker_pair": self.banker_pair,
        }


def baccarat_result(player: list[Card], banker: list[Card]) -> BaccaratResult:
    p, b = points(player), points(banker)
    return BaccaratResult(
        tuple(player), tuple(banker), p, b,
        "banker" if b > p else "player" if p > b else "tie",
        is_natural(points(player[:2])) or is_natural(points(banker[:2])),
        player[0].rank == player[1].rank, banker[0].rank == banker[1].rank,
    )


class PuntoBancoCoup(ShoeCoup):
    """One punto banco coup from its burn card(s) to its last card."""

    def __init__(self, shoe: Shoe | None = None, *, article: str = "II.14") -> None:
        """`shoe` None: a coup checked on its own, from a fresh 8-deck shoe with nothing to burn.
        `article` is the dealing-slip article: II.14 (Portugal) or III.14 (Macau)."""
        self.article = f"Portugal 1995 {article}"
        self.player: list[Card] = []
        self.banker: list[Card] = []
        super().__init__(shoe if shoe is not None else Shoe(punto_banco_shoe(8), burns=False))

    def _due_card(self) -> Due:
        p, b = self.player, self.banker
        if len(p) + len(b) < 4:
            side = "player" if len(p) == len(b) else "banker"
            return Due(to=side, why=f"{side} card {len(p if side == 'player' else b) + 1} of 2, alternately, player first (II.12)")
        p2, b2 = points(p[:2]), points(b[:2])
        if is_natural(p2) or is_natural(b2):
            return COMPLETE
        if len(p) == 2 and player_draws(p2):
            return Due(to="player", why=f"player's third card: the player's group has {p2} and draws on 0-5 (II.13)")
        third = baccarat_value(p[2]) if len(p) == 3 else None
        if len(b) == 2 and banker_draws(b2, third):
            on = "the player stood" if third is None else f"the player's third card counts {third}"
            return Due(to="banker", why=f"banker's third card: the banker has {b2} and {on} (II.13)")
        return COMPLETE

    def _accept(self, card: Card, to: str) -> None:
        (self.player if to == "player" else self.banker).append(card)

    def _may_get_more(self, place: str) -> bool:
        """Whether `place` could still receive a card in this coup (so a card now is early, not extra)."""
        hand = self.player if place == "player" else self.banker
        if len(self.player) + len(self.banker) < 4:
            return True
        if is_natural(points(self.player[:2])) or is_natural(points(self.banker[:2])):
            return False
        if place == "player":
            return len(hand) == 2 and player_draws(points(self.player[:2]))
        return len(hand) == 2

    def _misplaced(self, card: Card, to: str, due: Due, face_up: bool) -> Misdeal:
        if to not in PLACES and to != "burn":
            return CardNotDue(f"{card} sent to {to!r}: punto banco deals to the player or the banker",
                              Remedy.CORRECT_AT_ONCE, self.article, card=card, due=due)
        if to != "burn" and self._may_get_more(to):
            return WrongOrder(f"{card} to the {to} before its turn: the card is due to the {due.to}",
                              Remedy.CORRECT_AT_ONCE, self.article, card=card, due=due)
        return CardNotDue(f"{card} to the {to}, which gets no card now: the card is due to the {due.to}",
                          Remedy.CORRECT_AT_ONCE, self.article, card=card, due=due)

    def result(self) -> BaccaratResult:
        """The finished coup; asking before it is complete (or of a void coup) is an error."""
        if self.is_void or not self.is_complete:
            raise CoupNotFinished("the coup is " + ("void" if self.is_void else "not complete") + ": it has no result")
        return baccarat_result(self.player, self.banker)
