"""Punto banco / Macau, Portugal 1995 chapter III (seed 004): the book's own limits (III.11) and its
shared rules (III.1-19 repeat II.1-19)."""

from __future__ import annotations

import pytest

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.errors import BetRefused, RefusalReason, RulebookError
from firmware_host.rules.layout import Layout
from firmware_host.rules.misdeal import WrongOrder
from firmware_host.rules.punto_banco import PuntoBanco


def macau(max_difference: int = 100_000) -> PuntoBanco:
    return PuntoBanco("macau", Limits(1000, 1000), max_difference=max_difference)


def test_iii_11_a_no_individual_maximum():
    layout = Layout(macau())
    layout.place(Bet("a", "player", 100_000, "x"))  # far above 70 x min; only the difference counts
    layout.place(Bet("b", "banker", 100_000, "y"))
    layout.place(Bet("c", "player", 100_000, "x"))


def test_iii_11_b_c_the_difference_between_player_and_banker_is_capped():
    layout = Layout(macau(100_000))
    layout.place(Bet("a", "player", 60_000, "x"))
    layout.place(Bet("b", "banker", 150_000, "y"))  # difference 90,000
    with pytest.raises(BetRefused) as err:
        layout.place(Bet("c", "banker", 20_000, "z"))  # would be 110,000
    assert err.value.reason is RefusalReason.OVER_TABLE_LIMIT and "III.11" in err.value.message


def test_iii_11_b_a_withdrawal_that_would_break_the_difference_is_refused():
    layout = Layout(macau(100_000))
    layout.place(Bet("a", "player", 60_000, "x"))
    layout.place(Bet("b", "banker", 150_000, "y"))
    with pytest.raises(BetRefused) as err:
        layout.withdraw("a")
    assert err.value.reason is RefusalReason.NOT_REMOVABLE
    assert layout.withdraw("b").result is Result.RETURNED


def test_iii_11_d_tie_total_at_most_ten_percent_of_the_difference():
    layout = Layout(macau(100_000))
    layout.place(Bet("a", "tie", 6_000, "x"))
    layout.place(Bet("b", "tie", 4_000, "y"))  # 10,000 = 10%
    with pytest.raises(BetRefused) as err:
        layout.place(Bet("c", "tie", 1_000, "z"))
    assert err.value.reason is RefusalReason.OVER_TABLE_LIMIT


def test_iii_11_b_the_book_needs_its_max_difference_and_portugal_refuses_it():
    with pytest.raises(RulebookError):
        PuntoBanco("macau", Limits(1000, 1000))
    with pytest.raises(RulebookError):
        PuntoBanco("portugal-1995", Limits(1000, 70_000), max_difference=10_000)


def test_iii_14_dealing_slips_cite_chapter_iii():
    coup = macau().new_coup()
    with pytest.raises(WrongOrder) as err:
        coup.deal("5S", to="banker")
    assert "III.14" in err.value.article


def test_iii_17_19_same_payouts_as_chapter_ii():
    game = macau()
    coup = game.new_coup()
    for card in ["KS", "9H", "KD", "KC"]:
        coup.deal(card)
    out = game.settle(coup, [Bet("a", "banker", 2000, "x"), Bet("b", "player", 2000, "y")])
    assert (out[0].paid, out[1].kept) == (1900, 2000)
