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


def parse_ratio(text: str) -> Fraction:
    """Parse a payout ratio written "x:y" (wins x for every y staked) into x/y."""
    match = _RATIO.match(text) if isinstance(text, str) else None
    if not match or int(match.group(2)) == 0:
        raise RulebookError(f"payout ratio {text!r} is not of the form 'x:y' with y > 0")
    return Fraction(int(match.group(1)), int(match.group(2)))


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
        if not isinstance(self.unit, int) or self.unit < 1:
            raise RulebookError(f"payout unit must be a whole number of minor units >= 1, got {self.unit!r}")

    def pay(self, exact: Fraction) -> tuple[int, Fraction]:
        """Round an exact win (in minor units) to what is paid; return (paid, breakage)."""
        num, den = exact.numerator, exact.denominator
        paid = round_units(num, den, self.unit, self.mode)
        return paid, exact - paid


def round_units(num: int, den: int, unit: int, mode: RoundingMode) -> int:
    """num/den minor units rounded to a multiple of `unit` by `mode` (works on numpy arrays too)."""
    if mode is RoundingMode.DOWN:
        return (num // (den * unit)) * unit
    return ((2 * num + den * unit) // (2 * den * unit)) * unit
