"""Roulette board statistics: the last numbers with colour and ball direction, hot and cold
numbers, and the counts of the even chances, zero, dozens and columns over a window of spins.

Single-zero wheel (004 §IX, §X). Zero is neither red nor black, odd nor even, low nor high and
belongs to no dozen or column, so it is counted on its own. Hot numbers are the most frequent in
the window (ties: the one seen most recently first); cold numbers the least frequent, numbers
never seen included (ties: the one absent longest first, then the lower number).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

RED_NUMBERS = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})
NUMBERS = range(37)
DIRECTIONS = ("cw", "ccw")  # the ball's direction, alternating spin to spin (004 §X.15)


def colour_of(number: int) -> str:
    if number not in NUMBERS:
        raise ValueError(f"a single-zero wheel has numbers 0 to 36, not {number}")
    if number == 0:
        return "green"
    return "red" if number in RED_NUMBERS else "black"


@dataclass(frozen=True, slots=True)
class Spin:
    """One valid spin: the winning number and the ball's direction when the wheel reports it."""

    number: int
    direction: str | None = None

    def __post_init__(self) -> None:
        colour_of(self.number)
        if self.direction is not None and self.direction not in DIRECTIONS:
            raise ValueError(f"a ball runs 'cw' or 'ccw', not {self.direction!r}")


@dataclass(frozen=True, slots=True)
class NumberCount:
    number: int
    count: int


@dataclass(frozen=True, slots=True)
class ChanceCounts:
    """How many spins of the window fell on each chance."""

    spins: int
    zero: int
    red: int
    black: int
    odd: int
    even: int
    low: int
    high: int
    dozens: tuple[int, int, int]
    columns: tuple[int, int, int]


def chance_counts(numbers: list[int]) -> ChanceCounts:
    non_zero = [n for n in numbers if n != 0]
    return ChanceCounts(
        spins=len(numbers),
        zero=len(numbers) - len(non_zero),
        red=sum(n in RED_NUMBERS for n in non_zero),
        black=sum(n not in RED_NUMBERS for n in non_zero),
        odd=sum(n % 2 == 1 for n in non_zero),
        even=sum(n % 2 == 0 for n in non_zero),
        low=sum(n <= 18 for n in non_zero),
        high=sum(n >= 19 for n in non_zero),
        dozens=tuple(sum((n - 1) // 12 == d for n in non_zero) for d in range(3)),
        columns=tuple(sum((n - 1) % 3 == c for n in non_zero) for c in range(3)),
    )


def hot_and_cold(numbers: list[int], how_many: int) -> tuple[list[NumberCount], list[NumberCount]]:
    """The `how_many` hottest and coldest numbers of `numbers` (oldest first)."""
    counts = Counter(numbers)
    last_seen = {n: i for i, n in enumerate(numbers)}  # later index = seen more recently
    hot_order = sorted(counts, key=lambda n: (-counts[n], -last_seen[n]))
    cold_order = sorted(NUMBERS, key=lambda n: (counts.get(n, 0), last_seen.get(n, -1), n))
    hot = [NumberCount(n, counts[n]) for n in hot_order[:how_many]]
    cold = [NumberCount(n, counts.get(n, 0)) for n in cold_order[:how_many]]
    return hot, cold

