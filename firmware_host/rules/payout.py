"""One bet's settlement in a card, wheel or tile game: win at a ratio, lose, push or return.

The same money model as the dice tables (bets.BetOutcome): the stake at risk is either
returned or kept, a win is the exact stake × ratio rounded by the table's `RoundingRule`,
and the difference (breakage) is recorded, never dropped.
"""

from __future__ import annotations

from fractions import Fraction

from .bets import Bet, BetOutcome, Result
from .money import RoundingRule


def win(bet: Bet, ratio: Fraction, rounding: RoundingRule, *, at_risk: int | None = None) -> BetOutcome:
    """The bet wins `ratio` on `at_risk` (default its whole stake); the stake is returned."""
    risk = bet.stake if at_risk is None else at_risk
    paid, breakage = rounding.pay(Fraction(risk) * ratio)
    return BetOutcome(bet, Result.WIN, paid=paid, returned=bet.stake, breakage=breakage)


def lose(bet: Bet, *, at_risk: int | None = None) -> BetOutcome:
    """The bet loses `at_risk` (default its whole stake); any rest of the stake is returned."""
    risk = bet.stake if at_risk is None else at_risk
    return BetOutcome(bet, Result.LOSE, returned=bet.stake - risk, kept=risk)


def push(bet: Bet) -> BetOutcome:
    """Decided with neither win nor loss: the stake is returned."""
    return BetOutcome(bet, Result.PUSH, returned=bet.stake)


def returned(bet: Bet) -> BetOutcome:
    """Never played (void coup, withdrawn, seat out of play): the stake is returned."""
    return BetOutcome(bet, Result.RETURNED, returned=bet.stake)


def prize(bet: Bet, amount: int) -> BetOutcome:
    """A prize with no stake of its own (the blackjack 6-7-8 / 7-7-7 bonus, V.35): `bet` is a
    record with stake 0 naming the hand it is paid on."""
    return BetOutcome(bet, Result.WIN, paid=amount)
