"""Chemin de fer, Portugal 1995 chapter I (seed 004): the bank from coup to coup — who holds it, at what
capital, garage, passing it — and a banco of a bank that grew. One test per article, named after it."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.bets import Bet
from firmware_host.rules.chemin_de_fer import ChemindeFer
from firmware_host.rules.chemin_de_fer_bank import ChemindeFerBank
from firmware_host.rules.errors import BetRefused, RefusalReason
from firmware_host.rules.layout import Layout
from firmware_host.rules.misdeal import DecisionRefused
from firmware_host.rules.stakes import Limits

MINIMUM, BANK_MINIMUM = 2000, 50_000


def table() -> ChemindeFerBank:
    return ChemindeFerBank(ChemindeFer("portugal-1995", Limits(MINIMUM, 10**9), bank_minimum=BANK_MINIMUM,
                                       commission=F(5, 100)))


def coup(bank: ChemindeFerBank, winner: str, *punters: int, banco: str | None = None) -> None:
    """One coup at the bank's capital against `punters`' stakes, won by `winner`, settled through the rules."""
    layout = Layout(bank)
    layout.place(Bet(f"bank{id(layout)}", "banker", bank.bank.capital, bank.bank.holder))
    for i, stake in enumerate(punters):
        layout.place(Bet(f"p{id(layout)}-{i}", "player", stake, f"punter{i}"))
    game = bank.game
    # dealt player, banker, player, banker (I.62): naturals, nothing drawn
    deal = {"banker": ("7S", "8H", "KD", "KC"), "player": ("8S", "7H", "KD", "KC"), "tie": ("8S", "8H", "KD", "KC")}
    c = game.new_coup()
    for card in deal[winner]:
        c.deal(card)
    bank.coup_settled(layout.bets, game.settle(c, layout.bets), banco=banco)


def test_i_39_the_bank_is_announced_before_the_punters_bet_and_is_its_holders():
    bank = table()
    with pytest.raises(BetRefused, match=r"I.39") as refused:
        Layout(bank).place(Bet("b", "banker", 60_000, "ana"))
    assert refused.value.reason is RefusalReason.NOT_ALLOWED_NOW
    bank.take("ana", 60_000)
    layout = Layout(bank)
    with pytest.raises(BetRefused, match=r"ana's \(I.30\)"):
        layout.place(Bet("x", "banker", 60_000, "rui"))
    layout.place(Bet("b", "banker", 60_000, "ana"))
    with pytest.raises(BetRefused, match=r"I.30"):
        layout.place(Bet("p", "player", 2000, "ana"))  # no punting against one's own bank


def test_i_35_a_bank_is_at_least_the_minimum_with_no_maximum():
    bank = table()
    with pytest.raises(DecisionRefused, match=r"I.35"):
        bank.take("ana", BANK_MINIMUM - 1)
    bank.take("ana", 10**11)
    assert bank.bank.capital == 10**11


def test_i_46_a_bank_that_won_goes_on_with_what_it_accumulated():
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "banker", 20_000, 10_000)  # wins 30,000 less 5%: 28,500
    assert (bank.bank.holder, bank.bank.capital, bank.bank.wins) == ("ana", 88_500, 1)
    with pytest.raises(BetRefused, match=r"I.46"):
        Layout(bank).place(Bet("b", "banker", 60_000, "ana"))  # not the capital it accumulated


def test_i_46_garage_down_to_twice_the_stakes_won_when_the_punters_did_not_cover_the_bank():
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "banker", 20_000, 10_000)  # 30,000 covered of 60,000
    assert bank.garage_levels() == [60_000]
    assert bank.set_aside() == 28_500
    assert (bank.bank.capital, bank.bank.garage, bank.bank.last) == (60_000, 28_500, "garage")
    Layout(bank).place(Bet("b", "banker", 60_000, "ana"))


def test_i_46_no_garage_when_the_punters_covered_the_bank_before_the_third_win():
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "banker", 60_000)
    assert bank.garage_levels() == []
    with pytest.raises(DecisionRefused, match=r"I.34.*I.46|I.46.*I.34"):
        bank.set_aside()


def test_i_34_half_the_bank_aside_after_the_third_win_and_every_odd_one_after_ties_not_counted():
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "banker", 60_000)  # the punters cover the bank every time: no I.46 garage
    coup(bank, "tie", 117_000)  # equal points: not a win (I.34)
    coup(bank, "banker", 117_000)
    assert bank.bank.wins == 2 and bank.garage_levels() == []
    coup(bank, "banker", bank.bank.capital)
    assert bank.bank.wins == 3 and bank.garage_levels() == [bank.bank.capital // 2]
    coup(bank, "banker", bank.bank.capital)
    assert bank.bank.wins == 4 and bank.garage_levels() == []


def test_i_96_c_the_bank_passes_when_it_loses():
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "player", 60_000)
    assert (bank.bank.holder, bank.bank.last) == (None, "lost")
    bank.take("rui", BANK_MINIMUM)  # a new bank, at least the minimum (I.35)
    assert bank.bank.holder == "rui"


def test_i_76_equal_points_leave_the_bank_as_it_was_and_i_89_it_may_then_pass():
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "tie", 60_000)
    assert (bank.bank.holder, bank.bank.capital, bank.bank.last) == ("ana", 60_000, "tie")
    left = bank.pass_bank()
    assert left.holder == "ana" and bank.bank.holder is None and bank.bank.offered == 60_000


def test_i_77_a_banker_who_won_may_pass_the_bank_offered_at_its_level_i_80():
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "banker", 60_000)
    with pytest.raises(DecisionRefused, match=r"ana's"):
        bank.take("rui", 200_000)  # not before ana passes it
    bank.pass_bank()
    assert bank.bank.offered == 117_000
    with pytest.raises(DecisionRefused, match=r"nothing to pass"):
        bank.pass_bank()


def test_i_51_a_punter_who_lost_a_banco_may_follow_it_up():
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "banker", 60_000, banco="rui")
    assert bank.bank.suivi == "rui"
    coup(bank, "player", 2000)
    assert bank.bank.suivi is None


def test_i_45_a_banco_of_a_bank_that_grew_is_the_whole_bank_not_a_multiple_of_the_minimum():
    """I.45 obliges the banker to accept one punter betting the whole bank; a bank that won is rarely a
    multiple of the punters' minimum (I.36), which binds the punters' ordinary bets only."""
    bank = table()
    bank.take("ana", 60_000)
    coup(bank, "banker", 30_000)  # 60,000 + 28,500
    layout = Layout(bank)
    layout.place(Bet("b", "banker", 88_500, "ana"))
    layout.place(Bet("p", "player", 88_500, "rui"))
    assert bank.game.is_banco(layout.bets)
    other = Layout(bank)
    other.place(Bet("b2", "banker", 88_500, "ana"))
    other.place(Bet("q", "player", 2000, "rui"))
    with pytest.raises(BetRefused) as refused:
        other.place(Bet("r", "player", 86_500 + 1, "eva"))
    assert refused.value.reason is RefusalReason.NOT_MULTIPLE_OF_MINIMUM
