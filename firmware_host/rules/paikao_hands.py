"""P'ai Kao hands (Macau 1985, Art. 4-6): setting four tiles as two pairs, ranking them, settling seats.

A pair of tiles ("combinação") ranks, from the highest: a Pou (pair: the Gee Joon pair 1-2 + 2-4,
then the civil pairs Teen to Look, then the military pairs nines to fives), a Wong (Teen or
Day with a nine: "Tin / Tei Kao Vóng"), a Gong (Teen or Day with an eight: "Ting / Tei Kóng"),
then points 0-9, the pips modulo 10 (Art. 5.4), a Chi Chun (Gee Joon) tile counting 3 or 6,
whichever raises the points (Art. 5.5). Equal points: the higher single tile wins; equal again,
the banker (Art. 6.1: copies). Both fronts at 0 ("10 or 20"): the banker (Art. 6.2). The player
wins with both lines, loses with neither, pushes with one each (Art. 6.3-6.4); the casino takes
5% of the winnings (Art. 4.2). The seat ranking source is given in paikao_tiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from .errors import RulesError
from .paikao_tiles import DAY, GEE_JOON, RANK, SINGLE_RANKING, TEEN, Tile, parse_tile

PAIR, WONG, GONG, POINTS = 3, 2, 1, 0
_PAIR_ORDER = [GEE_JOON] + [frozenset(group) for group in SINGLE_RANKING[:15]]  # Gee Joon, Teen ... fives


class BadHand(RulesError, ValueError):
    """A setting that is not two pairs made of the seat's own four tiles."""


@dataclass(frozen=True, slots=True, order=True)
class PairValue:
    """A two-tile combination's value; compares like the ranking (higher is better)."""

    category: int  # PAIR, WONG, GONG or POINTS
    value: int  # the pair's rank, Teen over Day for Wong / Gong, or the points 0-9
    high_tile: int  # the higher single tile's rank, deciding equal points (Art. 6.1)

    def describe(self) -> str:
        if self.category == PAIR:
            return "Pou"
        if self.category in (WONG, GONG):
            return ("Teen " if self.value == 2 else "Day ") + ("Wong" if self.category == WONG else "Gong")
        return f"{self.value} points"


def pair_value(a: Tile, b: Tile) -> PairValue:
    """The value of two tiles held together."""
    high = max(RANK[a], RANK[b])
    two = frozenset({a, b})
    for i, pair in enumerate(_PAIR_ORDER):
        if (len(pair) == 2 and two == pair) or (len(pair) == 1 and a == b and a in pair):
            return PairValue(PAIR, len(_PAIR_ORDER) - i, high)
    for category, total in ((WONG, 9), (GONG, 8)):
        for lead, other in ((a, b), (b, a)):
            if lead in (TEEN, DAY) and other not in (TEEN, DAY) and other.pips == total:
                return PairValue(category, 2 if lead == TEEN else 1, high)
    options_a = (3, 6) if a in GEE_JOON else (a.pips,)
    options_b = (3, 6) if b in GEE_JOON else (b.pips,)
    points = max((x + y) % 10 for x in options_a for y in options_b)  # Art. 5.5: only ever to raise the value
    return PairValue(POINTS, points, high)


@dataclass(frozen=True, slots=True)
class SetHand:
    """A seat's four tiles set as front (the lower pair) and back (the higher), Art. 5.1-5.2."""

    front: tuple[Tile, Tile]
    back: tuple[Tile, Tile]
    front_value: PairValue
    back_value: PairValue

    def view(self) -> dict:
        return {"front": [str(t) for t in self.front], "back": [str(t) for t in self.back],
                "front_value": self.front_value.describe(), "back_value": self.back_value.describe()}


def set_hand(tiles: list[Tile], pair: list) -> SetHand:
    """Set four tiles: `pair` is one of the two pairs the player formed; the dealer puts the lower
    pair in front (Art. 5.2)."""
    tiles = [parse_tile(t) for t in tiles]
    chosen = [parse_tile(t) for t in pair]
    if len(tiles) != 4 or len(chosen) != 2:
        raise BadHand(f"a hand is four tiles set as two pairs, got {len(tiles)} tiles and a pair of {len(chosen)}")
    rest = list(tiles)
    for tile in chosen:
        if tile not in rest:
            raise BadHand(f"{tile} is not among the seat's tiles {[str(t) for t in tiles]}")
        rest.remove(tile)
    one, two = (tuple(chosen), pair_value(*chosen)), (tuple(rest), pair_value(*rest))
    front, back = sorted([one, two], key=lambda x: x[1])
    return SetHand(front[0], back[0], front[1], back[1])


def line_winner(player: PairValue, banker: PairValue, *, front: bool) -> str:
    """Who takes one line: the higher value; equal (copies) to the banker (Art. 6.1); both fronts
    at 0 to the banker whatever the tiles (Art. 6.2)."""
    if front and player.category == POINTS == banker.category and player.value == 0 == banker.value:
        return "banker"
    return "player" if player > banker else "banker"


def compare(player: SetHand, banker: SetHand) -> str:
    """"player" (both lines), "banker" (both lines) or "push" (one each, Art. 6.4)."""
    lines = [line_winner(player.front_value, banker.front_value, front=True),
             line_winner(player.back_value, banker.back_value, front=False)]
    if lines == ["player", "player"]:
        return "player"
    if lines == ["banker", "banker"]:
        return "banker"
    return "push"

