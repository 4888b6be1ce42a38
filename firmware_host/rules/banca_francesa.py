"""Banca francesa: three dice through a horn, Portugal 1995 chapter IV.

Chances (IV.9, IV.13): aces (total 3) 61:1; small (5, 6, 7) and big (14, 15, 16) 1:1; every
other total is no decision and the bets stay. Bets on the outer line of small or inner line
of big (IV.10-11) count as half the chips placed: `small_line`, `big_line`, which must be
between twice the minimum and twice the maximum (no multiple of the minimum is required: chapter IV
asks none; a line stake must split into whole minor units). Maxima (IV.17): small and big 200 × the
minimum, aces 6 × the minimum.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

from .bet_table import LOSE, STAY, WIN, BetKind, build_kind
from .dice_game import DiceGame
from .stakes import Limits
from .errors import RulebookError
from .money import RoundingRule

DECIDING = {3: "aces", 5: "small", 6: "small", 7: "small", 14: "big", 15: "big", 16: "big"}
MAX_RATIO = {"aces": 6, "small": 200, "big": 200, "small_line": 200, "big_line": 200}


def _chance(chance: str, ratio: F):
    def rule(state: int, faces: tuple[int, ...]):
        decided = DECIDING.get(sum(faces))
        if decided is None:
            return STAY, None, state
        return (WIN, ratio, state) if decided == chance else (LOSE, None, state)
    return rule


def banca_kinds(aces: F = F(61)) -> list[BetKind]:
    return [
        build_kind("aces", f"{aces.numerator}:{aces.denominator}", _chance("aces", aces), 3),
        build_kind("small", "1:1", _chance("small", F(1)), 3),
        build_kind("big", "1:1", _chance("big", F(1)), 3),
        build_kind("small_line", "1:1", _chance("small", F(1)), 3, at_risk=F(1, 2)),
        build_kind("big_line", "1:1", _chance("big", F(1)), 3, at_risk=F(1, 2)),
    ]


class BancaFrancesa(DiceGame):
    """Banca francesa under Portugal 1995 chapter IV."""

    game = "banca_francesa"
    n_dice = 3
    void_reasons = {  # IV.7 b, IV.8
        "foreign_object": "Portugal 1995 IV.8 a", "off_table": "Portugal 1995 IV.8 b, e",
        "not_all_in_cup": "Portugal 1995 IV.8 c", "stayed_in_cup": "Portugal 1995 IV.8 d",
        "cocked": "Portugal 1995 IV.8 f", "stacked": "Portugal 1995 IV.8 g", "overlapping": "Portugal 1995 IV.7 b, IV.8 g",
    }

    def __init__(self, rulebook: str, limits: Limits, rounding: RoundingRule = RoundingRule(), *,
                 touched_dice_losers: str = "stay", minor_units_per_unit: int = 100) -> None:
        """`touched_dice_losers` (IV.7 d: the dealer touched the dice before announcing; winners are
        paid and "não perdendo nenhuma das outras chances"): "stay" — the other chances stay on the
        layout, as on a total that decides nothing (the default reading) — or "returned"."""
        if rulebook != "portugal-1995":
            raise RulebookError(f"banca francesa has rule book 'portugal-1995' only, not {rulebook!r}")
        if touched_dice_losers not in ("stay", "returned"):
            raise RulebookError(f"touched_dice_losers is 'stay' or 'returned', not {touched_dice_losers!r}")
        self.touched_dice_losers = touched_dice_losers
        caps = {bet: min(limits.per_bet_maximum.get(bet, limits.maximum), ratio * limits.minimum)
                for bet, ratio in MAX_RATIO.items()}
        limits = replace(limits, per_bet_maximum=caps)
        super().__init__(rulebook, banca_kinds(), limits, rounding, minor_units_per_unit)
