"""Dice board records: craps throws with the point and the shooter's roll, cussec and banca
francesa results (total, small/big, triples), and P'ai Kao's first seat by round.

The craps point and shooter come from the rules core's state (`firmware_host.rules.craps`);
here each throw is only described the way boards show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..rules.banca_francesa import DECIDING
from ..rules.craps import POINTS, Craps, CrapsState
from ..rules.dice_game import Limits
from ..rules.cussec import is_triple
from ..rules.paikao import first_seat


def craps_outcome(point_before: int, total: int) -> str | None:
    """What a throw did to the line: on the come-out "natural" (7, 11), "craps" (2, 3, 12) or
    "point" (a point set); with a point on "point_made", "seven_out", or None (no decision)."""
    if point_before == 0:
        if total in (7, 11):
            return "natural"
        if total in (2, 3, 12):
            return "craps"
        return "point" if total in POINTS else None
    if total == point_before:
        return "point_made"
    return "seven_out" if total == 7 else None


@lru_cache(maxsize=1)
def _point_rules() -> Craps:
    # The point and the shooter change the same way in all three rule books (2010 Art. 4,
    # 1985 Art. 1, 1995 VI.8); limits do not matter here.
    return Craps("macau-2010", Limits(1, 1))


def craps_state_after(point: int, shooter: int, faces: tuple[int, ...]) -> tuple[int, int]:
    """(point, shooter) after a throw, by the rules core (point 0: the next throw is a come-out)."""
    after = _point_rules().next_state(CrapsState(point, shooter), tuple(faces))
    return after.point, after.shooter


@dataclass(frozen=True, slots=True)
class CrapsThrow:
    """A craps throw as the board shows it; `point` is the point in force before the throw."""

    faces: tuple[int, int]
    total: int
    point: int | None
    outcome: str | None
    shooter: int


def craps_throw(faces: tuple[int, ...], point_before: int, shooter: int) -> CrapsThrow:
    total = sum(faces)
    return CrapsThrow((faces[0], faces[1]), total, point_before or None, craps_outcome(point_before, total), shooter)


def roll_lengths(throws: list[CrapsThrow]) -> dict[int, int]:
    """Throws made by each shooter (a shooter's "roll"; a long one is a "hot roll")."""
    lengths: dict[int, int] = {}
    for t in throws:
        lengths[t.shooter] = lengths.get(t.shooter, 0) + 1
    return lengths


@dataclass(frozen=True, slots=True)
class ThreeDiceResult:
    """A cussec or banca francesa result. `chance` is what the total decides: cussec "small"
    (4-10) or "big" (11-17), None on a triple (both lose, 004 §VII.9); banca francesa "aces"
    (3), "small" (5-7), "big" (14-16), None for the totals that decide nothing (004 §IV.9)."""

    faces: tuple[int, int, int]
    total: int
    chance: str | None
    triple: bool


def cussec_result(faces: tuple[int, ...]) -> ThreeDiceResult:
    total, triple = sum(faces), is_triple(tuple(faces))
    chance = None if triple else ("small" if total <= 10 else "big")
    return ThreeDiceResult((faces[0], faces[1], faces[2]), total, chance, triple)


def banca_result(faces: tuple[int, ...]) -> ThreeDiceResult:
    total = sum(faces)
    return ThreeDiceResult((faces[0], faces[1], faces[2]), total, DECIDING.get(total), is_triple(tuple(faces)))


@dataclass(frozen=True, slots=True)
class PaiKaoRound:
    """A P'ai Kao shake: the four dice, their total and the seat given the first stack (0 = banker)."""

    faces: tuple[int, int, int, int]
    total: int
    first_seat: int
    winning_seats: tuple[int, ...] = ()  # the seats whose hands beat the banker's (002 Art. 6)


def paikao_round(faces: tuple[int, ...], winning_seats: tuple[int, ...] = ()) -> PaiKaoRound:
    seat = first_seat(tuple(faces))
    if any(isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 7 for s in winning_seats):
        raise ValueError(f"winning seats are seats 1 to 7, got {list(winning_seats)}")
    return PaiKaoRound((faces[0], faces[1], faces[2], faces[3]), sum(faces), seat, tuple(winning_seats))
