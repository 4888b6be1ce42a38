"""P'ai Kao, Macau Portaria of 17 May 1985 (seed 002): the bank — bets on the banker's seat (Art. 3.2),
two deals at most (Art. 4.1), the capital of a banker who won (Art. 4.9). One test per article.

The deal: four 1s (dealing order 3, 4, 5, 6, 7, 0, 1, 2), the 32 tiles in set order; the banker sets
his pair of nines (3-6 + 4-5, a Pou) in front: seat 4 (1-3 + 1-4) and seat 6 (2-3 + 2-4) lose to him,
seat 2 (6-6 + 6-6) beats him.
"""

from __future__ import annotations

import pytest

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.errors import BetRefused, RefusalReason
from firmware_host.rules.layout import Layout
from firmware_host.rules.paikao_bank import BankTurn, PaiKaoBank
from firmware_host.rules.paikao_game import PaiKao, PaiKaoRound
from firmware_host.rules.stakes import Limits

from .test_paikao_hands_macau_1985 import ORDER, full_deal, stacks

SETTINGS = {0: ["3-6", "4-5"], 2: ["6-6", "6-6"], 4: ["1-3", "1-4"], 6: ["2-3", "2-4"]}


def game() -> PaiKao:
    return PaiKao("macau-1985", Limits(10_000, 1_000_000))


def dealt() -> PaiKaoRound:
    round_ = PaiKaoRound(order=ORDER)
    full_deal(round_, stacks())
    for seat in range(8):
        round_.set(seat, SETTINGS.get(seat, stacks()[seat][:2]))
    return round_


def play(layout: Layout, bets: list[Bet]) -> dict:
    for bet in bets:
        layout.place(bet)
    outcomes = layout.game.game.settle(dealt(), layout.bets)
    layout.game.deal_settled(layout.bets, outcomes)
    layout.bets = []
    return {o.bet.ticket: o for o in outcomes}


def test_art_3_2_bets_on_the_bankers_seat_take_the_banks_win_in_the_order_placed():
    """Seats 4 and 6 lose 10,000 each: the bank wins 20,000. The bets on the banker's seat take it
    first, in the order placed — 15,000 then 5,000 of the second — each less the 5% (Art. 4.2); the
    banker's own capital has nothing left to win."""
    out = play(Layout(PaiKaoBank(game())), [
        Bet("bank", "banker", 50_000, "B"), Bet("a", "banker_seat", 15_000, "anna"), Bet("b", "banker_seat", 10_000, "rui"),
        Bet("s4", "seat", 10_000, "x", 4), Bet("s6", "seat", 10_000, "y", 6)])
    assert (out["a"].result, out["a"].paid, out["a"].returned) == (Result.WIN, 14_250, 15_000)
    assert (out["b"].result, out["b"].paid, out["b"].returned) == (Result.WIN, 4_750, 10_000)
    assert out["bank"].result is Result.PUSH
    assert (out["s4"].kept, out["s6"].kept) == (10_000, 10_000)


def test_art_3_2_and_are_collected_first_when_the_bank_loses():
    out = play(Layout(PaiKaoBank(game())), [
        Bet("bank", "banker", 50_000, "B"), Bet("a", "banker_seat", 15_000, "anna"), Bet("b", "banker_seat", 10_000, "rui"),
        Bet("s2", "seat", 20_000, "x", 2)])
    assert (out["s2"].result, out["s2"].paid) == (Result.WIN, 19_000)
    assert (out["a"].kept, out["b"].kept, out["b"].returned) == (15_000, 5_000, 5_000)
    assert out["bank"].result is Result.PUSH


def test_art_3_2_the_bankers_seat_needs_the_bankers_capital_first():
    with pytest.raises(BetRefused) as refused:
        Layout(PaiKaoBank(game())).place(Bet("a", "banker_seat", 15_000, "anna"))
    assert refused.value.reason is RefusalReason.NOT_ALLOWED_NOW


def test_art_4_9_a_banker_who_won_keeps_capital_and_winnings_in_the_bank():
    """The audit's case: capital 100,000 wins 10,000 (paid 9,500 after the 5%). To keep the bank he must
    put up at least 109,500 — which the multiple-of-the-minimum check used to refuse (10,000 minimum)."""
    layout = Layout(PaiKaoBank(game()))
    out = play(layout, [Bet("bank1", "banker", 100_000, "B"), Bet("s4", "seat", 10_000, "x", 4)])
    assert out["bank1"].paid == 9_500 and layout.game.turn == BankTurn("B", 1, 109_500)
    with pytest.raises(BetRefused) as refused:
        layout.place(Bet("bank2", "banker", 105_000, "B"))
    assert refused.value.reason is RefusalReason.UNDER_MINIMUM and "Art. 4.9" in refused.value.message
    layout.place(Bet("bank3", "banker", 109_500, "B"))
    layout.place(Bet("s6", "seat", 10_000, "y", 6))  # another player's capital is his own matter
    assert layout.bets[0].stake == 109_500


def test_art_4_1_a_seat_holds_the_bank_two_deals_at_most():
    layout = Layout(PaiKaoBank(game()))
    play(layout, [Bet("bank1", "banker", 100_000, "B"), Bet("s2", "seat", 10_000, "x", 2)])  # the bank loses
    assert layout.game.turn == BankTurn("B", 1, 0)  # no winnings to carry
    play(layout, [Bet("bank2", "banker", 50_000, "B")])
    with pytest.raises(BetRefused) as refused:
        layout.place(Bet("bank3", "banker", 50_000, "B"))
    assert refused.value.reason is RefusalReason.NOT_ALLOWED_NOW and "Art. 4.1" in refused.value.message
    layout.game.others_agree = True  # "salvo se todos os jogadores dos restantes sete lugares acordarem"
    layout.place(Bet("bank4", "banker", 50_000, "B"))
    layout.bets = []
    layout.game.others_agree = False
    layout.place(Bet("bank5", "banker", 50_000, "C"))  # the next seat takes the bank


def test_art_4_1_a_void_deal_does_not_count():
    layout = Layout(PaiKaoBank(game()))
    layout.place(Bet("bank1", "banker", 100_000, "B"))
    void = PaiKaoRound(order=ORDER)
    void.deal.void_reason = "two of the banker's tiles face up (Art. 2.3)"
    layout.game.deal_settled(layout.bets, layout.game.game.settle(void, layout.bets))
    assert layout.game.turn == BankTurn()
