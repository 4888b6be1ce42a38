"""Cussec (004 VII), banca francesa (004 IV) and the P'ai Kao dice (002 Art. 1): one test per article."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.bets import Result
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.errors import BetRefused, RefusalReason
from firmware_host.rules.paikao import dealing_order, first_seat

from .tables import banca_table, cussec_table, outcome_of, place, single, won


# --- cussec, Portugal 1995 VII -------------------------------------------------------------
@pytest.mark.parametrize("bet,faces,ratio", [("small", (1, 2, 1), 1), ("small", (3, 3, 4), 1), ("big", (6, 5, 6), 1),
                                             ("big", (4, 3, 4), 1)])
def test_vii_7ab_8ab_small_4_to_10_big_11_to_17(bet, faces, ratio):
    assert won(single(cussec_table(), bet, faces)) == ratio


@pytest.mark.parametrize("bet,faces", [("small", (2, 2, 2)), ("big", (5, 5, 5)), ("small", (4, 4, 3)), ("big", (1, 4, 5))])
def test_vii_9_small_and_big_lose_on_any_triple(bet, faces):
    assert single(cussec_table(), bet, faces).result is Result.LOSE


@pytest.mark.parametrize("faces,ratio", [((4, 1, 2), 1), ((4, 4, 2), 2), ((4, 4, 4), 3)])
def test_vii_7c_8c_single_number_pays_by_dice_showing_it(faces, ratio):
    assert won(single(cussec_table(), "single_4", faces)) == ratio
    assert single(cussec_table(), "single_6", faces).result is Result.LOSE


def test_vii_7d_8d_two_dice_combination_pays_5():
    assert won(single(cussec_table(), "combination_2_5", (5, 3, 2))) == 5
    assert won(single(cussec_table(), "combination_2_5", (5, 5, 2))) == 5
    assert single(cussec_table(), "combination_2_5", (5, 5, 3)).result is Result.LOSE


@pytest.mark.parametrize("faces,ratio", [((3, 3, 1), 10), ((3, 6, 3), 10), ((3, 3, 3), 30)])
def test_vii_7e_8e_double_pays_10_and_30_on_three_dice(faces, ratio):
    assert won(single(cussec_table(), "double_3", faces)) == ratio


def test_vii_7f_8f_specific_triple_190_and_7g_8g_any_triple_32():
    assert won(single(cussec_table(), "triple_6", (6, 6, 6))) == 190
    assert single(cussec_table(), "triple_6", (5, 5, 5)).result is Result.LOSE
    assert won(single(cussec_table(), "any_triple", (5, 5, 5))) == 32
    assert single(cussec_table(), "any_triple", (5, 5, 4)).result is Result.LOSE


@pytest.mark.parametrize("total,ratio", [(4, 65), (17, 65), (5, 32), (16, 32), (6, 19), (15, 19), (7, 12), (14, 12),
                                         (8, 8), (13, 8), (9, 7), (12, 7), (10, 6), (11, 6)])
def test_vii_7h_8h_totals(total, ratio):
    faces = next((a, b, c) for a in range(1, 7) for b in range(1, 7) for c in range(1, 7) if a + b + c == total)
    assert won(single(cussec_table(), f"total_{total}", faces)) == ratio


def test_vii_stakes_need_not_be_multiples_of_the_minimum():
    """Chapter VII names no multiple of the minimum: 300 on big at a 200 minimum is accepted."""
    table = cussec_table(limits=Limits(200, 200_000))
    assert single(table, "big", (6, 5, 6), stake=300).paid == 300


def test_vii_10_winning_stake_stays_with_the_player():
    out = single(cussec_table(), "big", (6, 5, 6), stake=1000)
    assert out.returned == 1000 and out.paid == 1000


def test_paytable_replacement_for_an_approved_180_to_1_triple():
    from firmware_host.rules.cussec import Cussec
    from .tables import LIMITS
    from firmware_host.rules.dice_game import DiceTable
    table = DiceTable(Cussec("portugal-1995", LIMITS, paytable={"triple_2": F(180)}))
    assert won(single(table, "triple_2", (2, 2, 2))) == 180


# --- banca francesa, Portugal 1995 IV ---------------------------------------------------------
@pytest.mark.parametrize("bet,faces,ratio", [("aces", (1, 1, 1), 61), ("small", (1, 2, 2), 1), ("small", (2, 2, 3), 1),
                                             ("small", (1, 1, 5), 1), ("big", (4, 5, 5), 1), ("big", (6, 6, 3), 1),
                                             ("big", (6, 5, 5), 1)])
def test_iv_9_and_13_chances_and_prizes(bet, faces, ratio):
    assert won(single(banca_table(), bet, faces)) == ratio


@pytest.mark.parametrize("faces", [(1, 1, 2), (2, 3, 3), (4, 4, 5), (6, 6, 5), (6, 6, 6), (3, 3, 4)])
def test_iv_9_other_totals_decide_nothing(faces):
    table = banca_table()
    bets = [place(table, b) for b in ("aces", "small", "big")]
    result = table.throw(faces)
    assert all(o.result is Result.STAY for o in result.outcomes())
    assert len(table.open_bets) == len(bets)


def test_iv_9_a_decision_settles_every_chance():
    table = banca_table()
    aces, small, big = (place(table, b) for b in ("aces", "small", "big"))
    result = {o.bet.ticket: o.result for o in table.throw((5, 5, 5)).outcomes()}
    assert result == {aces.ticket: Result.LOSE, small.ticket: Result.LOSE, big.ticket: Result.WIN}


def test_iv_10_11_line_bets_count_half_the_chips():
    table = banca_table()
    out = single(table, "small_line", (2, 2, 2), stake=400)
    assert (out.paid, out.returned, out.kept) == (200, 400, 0)
    out = single(table, "big_line", (2, 2, 2), stake=400)
    assert (out.paid, out.returned, out.kept) == (0, 200, 200)


def test_iv_11_line_bets_between_twice_the_minimum_and_twice_the_maximum():
    """IV.11: a line bet is half the chips, from twice the minimum to twice the maximum; chapter IV
    asks no multiple of the minimum: a line of 600 at a 200 minimum (300 at risk) is accepted."""
    table = banca_table(limits=Limits(200, 10_000))
    place(table, "small_line", 600)
    with pytest.raises(BetRefused) as refused:
        place(table, "small_line", 200)
    assert refused.value.reason is RefusalReason.UNDER_MINIMUM
    with pytest.raises(BetRefused) as refused:
        place(table, "small_line", 601)  # half of it is not a whole minor unit
    assert refused.value.reason is RefusalReason.NOT_MULTIPLE_OF_STEP
    place(table, "big_line", 20_000)  # twice the maximum 10,000
    with pytest.raises(BetRefused) as refused:
        place(table, "big_line", 400, owner="p1")
    assert refused.value.reason is RefusalReason.OVER_MAXIMUM


def test_iv_7_d_dice_touched_before_the_announcement_winners_paid_nobody_loses():
    """IV.7 d: the dealer lifted or touched the dice without announcing the chance: "o golpe será válido,
    ganhando os jogadores que tenham apostado na chance correspondente aos pontos saídos e não perdendo
    nenhuma das outras chances". Total 6: small wins; aces and big, which would have lost, stay on the
    layout (the default reading) or are returned (touched_dice_losers = "returned")."""
    table = banca_table()
    small, big, aces = place(table, "small", 400), place(table, "big", 400), place(table, "aces", 100)
    out = {o.bet.ticket: o for o in table.throw((1, 2, 3), dealer_touched=True).outcomes()}
    assert (out[small.ticket].result, out[small.ticket].paid) == (Result.WIN, 400)
    assert out[big.ticket].result is out[aces.ticket].result is Result.STAY and out[big.ticket].kept == 0
    assert {b.ticket for b in table.open_bets.bets} == {big.ticket, aces.ticket}
    assert outcome_of(table, big, (5, 5, 5)).result is Result.WIN  # a later throw decides them as usual
    returned = banca_table(touched_dice_losers="returned")
    loser = place(returned, "big", 400)
    out = returned.throw((1, 2, 3), dealer_touched=True).outcomes()[0]
    assert (out.bet, out.result, out.returned, out.kept) == (loser, Result.PUSH, 400, 0)


def test_iv_7_d_is_banca_francesas_rule_only():
    from firmware_host.rules.errors import RulesError
    with pytest.raises(RulesError, match="IV.7 d"):
        cussec_table().throw((1, 2, 3), dealer_touched=True)


def test_iv_8_void_throws_and_their_articles():
    reasons = banca_table().game.void_reasons
    assert reasons["cocked"] == "Portugal 1995 IV.8 f" and reasons["stacked"] == "Portugal 1995 IV.8 g"
    assert cussec_table().game.void_reasons["overlapping"] == "Portugal 1995 VII.6"


def test_iv_17_maxima_small_big_200_and_aces_6_times_the_minimum():
    table = banca_table(limits=Limits(100, 1_000_000))
    place(table, "aces", 600)
    place(table, "small", 20_000)
    with pytest.raises(BetRefused):
        place(table, "aces", 700, owner="p2")
    with pytest.raises(BetRefused):
        place(table, "big", 20_100, owner="p2")


# --- P'ai Kao dice, Macau Art. 1 -----------------------------------------------------------------
@pytest.mark.parametrize("faces,seat", [((1, 1, 1, 1), 3), ((1, 1, 1, 5), 7), ((1, 1, 1, 6), 0), ((6, 6, 6, 6), 7),
                                        ((2, 2, 2, 3), 0), ((3, 3, 3, 3), 3)])
def test_art_1_2_the_total_counts_seats_from_the_banker(faces, seat):
    assert first_seat(faces) == seat


def test_art_1_3_and_1_4_dealing_goes_right_to_left_to_all_eight_seats():
    order = dealing_order((1, 1, 1, 2))  # total 5: seat 4 first
    assert order == [4, 5, 6, 7, 0, 1, 2, 3]
    assert sorted(order) == list(range(8))


def test_art_1_2_refuses_anything_but_four_dice():
    from firmware_host.rules.dice import BadThrow
    with pytest.raises(BadThrow):
        first_seat((1, 2, 3))
    with pytest.raises(BadThrow):
        first_seat((1, 2, 3, 7))
