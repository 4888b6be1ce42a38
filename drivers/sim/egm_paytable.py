"""A simulated slot paytable scaled to an exact return to player (RTP), with its variance per unit bet."""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from ..sas.errors import SasError

# Win multipliers of the bet and their relative weights; scaled so that the mean return is the RTP.
_SHAPE = ((1, 20000), (2, 10000), (5, 2000), (20, 200), (100, 20), (1000, 1))


@dataclass(frozen=True, slots=True)
class Paytable:
    """Outcomes as (probability, multiplier of the bet); multiplier 0 is a losing game."""

    outcomes: tuple[tuple[Fraction, int], ...]
    scale: int  # common denominator of the probabilities
    thresholds: tuple[int, ...]  # cumulative numerators over `scale`, for an exact draw

    @classmethod
    def from_outcomes(cls, outcomes: tuple[tuple[Fraction, int], ...]) -> Paytable:
        scale = lcm(*(p.denominator for p, _ in outcomes))
        running, thresholds = 0, []
        for p, _ in outcomes:
            running += p.numerator * (scale // p.denominator)
            thresholds.append(running)
        if running != scale:
            raise SasError(f"paytable probabilities add up to {Fraction(running, scale)}, not 1")
        return cls(outcomes, scale, tuple(thresholds))

    @classmethod
    def for_rtp(cls, rtp: Fraction) -> Paytable:
        rtp = Fraction(rtp)
        mean_of_shape = sum(Fraction(w * m) for m, w in _SHAPE)
        scale = rtp / mean_of_shape
        wins = tuple((scale * w, m) for m, w in _SHAPE)
        lose = 1 - sum(p for p, _ in wins)
        if not 0 < rtp or lose < 0:
            raise SasError(f"RTP {rtp} cannot be built from the simulator's paytable shape")
        return cls.from_outcomes(((lose, 0),) + wins)

    @property
    def rtp(self) -> Fraction:
        return sum(p * m for p, m in self.outcomes)

    @property
    def variance(self) -> Fraction:
        """Variance of the return per unit bet of one game (what the payback monitor is configured with)."""
        return sum(p * m * m for p, m in self.outcomes) - self.rtp ** 2

    def draw(self, rng: random.Random) -> int:
        """One game's multiplier, drawn with the exact probabilities."""
        return self.outcomes[bisect_right(self.thresholds, rng.randrange(self.scale))][1]
