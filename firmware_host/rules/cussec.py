"""Cussec: three dice under a dome, every chance of Portugal 1995 chapter VII (7-9).

Chances (VII.7 a-h) and prizes (VII.8): small 4-10 and big 11-17 pay 1:1 and lose on any
triple (VII.9); a number pays 1, 2 or 3 to 1 as it shows on one, two or three dice; a
combination of two different numbers 5:1; a double 10:1, 30:1 when on all three dice; a
specific triple 190:1; any triple 32:1; totals 4/17 65, 5/16 32, 6/15 19, 7/14 12, 8/13 8,
9/12 7, 10/11 6 to 1. A paytable in config may replace any ratio (a 180:1 triple, say).
"""

from __future__ import annotations

from fractions import Fraction as F
from itertools import combinations

from .bet_table import BetKind, one_roll
from .dice_game import DiceGame
from .stakes import Limits
from .errors import RulebookError
from .money import RoundingRule, format_ratio

TOTALS = {4: 65, 17: 65, 5: 32, 16: 32, 6: 19, 15: 19, 7: 12, 14: 12, 8: 8, 13: 8, 9: 7, 12: 7, 10: 6, 11: 6}


def is_triple(faces: tuple[int, ...]) -> bool:
    return faces[0] == faces[1] == faces[2]


def cussec_paytable() -> dict[str, F]:
    """Headline ratios of every chance (VII.8), keyed by bet id."""
    pays = {"small": F(1), "big": F(1), "any_triple": F(32)}
    for n in range(1, 7):
        pays[f"single_{n}"] = F(1)
        pays[f"double_{n}"] = F(10)
        pays[f"triple_{n}"] = F(190)
    for a, b in combinations(range(1, 7), 2):
        pays[f"combination_{a}_{b}"] = F(5)
    for total, ratio in TOTALS.items():
        pays[f"total_{total}"] = F(ratio)
    return pays


def cussec_kinds(pays: dict[str, F]) -> list[BetKind]:
    """Resolution tables over the 216 outcomes; `pays` gives each bet's (headline) ratio.
    The single's 2- and 3-dice prizes and the double's 3-dice prize scale with the headline:
    single n × count (VII.8c), double × 3 on all three dice (VII.8e: 10 and 30)."""
    kinds = []

    def add(bet: str, rule) -> None:
        kinds.append(one_roll(bet, 3, rule, pays[bet]))

    add("small", lambda f: pays["small"] if 4 <= sum(f) <= 10 and not is_triple(f) else None)
    add("big", lambda f: pays["big"] if 11 <= sum(f) <= 17 and not is_triple(f) else None)
    add("any_triple", lambda f: pays["any_triple"] if is_triple(f) else None)
    for n in range(1, 7):
        single, double, triple = pays[f"single_{n}"], pays[f"double_{n}"], pays[f"triple_{n}"]
        add(f"single_{n}", lambda f, n=n, r=single: r * f.count(n) if f.count(n) else None)
        add(f"double_{n}", lambda f, n=n, r=double: (r * 3 if f.count(n) == 3 else r) if f.count(n) >= 2 else None)
        add(f"triple_{n}", lambda f, n=n, r=triple: r if f.count(n) == 3 else None)
    for a, b in combinations(range(1, 7), 2):
        bet = f"combination_{a}_{b}"
        add(bet, lambda f, a=a, b=b, r=pays[bet]: r if a in f and b in f else None)
    for total in TOTALS:
        bet = f"total_{total}"
        add(bet, lambda f, t=total, r=pays[bet]: r if sum(f) == t else None)
    return kinds


class Cussec(DiceGame):
    """Cussec under Portugal 1995 chapter VII; no state carries between rounds."""

    game = "cussec"
    n_dice = 3
    void_reasons = {"overlapping": "Portugal 1995 VII.6", "stacked": "Portugal 1995 VII.6"}

    def __init__(self, rulebook: str, limits: Limits, rounding: RoundingRule = RoundingRule(), *,
                 paytable: dict[str, F] | None = None, minor_units_per_unit: int = 100) -> None:
        if rulebook != "portugal-1995":
            raise RulebookError(f"cussec has rule book 'portugal-1995' only, not {rulebook!r}")
        pays = cussec_paytable()
        for bet, ratio in (paytable or {}).items():
            if bet not in pays:
                raise RulebookError(f"paytable names bet {bet!r}, which cussec does not have")
            pays[bet] = ratio
        self.paytable = pays
        super().__init__(rulebook, cussec_kinds(pays), limits, rounding, minor_units_per_unit)

    def describe_paytable(self) -> dict[str, str]:
        return {bet: format_ratio(r) for bet, r in sorted(self.paytable.items())}
