"""Money: integer minor units, payout ratios as exact fractions, and the one rounding rule.

A payout ratio "x:y" means the bet wins x for every y staked and the stake is returned.
A win that is not a whole number of payout units is rounded by the table's `RoundingRule`;
the difference between the exact win and what is paid is *breakage*, always recorded
(an exact Fraction of a minor unit), never dropped.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from fractions import Fraction

from .errors import RulebookError

_RATIO = re.compile(r"^\s*(\d+)\s*:\s*(\d+)\s*$")
MAX_RATIO_TERM = 9_999  # the largest x or y of a payout ratio "x:y" (bounds settlement's products: stakes.py)
MAX_PAYOUT_UNIT = 1_000_000  # minor units


def parse_ratio(text: str) -> Fraction:
    """Parse a payout ratio written "x:y" (wins x for every y staked) into x/y; x and y at most
    MAX_RATIO_TERM."""
    match = _RATIO.match(text) if isinstance(text, str) else None
    if not match or int(match.group(2)) == 0:
        raise RulebookError(f"payout ratio {text!r} is not of the form 'x:y' with y > 0")
    x, y = int(match.group(1)), int(match.group(2))
    if x > MAX_RATIO_TERM or y > MAX_RATIO_TERM:
        raise RulebookError(f"payout ratio {text!r}: x and y are at most {MAX_RATIO_TERM}")
    return Fraction(x, y)


def format_ratio(ratio: Fraction) -> str:
    """Write a ratio back as "x:y" in lowest terms ("1:1", "7:6", "27:4")."""
    return f"{ratio.numerator}:{ratio.denominator}"


class RoundingMode(enum.StrEnum):
    """How a win that is not a whole number of payout units is paid."""

    DOWN = "down"  # pay the lower payout unit; the house keeps the breakage (the usual casino rule)
    HALF_UP = "half_up"  # nearest payout unit, halves upwards; breakage may be negative


@dataclass(frozen=True, slots=True)
class RoundingRule:
    """The table's single rounding rule: payouts are multiples of `unit` minor units."""

    unit: int = 1
    mode: RoundingMode = RoundingMode.DOWN

    def __post_init__(self) -> None:
        if isinstance(self.unit, bool) or not isinstance(self.unit, int) or not 1 <= self.unit <= MAX_PAYOUT_UNIT:
            raise RulebookError(f"payout unit must be a whole number of minor units from 1 to {MAX_PAYOUT_UNIT}, "
                                f"got {self.unit!r}", key="money.payout_unit")

    def pay(self, exact: Fraction) -> tuple[int, Fraction]:
        """Round an exact win (in minor units) to what is paid; return (paid, breakage)."""
        num, den = exact.numerator, exact.denominator
        paid = round_units(num, den, self.unit, self.mode)
        return paid, exact - paid

    def paid_ratio(self, ratio: Fraction, stake: int) -> Fraction:
        """The ratio a win at `ratio` is actually paid at on `stake` minor units: 10:13 on 500 with
        whole-euro payouts pays 300, so 3:5."""
        return Fraction(self.pay(stake * ratio)[0], stake)


def round_units(num: int, den: int, unit: int, mode: RoundingMode) -> int:
    """num/den minor units rounded to a multiple of `unit` by `mode` (works on numpy arrays too)."""
    if mode is RoundingMode.DOWN:
        return (num // (den * unit)) * unit
    return ((2 * num + den * unit) // (2 * den * unit)) * unit
