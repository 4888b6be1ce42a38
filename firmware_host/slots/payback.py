"""Payback monitor, with no I/O: actual return over day, month and lifetime windows, and when to alarm.

Actual return = (coin out + jackpot) / coin in, in credits, over the deltas accepted in a window. It is
compared with the machine's base % (long poll 0x1F) and with the regulatory minimum (004 §VIII.2: 80 %).
A shortfall is only alarmed when it is statistically significant for the volume played: with sigma the
standard deviation of one game's return per unit bet (a property of the paytable, configured), the
standard error of the window's return is at most sigma * sqrt(max_bet / coin_in) - the bound for any
mix of bets up to `max_bet` credits (sigma / sqrt(games) is the equal-bets case) - and the alarm needs
z = (actual - reference) / standard error below -z_alarm (3.09: one-sided 0.1 %), and `min_games` games.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from fractions import Fraction
from math import sqrt
from zoneinfo import ZoneInfo

WINDOWS = ("day", "month", "lifetime")


@dataclass
class PaybackTotals:
    coin_in: int = 0  # credits
    paid: int = 0  # coin out + jackpot, credits
    games: int = 0

    def add(self, coin_in: int, paid: int, games: int) -> None:
        self.coin_in += coin_in
        self.paid += paid
        self.games += games

    @property
    def actual(self) -> Fraction | None:
        return Fraction(self.paid, self.coin_in) if self.coin_in else None


@dataclass(frozen=True, slots=True)
class PaybackRules:
    minimum: Fraction = Fraction(80, 100)
    z_alarm: float = 3.09
    min_games: int = 1000


@dataclass(frozen=True, slots=True)
class Assessment:
    window: str
    actual: Fraction | None
    standard_error: float | None
    z_vs_base: float | None
    z_vs_minimum: float | None
    shortfall_vs_base: bool
    below_minimum: bool


def assess(window: str, totals: PaybackTotals, base: Fraction | None, sigma: float, max_bet: int | None,
           rules: PaybackRules) -> Assessment:
    """Judge one window; an alarm flag is only set for a significant shortfall on enough games."""
    actual = totals.actual
    if actual is None:
        return Assessment(window, None, None, None, None, False, False)
    spread = max_bet if max_bet else 1
    error = sigma * sqrt(spread / totals.coin_in) if max_bet else sigma / sqrt(max(totals.games, 1))
    enough = totals.games >= rules.min_games and error > 0
    z_base = float(actual - base) / error if base is not None and error > 0 else None
    z_min = float(actual - rules.minimum) / error if error > 0 else None
    return Assessment(
        window, actual, error, z_base, z_min,
        shortfall_vs_base=bool(enough and z_base is not None and z_base < -rules.z_alarm),
        below_minimum=bool(enough and actual < rules.minimum and z_min is not None and z_min < -rules.z_alarm))


class GamingCalendar:
    """Which gaming day and month an instant belongs to (local zone, day starting at `day_starts`)."""

    def __init__(self, zone: str = "UTC", day_starts: time = time(0)) -> None:
        self.zone = ZoneInfo(zone)
        self.day_starts = day_starts

    def keys(self, at: datetime) -> dict[str, str]:
        local = at.astimezone(self.zone)
        start = timedelta(hours=self.day_starts.hour, minutes=self.day_starts.minute)
        day = (local - start).date()
        return {"day": day.isoformat(), "month": day.strftime("%Y-%m"), "lifetime": "lifetime"}
