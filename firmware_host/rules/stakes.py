"""Stakes: the bounds every amount lives in, a table's limits, and the one check every stake passes.

Every amount a table names (limits, stake steps, capitals) and every stake is at most `MAX_AMOUNT`
minor units, every payout unit at most `money.MAX_PAYOUT_UNIT`, and every win ratio's numerator at
most `bet_table.MAX_WIN_NUMERATOR` (a "x:y" term of `money.MAX_RATIO_TERM`, times three for a cussec
prize on three dice) and its denominator at most MAX_RATIO_TERM. Settlement multiplies a stake by a
numerator and a payout unit by a denominator in int64 arrays (`bet_table.settle`); with these bounds
no product comes near 2**63 ≈ 9.2 × 10**18: 10**12 × 29,997 < 3.0 × 10**16, and the half-up rounding's
2 × that + 9,999 × 10**6 stays below 6.1 × 10**16. Whether stakes must be multiples of the minimum is the rule book's
(Macau 2010 Art. 5.6; Portugal 1995 VI.12, I.36, V.14); a table may add stake steps per bet so that
every stake pays a whole number of payout units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import lcm

from .bets import Bet
from .errors import BetRefused, RefusalReason, RulebookError

MAX_AMOUNT = 10**12  # minor units: EUR 10,000,000,000.00 — far above any table, far below int64 overflow


def check_amount(value: object, key: str, *, least: int = 1, most: int = MAX_AMOUNT) -> None:
    """A configured amount is a whole number from `least` to `most` minor units (`key` names it)."""
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise RulebookError(f"must be a whole number of minor units from {least} to {most}, got {value!r}", key=key)


@dataclass(frozen=True, slots=True)
class Limits:
    """A table's limits in minor units: `minimum` and `maximum` per bet (one owner's stakes on one
    bet together), lower maxima per bet id, and stake steps per bet id (a bet's stakes are multiples
    of its step). `all_multiples_of_minimum` is a house rule making every stake a multiple of the
    minimum, beyond the bets whose rule book already requires it."""

    minimum: int
    maximum: int
    per_bet_maximum: dict[str, int] = field(default_factory=dict)
    stake_step: dict[str, int] = field(default_factory=dict)
    all_multiples_of_minimum: bool = False

    def __post_init__(self) -> None:
        check_amount(self.minimum, "limits.minimum")
        check_amount(self.maximum, "limits.maximum", least=self.minimum)
        for bet, amount in self.per_bet_maximum.items():
            check_amount(amount, f"limits.per_bet_maximum.{bet}")
        for bet, step in self.stake_step.items():
            check_amount(step, f"limits.stake_step.{bet}", most=self.maximum)

    def maximum_for(self, bet: str) -> int:
        return min(self.maximum, self.per_bet_maximum.get(bet, self.maximum))

    def check_bets_named(self, bets: set[str] | list[str] | tuple[str, ...], where: str,
                         numbered: tuple[str, ...] = ()) -> None:
        """Per-bet maxima and stake steps may only name bets of the game (`where` names it); stake
        steps may also name a numbered bet on one number (`numbered`: "odds_6")."""
        for key, named in (("per_bet_maximum", self.per_bet_maximum), ("stake_step", self.stake_step)):
            for bet in named:
                if bet not in bets and not (key == "stake_step" and bet in numbered):
                    raise RulebookError(f"names bet {bet!r}, which {where} does not have", key=f"limits.{key}.{bet}")

    def rule(self, bet: str, maximum: int | None, *, multiple: bool = False, why: str = "",
             minimum: int | None = None, number: int | None = None) -> StakeRule:
        """The stake rule of one bet: at most `maximum` (None: no maximum of its own; MAX_AMOUNT still
        bounds it), a multiple of the minimum when `multiple` (its rule book requires it: `why` cites
        the article) or the house rule says so, and of the bet's stake step — for a numbered bet
        (odds on 6) the step of "odds_6" before that of "odds". `minimum`: another minimum than the
        table's (a bank's capital)."""
        least = self.minimum if minimum is None else minimum
        key = f"{bet}_{number}" if number is not None and f"{bet}_{number}" in self.stake_step else bet
        step = self.stake_step.get(key)
        reason, why_step = RefusalReason.NOT_MULTIPLE_OF_STEP, f"the table's stake step for {key}"
        if multiple or self.all_multiples_of_minimum:
            why = why or "every stake a multiple of the minimum (house rule all_multiples_of_minimum)"
            if step is None:
                step, reason, why_step = least, RefusalReason.NOT_MULTIPLE_OF_MINIMUM, why
            elif step % least:
                raise RulebookError(f"{step} is not a multiple of the minimum {least}, which {bet} needs ({why})",
                                    key=f"limits.stake_step.{key}")
        rule = StakeRule(least, step or 1, maximum, why_step, reason)
        if maximum is not None and rule.least > maximum:
            raise RulebookError(f"no stake on {bet} fits: its least stake {rule.least} (a multiple of {rule.step}) "
                                f"is over its maximum {maximum}", key=f"limits.stake_step.{key}")
        return rule


@dataclass(frozen=True, slots=True)
class StakeRule:
    """What one bet's stake must be: a whole number of minor units, at least `minimum`, a multiple of
    `step` (`why` says whose rule), and with the owner's stakes already on the bet at most `maximum`
    (None: no maximum but MAX_AMOUNT)."""

    minimum: int
    step: int = 1
    maximum: int | None = None
    why: str = ""
    step_refusal: RefusalReason = RefusalReason.NOT_MULTIPLE_OF_STEP

    @property
    def least(self) -> int:
        """The smallest stake this rule accepts."""
        return -(-self.minimum // self.step) * self.step

    def scaled(self, chips_per_unit: int, why: str) -> StakeRule:
        """The rule for a bet that puts `chips_per_unit` chips on the table for every unit at risk
        (banca francesa lines, IV.11: twice the minimum to twice the maximum); the chips must split
        into whole units at risk."""
        step = lcm(self.step, chips_per_unit)
        return StakeRule(self.minimum * chips_per_unit, step,
                         None if self.maximum is None else self.maximum * chips_per_unit,
                         self.why if step == self.step else why,
                         self.step_refusal if step == self.step else RefusalReason.NOT_MULTIPLE_OF_STEP)

    def check(self, bet: Bet, already: int = 0) -> None:
        """Raise `BetRefused` unless `bet`'s stake passes; `already` is the owner's stake on the same bet."""
        stake = bet.stake
        if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
            raise BetRefused(RefusalReason.BAD_STAKE, f"stake must be a positive whole number of minor units, got {stake!r}")
        if stake > MAX_AMOUNT:
            raise BetRefused(RefusalReason.BAD_STAKE, f"stake {stake} is over the largest amount a table takes "
                                                      f"({MAX_AMOUNT} minor units)")
        if stake < self.minimum:
            raise BetRefused(RefusalReason.UNDER_MINIMUM, f"stake {stake} is under the minimum {self.minimum} for {bet.bet}")
        if stake % self.step:
            raise BetRefused(self.step_refusal, f"stake {stake} is not a multiple of {self.step} for {bet.bet} ({self.why})")
        total = stake + already
        if self.maximum is not None and total > self.maximum:
            raise BetRefused(RefusalReason.OVER_MAXIMUM,
                             f"{bet.bet} for {bet.owner} would total {total}, over the maximum {self.maximum}")
        if total > MAX_AMOUNT:
            raise BetRefused(RefusalReason.OVER_MAXIMUM, f"{bet.bet} for {bet.owner} would total {total}, over the "
                                                         f"largest amount a table takes ({MAX_AMOUNT} minor units)")
