"""Money bounds: every configured amount and every stake is bounded so no product in settlement overflows.

Settlement runs on int64 arrays (bet_table.settle): a stake times a ratio numerator, a payout unit
times a ratio denominator, twice an exact win for half-up rounding. The audit's case: at a table with
an unbounded maximum, an aces bet of 3 x 10**17 minor units (30:1, half-up) was paid
-6,893,488,147,419,103,232. Now the config refuses such a maximum, the rules core refuses such a stake,
and at the bounds every bet of every dice rule book settles exactly as Python's unbounded integers say.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.config import parse_config
from firmware_host.errors import ConfigError
from firmware_host.rules.banca_francesa import BancaFrancesa
from firmware_host.rules.bet_table import MAX_WIN_NUMERATOR, WIN, OpenBets, settle
from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.chemin_de_fer import ChemindeFer
from firmware_host.rules.craps import Craps
from firmware_host.rules.cussec import Cussec, cussec_paytable
from firmware_host.rules.errors import BetRefused, RefusalReason, RulebookError
from firmware_host.rules.layout import Layout
from firmware_host.rules.money import MAX_PAYOUT_UNIT, MAX_RATIO_TERM, RoundingMode, RoundingRule, parse_ratio
from firmware_host.rules.stakes import MAX_AMOUNT, Limits

from .tables import craps_table

AUDIT_STAKE = 3 * 10**17


def config_text(maximum: int) -> dict:
    return {"version": 1, "game": {"name": "craps", "rulebook": "macau-2010"},
            "money": {"payout_unit": 1, "rounding": "half_up"}, "limits": {"minimum": 100, "maximum": maximum}}


def test_the_audit_case_a_maximum_of_3e17_is_refused_by_the_config_and_the_rules_core():
    with pytest.raises(ConfigError) as error:
        parse_config(config_text(AUDIT_STAKE), "table.toml")
    assert "limits.maximum" in str(error.value)
    with pytest.raises(RulebookError) as error:
        Limits(100, AUDIT_STAKE)
    assert error.value.key == "limits.maximum"
    parse_config(config_text(MAX_AMOUNT), "table.toml")


def test_a_stake_above_the_bound_is_refused_where_no_maximum_applies():
    """The chemin de fer bank has no maximum (I.35), nor the P'ai Kao banker's capital: MAX_AMOUNT still bounds them."""
    layout = Layout(ChemindeFer("portugal-1995", Limits(100, 1000)))
    with pytest.raises(BetRefused) as refused:
        layout.place(Bet("bank", "banker", AUDIT_STAKE, "b"))
    assert refused.value.reason is RefusalReason.BAD_STAKE
    layout.place(Bet("bank", "banker", MAX_AMOUNT, "b"))


def test_the_audit_bet_at_the_largest_table_settles_exactly():
    """Aces 30:1, half-up rounding, at MAX_AMOUNT: paid exactly 30 x the stake."""
    table = craps_table("macau-2010", limits=Limits(100, MAX_AMOUNT), rounding=RoundingRule(1, RoundingMode.HALF_UP))
    table.place(Bet("a", "aces", MAX_AMOUNT, "p"))
    out = table.throw((1, 1)).outcomes()[0]
    assert (out.result, out.paid, out.breakage) == (Result.WIN, 30 * MAX_AMOUNT, 0)


def test_ratios_and_payout_units_are_bounded():
    with pytest.raises(RulebookError):
        parse_ratio(f"{MAX_RATIO_TERM + 1}:1")
    with pytest.raises(RulebookError):
        RoundingRule(MAX_PAYOUT_UNIT + 1)
    with pytest.raises(ConfigError) as error:
        parse_config({**config_text(1000), "game": {"name": "cussec", "rulebook": "portugal-1995",
                                                    "paytable": {"triple_1": "99999:1"}}}, "table.toml")
    assert "game.paytable" in str(error.value)


def every_rule_book(pays: dict[str, Fraction], unit: int, mode: RoundingMode):
    rounding = RoundingRule(unit, mode)
    limits = Limits(1, MAX_AMOUNT)
    games = [Craps(book, limits, rounding, odds_multiple=100) for book in ("macau-2010", "macau-1985", "portugal-1995")]
    games.append(Cussec("portugal-1995", limits, rounding, paytable=pays))
    games.append(BancaFrancesa("portugal-1995", limits, rounding))
    return games


@settings(max_examples=40)
@given(stakes=st.lists(st.integers(MAX_AMOUNT - 10**6, MAX_AMOUNT), min_size=1, max_size=4),
       unit=st.sampled_from([1, 7, 100, MAX_PAYOUT_UNIT]), mode=st.sampled_from(list(RoundingMode)),
       extreme=st.sampled_from([Fraction(MAX_RATIO_TERM), Fraction(MAX_RATIO_TERM - 1, MAX_RATIO_TERM),
                                Fraction(1, MAX_RATIO_TERM)]))
def test_at_the_bounds_every_bet_of_every_dice_book_settles_exactly(stakes, unit, mode, extreme):
    """Every bet kind, in every state, against every outcome, with stakes at MAX_AMOUNT, the extreme
    payout units and a cussec paytable at the extreme ratios: the int64 settlement equals the exact
    win rounded with Python's integers (which cannot overflow), and never pays a negative amount."""
    pays = {bet: extreme for bet in cussec_paytable()}
    for game in every_rule_book(pays, unit, mode):
        table = game.table
        assert int(table.ratio_num.max()) <= MAX_WIN_NUMERATOR
        bets, kinds, states = [], [], []
        for k, kind in enumerate(table.kinds):
            for state in range(kind.action.shape[0]):
                if not (kind.action[state] == 0).all():
                    stake = stakes[len(bets) % len(stakes)] // 2 * 2  # lines count half: even stakes
                    bets.append(Bet(f"t{len(bets)}", kind.bet, stake, "p", kind.number))
                    kinds.append(k)
                    states.append(state)
        for outcome in range(table.action.shape[2]):
            open_bets = OpenBets()
            open_bets.add_many(bets, kinds, states)
            result = settle(table, open_bets, outcome, game.rounding)
            win = result.code == WIN
            assert (result.paid >= 0).all() and (result.returned >= 0).all() and (result.kept >= 0).all()
            for i in np.flatnonzero(win).tolist():
                kind, bet = table.kinds[kinds[i]], bets[i]
                ratio = Fraction(int(kind.ratio_num[states[i], outcome]), int(kind.ratio_den[states[i], outcome]))
                exact = Fraction(bet.stake) * kind.at_risk * ratio
                paid, breakage = game.rounding.pay(exact)
                assert int(result.paid[i]) == paid
                assert Fraction(int(result.breakage_num[i]), int(result.breakage_den[i])) == breakage
