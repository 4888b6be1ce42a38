"""Payback monitor: actual return vs base % (0x1F) and the 80 % minimum (004 §VIII.2), alarms only when significant."""

from __future__ import annotations

from datetime import datetime, time, timezone
from fractions import Fraction
from math import sqrt

from drivers.sim.egm_machine import EgmMachine, EgmProfile
from drivers.sim.egm_paytable import Paytable
from firmware_host.slots.payback import GamingCalendar, PaybackRules, PaybackTotals, assess

RULES = PaybackRules(minimum=Fraction(80, 100), z_alarm=3.09, min_games=1000)
BASE = Fraction(92, 100)
SIGMA = sqrt(Paytable.for_rtp(BASE).variance)  # 4.65 for the simulator's paytable


def test_simulator_paytable_is_exactly_the_configured_rtp():
    table = Paytable.for_rtp(Fraction(92, 100))
    assert table.rtp == Fraction(92, 100) and sum(p for p, _ in table.outcomes) == 1
    assert 4.5 < SIGMA < 4.8


def test_a_cold_streak_on_little_play_is_not_an_alarm():
    result = assess("day", PaybackTotals(coin_in=10_000, paid=8_500, games=2_000), BASE, SIGMA, 10, RULES)
    assert result.actual == Fraction(85, 100) and result.z_vs_base > -3.09
    assert not result.shortfall_vs_base and not result.below_minimum


def test_the_same_shortfall_on_heavy_play_is_an_alarm():
    result = assess("month", PaybackTotals(coin_in=10_000_000, paid=8_500_000, games=2_000_000), BASE, SIGMA, 10,
                    RULES)
    assert result.shortfall_vs_base and result.z_vs_base < -10
    assert not result.below_minimum  # 85 % is still above the legal 80 %


def test_below_the_regulatory_minimum_significantly():
    # 004 §VIII.2: at least 80 % of the amounts played returned as prizes
    result = assess("lifetime", PaybackTotals(coin_in=10_000_000, paid=7_500_000, games=2_000_000), BASE, SIGMA, 10,
                    RULES)
    assert result.below_minimum and result.shortfall_vs_base


def test_no_alarm_before_min_games():
    result = assess("day", PaybackTotals(coin_in=100_000, paid=10_000, games=999), BASE, SIGMA, 10, RULES)
    assert not result.shortfall_vs_base and not result.below_minimum


def test_standard_error_bound_for_any_bet_mix():
    # equal bets of 10 on 1000 games: sigma*sqrt(10/10000) = sigma/sqrt(1000); smaller bets widen the bound
    result = assess("day", PaybackTotals(coin_in=10_000, paid=9_200, games=1_000), BASE, SIGMA, 10, RULES)
    assert abs(result.standard_error - SIGMA / sqrt(1000)) < 1e-12
    unknown_bet = assess("day", PaybackTotals(coin_in=10_000, paid=9_200, games=1_000), BASE, SIGMA, None, RULES)
    assert abs(unknown_bet.standard_error - SIGMA / sqrt(1000)) < 1e-12


def _play(rtp: Fraction, games: int, seed: int) -> PaybackTotals:
    machine = EgmMachine(EgmProfile(address=1, rtp=rtp, seed=seed, attendant_resets=True))
    assert machine.play(games) == games
    m = machine.meters
    return PaybackTotals(m["coin_in"], m["coin_out"] + m["jackpot"], m["games_played"])


def test_a_fair_machine_is_not_alarmed_and_a_short_paying_one_is():
    fair = assess("lifetime", _play(BASE, 60_000, seed=11), BASE, SIGMA, 10, RULES)
    assert not fair.shortfall_vs_base and not fair.below_minimum
    short = assess("lifetime", _play(Fraction(70, 100), 60_000, seed=12), BASE, SIGMA, 10, RULES)
    assert short.shortfall_vs_base and short.below_minimum


def test_gaming_day_and_month_in_the_local_zone():
    calendar = GamingCalendar("Europe/Lisbon", time(6))
    # 04:30 UTC on 1 July is 05:30 in Lisbon (summer time): still the gaming day of 30 June
    assert calendar.keys(datetime(2024, 7, 1, 4, 30, tzinfo=timezone.utc)) == {
        "day": "2024-06-30", "month": "2024-06", "lifetime": "lifetime"}
    assert calendar.keys(datetime(2024, 7, 1, 5, 30, tzinfo=timezone.utc))["day"] == "2024-07-01"
