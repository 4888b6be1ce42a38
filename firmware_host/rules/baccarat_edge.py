"""Punto banco by exhaustive enumeration of the shoe: every coup, cards drawn without replacement.

Cards are counted by baccarat value (0-9, the 10-value cards grouped) with their multiplicities,
and the coup is recursed over value by value: 10^4 initial deals and at most 100 third-card
pairs each, instead of the ~5·10^15 card sequences they stand for. Counts are of ordered
sequences of six cards (a coup that ends on its 4th or 5th card is completed by the cards that
would follow), which is how the published 8-deck figures are given.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .baccarat_tableau import banker_draws
from .cards import baccarat_value_counts


@dataclass(frozen=True, slots=True)
class CoupCounts:
    """How many ordered six-card sequences end in each result."""

    banker: int
    player: int
    tie: int

    @property
    def total(self) -> int:
        return self.banker + self.player + self.tie

    def probability(self, result: str) -> Fraction:
        return Fraction(getattr(self, result), self.total)


def enumerate_coups(counts: list[int]) -> CoupCounts:
    """Exact counts of banker wins, player wins and ties from a shoe holding `counts[v]` cards of
    baccarat value v (v = 0..9), the cards dealt player, banker, player, banker, then thirds."""
    if len(counts) != 10 or any(c < 0 for c in counts):
        raise ValueError("counts must give how many cards of each value 0-9 the shoe holds")
    c = list(counts)
    n = sum(c)
    if n < 6:
        raise ValueError("a coup needs at least six cards in the shoe")
    tail4 = (n - 4) * (n - 5)  # completes a four-card coup to six cards
    tail5 = n - 5
    wins = [0, 0, 0]  # banker, player, tie
    values = range(10)

    def score(p: int, b: int, weight: int) -> None:
        wins[0 if b > p else 1 if p > b else 2] += weight

    for p1 in values:
        w1 = c[p1]
        if not w1:
            continue
        c[p1] -= 1
        for b1 in values:
            w2 = w1 * c[b1]
            if not w2:
                continue
            c[b1] -= 1
            for p2 in values:
                w3 = w2 * c[p2]
                if not w3:
                    continue
                c[p2] -= 1
                p = (p1 + p2) % 10
                for b2 in values:
                    w4 = w3 * c[b2]
                    if not w4:
                        continue
                    c[b2] -= 1
                    b = (b1 + b2) % 10
                    if p >= 8 or b >= 8:
                        score(p, b, w4 * tail4)
                    elif p <= 5:
                        for p3 in values:
                            w5 = w4 * c[p3]
                            if not w5:
                                continue
                            c[p3] -= 1
                            pf = (p + p3) % 10
                            if banker_draws(b, p3):
                                for b3 in values:
                                    w6 = w5 * c[b3]
                                    if w6:
                                        score(pf, (b + b3) % 10, w6)
                            else:
                                score(pf, b, w5 * tail5)
                            c[p3] += 1
                    elif banker_draws(b, None):
                        for b3 in values:
                            w5 = w4 * c[b3]
                            if w5:
                                score(p, (b + b3) % 10, w5 * tail5)
                    else:
                        score(p, b, w4 * tail4)
                    c[b2] += 1
                c[p2] += 1
            c[b1] += 1
        c[p1] += 1
    return CoupCounts(*wins)


def enumerate_decks(decks: int) -> CoupCounts:
    """The full-shoe enumeration for `decks` 52-card decks."""
    return enumerate_coups(baccarat_value_counts(decks))
