"""Baccarat roads: the bead plate, the big road and the three roads derived from it.

Big road: a new column when the winner changes from banker to player or back; a tie starts no
column, it is marked on the cell of the coup before it. Ties that open a shoe, before any banker
or player win, are marked on a first cell whose winner is not known yet (`winner` None); the
shoe's first banker or player win fills that cell, so they end up on the first cell, as boards
draw them. A cell carries the pairs of its coup and of the ties marked on it (the dots boards draw
on the big road as on the bead plate). Columns here are logical (top to bottom, no length limit); `grid_layout` turns them
into board positions with the dragon tail.

Derived roads (big eye boy k = 1, small road k = 2, cockroach pig k = 3) add one mark for each
banker or player entry of the big road, never for a tie. For an entry in column c, row r
(0-based, logical rows):
- r = 0 (a new column): red when columns c-1 and c-1-k have the same length, else blue;
- r >= 1: look at column c-k: blue when it has exactly r cells (its run stopped just above this
  row), red otherwise (it reaches this row, or it stopped earlier: both are "regular").
A road starts with the first entry that has something to compare: column k, row 1 — or, when
that column has a single cell, the first cell of column k+1. Starting at column k+1 for every
shoe skips the first comparable entry; a road built on a grid where a tie opened its own column
shifts every comparison. Both are tested. The marks form columns like the big road: same colour
down, a change of colour starts a new column.
"""

from __future__ import annotations

from dataclasses import dataclass

BANKER, PLAYER, TIE = "B", "P", "T"
RED, BLUE = "R", "B"
DERIVED_ROADS = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


@dataclass(frozen=True, slots=True)
class Coup:
    """One coup as boards record it: who won and whether either first two cards made a pair."""

    winner: str  # BANKER, PLAYER or TIE
    banker_pair: bool = False
    player_pair: bool = False

    def __post_init__(self) -> None:
        if self.winner not in (BANKER, PLAYER, TIE):
            raise ValueError(f"a coup is won by 'B', 'P' or 'T', not {self.winner!r}")


@dataclass(slots=True)
class BigRoadCell:
    """A big road cell: the winner (None only while a shoe has seen nothing but ties), the ties
    marked on it, and whether its coup or one of those ties had a banker / player pair."""

    winner: str | None
    ties: int = 0
    banker_pair: bool = False
    player_pair: bool = False

    def add_pairs(self, coup: Coup) -> None:
        self.banker_pair = self.banker_pair or coup.banker_pair
        self.player_pair = self.player_pair or coup.player_pair


def big_road(coups: list[Coup]) -> list[list[BigRoadCell]]:
    """The big road as logical columns, top to bottom."""
    columns: list[list[BigRoadCell]] = []
    for coup in coups:
        if coup.winner == TIE:
            if not columns:
                columns.append([BigRoadCell(None)])
            columns[-1][-1].ties += 1
        elif columns and columns[-1][-1].winner is None:  # the shoe opened with ties
            columns[-1][-1].winner = coup.winner
        elif columns and columns[-1][-1].winner == coup.winner:
            columns[-1].append(BigRoadCell(coup.winner))
        else:
            columns.append([BigRoadCell(coup.winner)])
        columns[-1][-1].add_pairs(coup)
    return columns


def column_lengths(road: list[list[BigRoadCell]]) -> list[int]:
    """Lengths of the big road's columns that hold a banker or player win."""
    return [len(col) for col in road if col[0].winner is not None]


def derived_marks(lengths: list[int], k: int) -> list[str]:
    """The marks of the derived road comparing column n-k, in the order the entries were made."""
    marks = []
    for c, length in enumerate(lengths):
        for r in range(length):
            if r == 0:
                if c - 1 - k >= 0:
                    marks.append(RED if lengths[c - 1] == lengths[c - 1 - k] else BLUE)
            elif c - k >= 0:
                marks.append(BLUE if lengths[c - k] == r else RED)
    return marks


def as_columns(marks: list[str]) -> list[list[str]]:
    """Marks in columns: same colour down, a change of colour starts a new column."""
    columns: list[list[str]] = []
    for mark in marks:
        if columns and columns[-1][-1] == mark:
            columns[-1].append(mark)
        else:
            columns.append([mark])
    return columns


def derived_roads(lengths: list[int]) -> dict[str, list[list[str]]]:
    """The three derived roads as columns of 'R' / 'B' marks."""
    return {name: as_columns(derived_marks(lengths, k)) for name, k in DERIVED_ROADS.items()}


def next_marks_for(road: list[list[BigRoadCell]]) -> dict[str, dict[str, str | None]]:
    """For a banker and for a player win next: the mark each derived road would add, or None."""
    lengths = column_lengths(road)
    last = road[-1][-1].winner if road and road[-1][-1].winner is not None else None
    out: dict[str, dict[str, str | None]] = {}
    for winner in (BANKER, PLAYER):
        extended = list(lengths)
        if last == winner:
            extended[-1] += 1
        else:
            extended.append(1)
        out[winner] = {}
        for name, k in DERIVED_ROADS.items():
            before, after = derived_marks(lengths, k), derived_marks(extended, k)
            out[winner][name] = after[-1] if len(after) > len(before) else None
    return out


@dataclass(frozen=True, slots=True)
class ShoeCounts:
    """Banker, player and tie wins and pairs seen in the shoe."""

    coups: int
    banker: int
    player: int
    tie: int
    banker_pair: int
    player_pair: int


def shoe_counts(coups: list[Coup]) -> ShoeCounts:
    return ShoeCounts(
        coups=len(coups),
        banker=sum(c.winner == BANKER for c in coups),
        player=sum(c.winner == PLAYER for c in coups),
        tie=sum(c.winner == TIE for c in coups),
        banker_pair=sum(c.banker_pair for c in coups),
        player_pair=sum(c.player_pair for c in coups),
    )
