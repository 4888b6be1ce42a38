"""Single-zero roulette, Portugal 1995 chapters IX (American) and X (French): wheels, bets, payments.

Only one zero (IX.2, X.2). The wheel order is data: the French numbering (X.9) or the
"American numbering" (IX.2, still single zero). Chances (X.18) and prizes (X.20): straight 35,
split 17, street 11, corner 8, six line 5, dozen and column 2, two dozens and two columns 1:2
(half the stake), even chances 1:1. Zero loses every even chance, dozen, column and their
two-way bets (X.21; no "en prison"). Winners are paid columns first, then dozens, even chances,
lines, streets, corners, splits and straights (X.22). Maxima are ratios of the minimum (X.27).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

from .bets import Bet, BetOutcome
from .stakes import Limits
from .edge import EdgeRow, one_ratio_row
from .errors import BetRefused, RefusalReason, RulebookError, RulesError
from .layout import same_bet_total
from .money import RoundingRule
from .payout import lose, win

FRENCH_WHEEL = (0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1, 20,
                14, 31, 9, 22, 18, 29, 7, 28, 12, 35, 3, 26)  # X.9, clockwise
AMERICAN_NUMBERING_WHEEL = (2, 14, 35, 23, 4, 16, 33, 21, 6, 18, 31, 19, 8, 12, 29, 25, 10, 27, 1, 13, 36, 24,
                            3, 15, 34, 22, 5, 17, 32, 20, 7, 11, 30, 26, 9, 28, 0)  # IX.2, clockwise
WHEELS = {"french": FRENCH_WHEEL, "american_numbering": AMERICAN_NUMBERING_WHEEL}
RED = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})


@dataclass(frozen=True, slots=True)
class RouletteBet(Bet):
    """A roulette bet naming the numbers it covers (split, street, corner, six line) or the
    dozens / columns of a two-way bet; a straight, dozen or column may use `number` instead."""

    numbers: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Chance:
    """One chance of X.18: how many numbers it covers, its prize (X.20) and max/min ratio (X.27)."""

    bet: str
    size: int
    pays: F
    max_ratio: int


CHANCES = {c.bet: c for c in [
    Chance("column", 12, F(2), 120), Chance("two_columns", 24, F(1, 2), 240),
    Chance("dozen", 12, F(2), 120), Chance("two_dozens", 24, F(1, 2), 240),
    Chance("red", 18, F(1), 180), Chance("black", 18, F(1), 180), Chance("even", 18, F(1), 180),
    Chance("odd", 18, F(1), 180), Chance("low", 18, F(1), 180), Chance("high", 18, F(1), 180),
    Chance("six_line", 6, F(5), 60), Chance("street", 3, F(11), 30),
    Chance("corner", 4, F(8), 40),  # X.27 gives no corner ratio: 40, between street 30 and line 60 (a table setting)
    Chance("split", 2, F(17), 20), Chance("straight", 1, F(35), 10),
]}
PAYMENT_ORDER = tuple(CHANCES)  # X.22: columns, dozens, even chances, lines, streets, corners, splits, straights
EVEN_CHANCES = {
    "red": RED, "black": frozenset(range(1, 37)) - RED,
    "even": frozenset(range(2, 37, 2)), "odd": frozenset(range(1, 37, 2)),
    "low": frozenset(range(1, 19)), "high": frozenset(range(19, 37)),
}


class BadSpin(RulesError, ValueError):
    """A winning number that is not on a single-zero wheel."""


def dozen(k: int) -> frozenset[int]:
    return frozenset(range(12 * k - 11, 12 * k + 1))


def column(k: int) -> frozenset[int]:
    return frozenset(range(k, 37, 3))


def _layout_sets() -> dict[str, set[frozenset[int]]]:
    """Every legal number set per chance on the layout: 12 rows of three, zero at the head."""
    rows = [frozenset({3 * r + 1, 3 * r + 2, 3 * r + 3}) for r in range(12)]
    splits = {frozenset({0, 1}), frozenset({0, 2}), frozenset({0, 3})}
    corners = {frozenset({0, 1, 2, 3})}  # the "first four"
    for n in range(1, 37):
        if n % 3:
            splits.add(frozenset({n, n + 1}))
        if n <= 33:
            splits.add(frozenset({n, n + 3}))
        if n % 3 and n <= 32:
            corners.add(frozenset({n, n + 1, n + 3, n + 4}))
    return {
        "straight": {frozenset({n}) for n in range(37)},
        "split": splits,
        "street": set(rows) | {frozenset({0, 1, 2}), frozenset({0, 2, 3})},
        "corner": corners,
        "six_line": {rows[r] | rows[r + 1] for r in range(11)},
    }


LAYOUT = _layout_sets()
_SHAPES = {
    "split": "two numbers side by side or one above the other on the layout (0 with 1, 2 or 3)",
    "street": "a row of three (1-2-3 ... 34-35-36) or 0-1-2 / 0-2-3",
    "corner": "four numbers meeting at one corner (1-2-4-5 ...) or 0-1-2-3",
    "six_line": "two neighbouring rows (1-6, 4-9 ... 31-36)",
}


def covered(bet: Bet) -> frozenset[int]:
    """The numbers a bet wins on; raises `BetRefused` when the bet is not one on the layout."""
    kind = bet.bet
    numbers = tuple(getattr(bet, "numbers", ()))
    if kind not in CHANCES:
        raise BetRefused(RefusalReason.UNKNOWN_BET, f"roulette has bets {', '.join(PAYMENT_ORDER)}, not {kind!r}")
    if any(isinstance(n, bool) or not isinstance(n, int) for n in numbers):
        raise BetRefused(RefusalReason.MALFORMED, f"numbers must be whole numbers, got {list(numbers)}")
    if kind in EVEN_CHANCES:
        if bet.number is not None or numbers:
            raise BetRefused(RefusalReason.MALFORMED, f"{kind} is an even chance and takes no numbers")
        return EVEN_CHANCES[kind]
    if kind in ("dozen", "column", "two_dozens", "two_columns"):
        return _dozens_or_columns(kind, bet.number, numbers)
    if bet.number is not None and numbers:
        raise BetRefused(RefusalReason.MALFORMED, f"{kind}: give number or numbers, not both")
    chosen = frozenset(numbers) if numbers else frozenset({bet.number}) if bet.number is not None else frozenset()
    if len(chosen) != len(numbers or (bet.number,)):
        raise BetRefused(RefusalReason.NOT_ON_LAYOUT, f"{kind}: the numbers {list(numbers)} repeat a number")
    if any(not 0 <= n <= 36 for n in chosen):
        raise BetRefused(RefusalReason.NOT_ON_LAYOUT, f"{kind}: numbers are 0 to 36, got {sorted(chosen)}")
    size = CHANCES[kind].size
    if len(chosen) != size:
        raise BetRefused(RefusalReason.NOT_ON_LAYOUT, f"a {kind} covers {size} number(s), got {sorted(chosen)}")
    if chosen not in LAYOUT[kind]:
        raise BetRefused(RefusalReason.NOT_ON_LAYOUT, f"{sorted(chosen)} is not a {kind}: a {kind} is {_SHAPES[kind]}")
    return chosen


def _dozens_or_columns(kind: str, number: int | None, numbers: tuple[int, ...]) -> frozenset[int]:
    of = dozen if "dozen" in kind else column
    if kind in ("dozen", "column"):
        which = number if number is not None else (numbers[0] if len(numbers) == 1 else None)
        if which not in (1, 2, 3) or (number is not None and numbers):
            raise BetRefused(RefusalReason.NOT_ON_LAYOUT, f"a {kind} is number 1, 2 or 3, got {number if number is not None else list(numbers)}")
        return of(which)
    if number is not None or sorted(numbers) not in ([1, 2], [2, 3]):
        single = kind.split("_")[1][:-1]
        raise BetRefused(RefusalReason.NOT_ON_LAYOUT,
                         f"{kind} is placed between two neighbouring {single}s: numbers [1, 2] or [2, 3], got {list(numbers)}")
    return of(numbers[0]) | of(numbers[1])


class Roulette:
    """A single-zero roulette rule book (Portugal 1995 IX / X)."""

    game = "roulette"

    def __init__(self, rulebook: str, wheel: str, limits: Limits, rounding: RoundingRule = RoundingRule(), *,
                 corner_max_ratio: int = 40, minor_units_per_unit: int = 100) -> None:
        if rulebook != "portugal-1995":
            raise RulebookError(f"roulette has rule book 'portugal-1995' only, not {rulebook!r}")
        if wheel not in WHEELS:
            raise RulebookError(f"wheel is one of {sorted(WHEELS)} (IX.2), not {wheel!r}")
        limits.check_bets_named(tuple(CHANCES), "roulette")
        self.rulebook = rulebook
        self.wheel_name = wheel
        self.wheel = WHEELS[wheel]
        self.limits = limits
        self.rounding = rounding
        self.max_ratio = {b: c.max_ratio for b, c in CHANCES.items()} | {"corner": corner_max_ratio}
        self.minor_units_per_unit = minor_units_per_unit
        self.stake_rules = {bet: limits.rule(bet, self.maximum_for(bet)) for bet in CHANCES}  # no multiples (IX, X)

    def maximum_for(self, bet: str) -> int:
        return min(self.limits.maximum_for(bet), self.max_ratio[bet] * self.limits.minimum)

    def check_bet(self, bet: Bet, placed: list[Bet]) -> None:
        covered(bet)
        self.stake_rules[bet.bet].check(bet, same_bet_total(bet, placed))

    def check_withdrawal(self, bet: Bet, remaining: list[Bet]) -> None:
        """Any bet may come down until "jogo feito, nada mais" (X.14): the layout's owner stops it then."""

    def settle(self, number: int, bets: list[Bet]) -> list[BetOutcome]:
        """Every bet against the winning number, in the payment order of X.22."""
        if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 36:
            raise BadSpin(f"the winning number is 0 to 36, got {number!r}")
        ordered = sorted(bets, key=lambda b: PAYMENT_ORDER.index(b.bet) if b.bet in CHANCES else len(CHANCES))
        return [win(b, CHANCES[b.bet].pays, self.rounding) if number in covered(b) else lose(b) for b in ordered]

    def neighbours(self, number: int, each_side: int = 2) -> list[int]:
        """The numbers beside `number` on this wheel (for boards)."""
        i = self.wheel.index(number)
        return [self.wheel[(i + k) % 37] for k in range(-each_side, each_side + 1)]

    def edge_rows(self) -> list[EdgeRow]:
        """Every chance: p(win) = size/37, the rest loses (zero included); edge 1/37 for all."""
        rows = []
        for bet in PAYMENT_ORDER:
            c = CHANCES[bet]
            p = F(c.size, 37)
            rows.append(one_ratio_row(bet, c.pays, p, 1 - p, F(0), self.rounding, self.stake_rules[bet].least))
        return rows


def spin_view(number: int) -> dict:
    """What the boards show for a winning number (X.17: the number and its colour)."""
    if number == 0:
        return {"number": 0, "colour": "green"}
    return {"number": number, "colour": "red" if number in RED else "black",
            "dozen": (number - 1) // 12 + 1, "column": (number - 1) % 3 + 1,
            "even": number % 2 == 0, "low": number <= 18}
