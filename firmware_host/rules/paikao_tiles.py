"""P'ai Kao tiles (Macau Portaria of 17 May 1985, seed 002): the 32 Chinese dominoes and the deal.

The seed names the tile and pair ranking tables (Art. 5.3) but does not print them; the standard
published Pai Gow ranking is used (California Department of Justice, "Pai Gow Tiles",
California/Asian-style games; Wikipedia "Pai gow", ranking of tiles and pairs):
eleven civil tiles, two of each, ranked Teen (6-6), Day (1-1), Yun (4-4), Gor (1-3), Mooy (5-5),
Chong (3-3), Bon (2-2), Foo (5-6), Ping (4-6), Tit (1-6), Look (1-5); ten military tiles, one
of each, ranked by pips in equal pairs: nines (4-5, 3-6), eights (3-5, 2-6), sevens (3-4, 2-5),
fives (1-4, 2-3); and the Gee Joon tiles 1-2 and 2-4, the lowest single tiles (the "Chi Chun",
counting 3 or 6, Art. 5.5) that together make the highest pair.
The deal (Art. 1.4, 2.2-2.3): every seat gets a stack of four tiles in dealing order; one tile
turned face up by chance is valid; two put that seat out of play for the deal, and two at the
banker's seat void the whole deal. A deal is followed tile by tile as dealt (`deal`), or stack by
stack as the seats are opened at the table (`stack`: all eight stacks are on the table before any
is opened, Art. 1.4 and 8.1, so the seats come in any order and a wrong entry is refused unchanged).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .misdeal import (BeyondComposition, COMPLETE, CardNotDue, CoupVoid, Due, Remedy, TooManyCards, UnknownCard,
                      WrongOrder)

ARTICLE = "Macau P'ai Kao 1985 Art. 1.4, 2.2-2.3"


@dataclass(frozen=True, slots=True, order=True)
class Tile:
    """A domino by its two ends, low end first: Tile(1, 2) is the 1-2 Gee Joon tile."""

    low: int
    high: int

    @property
    def pips(self) -> int:
        return self.low + self.high

    @property
    def name(self) -> str:
        return TILE_NAMES[self]

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"


# Single tiles from the highest rank down; tiles in one inner tuple rank equal (military pairs).
SINGLE_RANKING: tuple[tuple[Tile, ...], ...] = (
    (Tile(6, 6),), (Tile(1, 1),), (Tile(4, 4),), (Tile(1, 3),), (Tile(5, 5),), (Tile(3, 3),), (Tile(2, 2),),
    (Tile(5, 6),), (Tile(4, 6),), (Tile(1, 6),), (Tile(1, 5),),
    (Tile(4, 5), Tile(3, 6)), (Tile(3, 5), Tile(2, 6)), (Tile(3, 4), Tile(2, 5)), (Tile(1, 4), Tile(2, 3)),
    (Tile(1, 2), Tile(2, 4)),
)
TILE_NAMES = {
    Tile(6, 6): "Teen", Tile(1, 1): "Day", Tile(4, 4): "Yun", Tile(1, 3): "Gor", Tile(5, 5): "Mooy",
    Tile(3, 3): "Chong", Tile(2, 2): "Bon", Tile(5, 6): "Foo", Tile(4, 6): "Ping", Tile(1, 6): "Tit",
    Tile(1, 5): "Look", Tile(4, 5): "nine", Tile(3, 6): "nine", Tile(3, 5): "eight", Tile(2, 6): "eight",
    Tile(3, 4): "seven", Tile(2, 5): "seven", Tile(1, 4): "five", Tile(2, 3): "five",
    Tile(1, 2): "Gee Joon", Tile(2, 4): "Gee Joon",
}
CIVIL = frozenset(group[0] for group in SINGLE_RANKING[:11])
GEE_JOON = frozenset({Tile(1, 2), Tile(2, 4)})
SET = Counter({tile: (2 if tile in CIVIL else 1) for tile in TILE_NAMES})  # Art. 1.1: 32 tiles
RANK = {tile: len(SINGLE_RANKING) - i for i, group in enumerate(SINGLE_RANKING) for tile in group}
TEEN, DAY = Tile(6, 6), Tile(1, 1)

_TILE_TEXT = re.compile(r"^\s*([1-6])\s*[-:/]\s*([1-6])\s*$")


def parse_tile(tile: Tile | str | tuple | list) -> Tile:
    """A tile from "6-6", (2, 4) or a Tile; anything not in the 32-tile set raises `UnknownCard`."""
    if isinstance(tile, Tile):
        ends = (tile.low, tile.high)
    elif isinstance(tile, str) and _TILE_TEXT.match(tile):
        ends = tuple(int(x) for x in _TILE_TEXT.match(tile).groups())
    elif isinstance(tile, (tuple, list)) and len(tile) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in tile):
        ends = tuple(tile)
    else:
        raise UnknownCard(f"not a domino: {tile!r} (write the two ends, e.g. '6-6' or '2-4')", Remedy.VOID_COUP, ARTICLE)
    result = Tile(min(ends), max(ends))
    if result not in SET:
        raise UnknownCard(f"{result} is not one of the 32 P'ai Kao tiles (Art. 1.1)", Remedy.VOID_COUP, ARTICLE)
    return result


class PaiKaoDeal:
    """The deal of one round: four tiles to every seat in dealing order (0 = the banker)."""

    def __init__(self, order: list[int]) -> None:
        """`order`: the seats in dealing order (`paikao.dealing_order` of the four dice), all eight."""
        if sorted(order) != list(range(8)):
            raise ValueError(f"a P'ai Kao deal goes to the eight seats 0-7, got {order}")
        self.order = list(order)
        self.tiles: dict[int, list[Tile]] = {seat: [] for seat in order}
        self.face_up: Counter = Counter()
        self.left: Counter = Counter(SET)
        self.void_reason: str | None = None

    @property
    def is_void(self) -> bool:
        return self.void_reason is not None

    @property
    def seats_out(self) -> list[int]:
        """Seats with two (or more) tiles turned face up: out of play for this deal (Art. 2.3)."""
        return sorted(s for s, n in self.face_up.items() if n >= 2 and s != 0)

    def due(self) -> Due:
        if self.is_void:
            return Due(complete=True, why=f"void: {self.void_reason}")
        for seat in self.order:
            if len(self.tiles[seat]) < 4:
                return Due(to=f"seat {seat}", why="a stack of four tiles to each seat in dealing order (Art. 1.4)")
        return COMPLETE

    def deal(self, tile: Tile | str | tuple, seat: int | None = None, *, face_up: bool = False) -> Due:
        """One tile to `seat` (None: the seat it is due to); `face_up` when it turned over by chance."""
        if self.is_void:
            raise CoupVoid(f"the deal is void ({self.void_reason})", Remedy.VOID_COUP, ARTICLE)
        due = self.due()
        try:
            tile = parse_tile(tile)
            if self.left[tile] <= 0:
                raise BeyondComposition(f"{tile}: the set holds {SET[tile]} and all are dealt", Remedy.VOID_COUP, ARTICLE)
        except (UnknownCard, BeyondComposition) as exc:
            self.void_reason = exc.message
            raise
        place = int(due.to.split()[1])
        if seat is not None and seat != place:
            raise WrongOrder(f"{tile} to seat {seat}: the stack is due to seat {place}", Remedy.CORRECT_AT_ONCE,
                             ARTICLE, card=tile, due=due)
        self.left[tile] -= 1
        self.tiles[place].append(tile)
        if face_up:
            self.face_up[place] += 1
            if place == 0 and self.face_up[0] >= 2:
                self.void_reason = "two of the banker's tiles turned face up in the deal (Art. 2.3)"
        return self.due()

    def check_stack(self, seat: int, tiles: list, face_up: list = ()) -> list[Tile]:
        """A seat's four tiles as opened (and those of them that turned face up in the deal), parsed; a
        `Misdeal` (remedy: correct the entry) when they cannot be its stack: a seat already entered, not
        four tiles (Art. 1.4), a tile not of the set or beyond its count in the 32 (Art. 1.1: every tile
        once per deal), a face-up tile not among the four. Nothing changes."""
        if self.is_void:
            raise CoupVoid(f"the deal is void ({self.void_reason})", Remedy.VOID_COUP, ARTICLE)
        if isinstance(seat, bool) or seat not in self.tiles:
            raise CardNotDue(f"seats are 0 (the banker) to 7, not {seat!r}", Remedy.CORRECT_AT_ONCE, ARTICLE)
        if self.tiles[seat]:
            raise CardNotDue(f"seat {seat} is already entered: {[str(t) for t in self.tiles[seat]]}",
                             Remedy.CORRECT_AT_ONCE, ARTICLE)
        if len(tiles) != 4:
            raise TooManyCards(f"a stack is four tiles (Art. 1.4), seat {seat} got {len(tiles)}", Remedy.CORRECT_AT_ONCE,
                               ARTICLE)
        parsed = [_entered(t) for t in tiles]
        for tile, n in Counter(parsed).items():
            if n > self.left[tile]:
                entered = SET[tile] - self.left[tile]
                raise BeyondComposition(f"{tile} ({tile.name}): the set holds {SET[tile]} and {entered} "
                                        f"{'is' if entered == 1 else 'are'} already entered (Art. 1.1)",
                                        Remedy.CORRECT_AT_ONCE, ARTICLE, card=tile)
        up = [_entered(t) for t in face_up]
        if Counter(up) - Counter(parsed):
            raise CardNotDue(f"face-up tiles {[str(t) for t in up]} are not among seat {seat}'s "
                             f"{[str(t) for t in parsed]}", Remedy.CORRECT_AT_ONCE, ARTICLE)
        return parsed

    def stack(self, seat: int, tiles: list, face_up: list = ()) -> Due:
        """Enter a seat's stack as opened (see `check_stack`); two face-up tiles at the banker's seat void
        the deal, at another seat put it out of play (Art. 2.3)."""
        parsed = self.check_stack(seat, tiles, face_up)
        self.left.subtract(parsed)
        self.tiles[seat] = parsed
        self.face_up[seat] += len(face_up)
        if seat == 0 and self.face_up[0] >= 2:
            self.void_reason = "two of the banker's tiles turned face up in the deal (Art. 2.3)"
        return self.due()


def _entered(tile) -> Tile:
    """A tile as entered at a console: a typing error is corrected, never a void deal."""
    try:
        return parse_tile(tile)
    except UnknownCard as exc:
        raise UnknownCard(exc.message, Remedy.CORRECT_AT_ONCE, ARTICLE) from None
