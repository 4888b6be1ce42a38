"""Craps, Macau 1985 rule book (Portaria 97/85/M, seed 003): one test per article."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.bets import Result
from firmware_host.rules.errors import BetRefused, RefusalReason
from firmware_host.rules.stakes import Limits

from .tables import craps_table, outcome_of, place, single, won

BOOK = "macau-1985"


def test_art_1_cocked_or_off_table_dice_are_for_vision_the_rules_take_faces_only():
    from firmware_host.rules.dice import BadThrow
    with pytest.raises(BadThrow):
        craps_table(BOOK).throw((0, 7))


@pytest.mark.parametrize("faces,result", [((3, 4), Result.WIN), ((5, 6), Result.WIN), ((1, 2), Result.LOSE)])
def test_art_2_1_pass_line(faces, result):
    assert single(craps_table(BOOK), "pass", faces).result is result


@pytest.mark.parametrize("point,faces,line,max_odds", [(4, (2, 2), 1000, 500), (5, (2, 3), 1000, 600),
                                                       (6, (3, 3), 1200, 1000), (10, (4, 6), 600, 300)])
def test_art_2_2_odds_win_never_exceeds_the_line_bet(point, faces, line, max_odds):
    table = craps_table(BOOK)
    place(table, "pass", line)
    table.throw(faces)
    with pytest.raises(BetRefused) as refused:
        place(table, "odds", max_odds + 100, number=point)
    assert refused.value.reason is RefusalReason.ODDS_OVER_LIMIT
    odds = place(table, "odds", max_odds, number=point)
    out = outcome_of(table, odds, faces)
    assert out.paid <= line and out.result is Result.WIN


def test_art_2_3_come_with_odds():
    table = craps_table(BOOK)
    table.throw((4, 4))
    come = place(table, "come", 1200)
    table.throw((2, 4))  # come point 6
    odds = place(table, "odds", 1000, number=6)
    result = table.throw((1, 5))
    by_ticket = {o.bet.ticket: o for o in result.outcomes()}
    assert by_ticket[come.ticket].result is Result.WIN and by_ticket[odds.ticket].paid == 1200


@pytest.mark.parametrize("faces,result", [((1, 1), Result.WIN), ((1, 2), Result.WIN), ((6, 6), Result.PUSH),
                                          ((3, 4), Result.LOSE), ((5, 6), Result.LOSE)])
def test_art_3_1_dont_pass(faces, result):
    assert single(craps_table(BOOK), "dont_pass", faces).result is result


@pytest.mark.parametrize("point,faces,ratio", [(4, (1, 3), F(1, 2)), (9, (4, 5), F(2, 3)), (8, (2, 6), F(5, 6))])
def test_art_3_2_dont_pass_odds(point, faces, ratio):
    table = craps_table(BOOK)
    place(table, "dont_pass", 1200)
    table.throw(faces)
    odds = place(table, "dont_odds", 600, number=point)
    assert won(outcome_of(table, odds, (6, 1))) == ratio


def test_art_3_3_dont_come():
    table = craps_table(BOOK)
    table.throw((5, 5))
    bet = place(table, "dont_come")
    table.throw((4, 5))
    assert outcome_of(table, bet, (5, 2)).result is Result.WIN


@pytest.mark.parametrize("faces,ratio", [((1, 2), F(1)), ((2, 2), F(1)), ((4, 5), F(1)), ((5, 5), F(1)),
                                         ((5, 6), F(1)), ((1, 1), F(2)), ((6, 6), F(2))])
def test_art_4_field_pays_double_on_2_and_12(faces, ratio):
    assert won(single(craps_table(BOOK), "field", faces)) == ratio


@pytest.mark.parametrize("faces", [(1, 4), (3, 3), (3, 4), (4, 4)])
def test_art_4_field_loses_otherwise(faces):
    assert single(craps_table(BOOK), "field", faces).result is Result.LOSE


@pytest.mark.parametrize("number,ratio", [(6, F(9)), (8, F(9)), (4, F(7)), (10, F(7))])
def test_art_5_hard_ways(number, ratio):
    half = number // 2
    assert won(single(craps_table(BOOK), f"hard_{number}", (half, half))) == ratio
    assert single(craps_table(BOOK), f"hard_{number}", (half - 1, half + 1)).result is Result.LOSE


def test_art_6_big_7_pays_four_and_a_half():
    assert won(single(craps_table(BOOK), "any_seven", (2, 5), stake=200)) == F(9, 2)


def test_art_7_eleven_pays_15():
    assert won(single(craps_table(BOOK), "eleven", (5, 6))) == 15


def test_art_8_any_craps_pays_7():
    assert won(single(craps_table(BOOK), "any_craps", (6, 6))) == 7


@pytest.mark.parametrize("number,faces", [(6, (2, 4)), (8, (3, 5))])
def test_art_9_big_6_or_8_pays_7_for_6_and_even_money_under_6(number, faces):
    # minimum MOP 1 = 100 avos; "$6,00" is 600 avos
    table = craps_table(BOOK)
    assert single(table, f"place_{number}", faces, stake=600).paid == 700
    assert single(table, f"place_{number}", faces, stake=500).paid == 500  # under $6: prize equals the stake
    assert single(table, f"place_{number}", (1, 1), stake=600).result is Result.STAY


@pytest.mark.parametrize("number,faces", [(5, (1, 4)), (9, (3, 6))])
def test_art_10_big_5_or_9_pays_7_for_5_and_even_money_under_5(number, faces):
    table = craps_table(BOOK)
    assert single(table, f"place_{number}", faces, stake=500).paid == 700
    assert single(table, f"place_{number}", faces, stake=400).paid == 400


@pytest.mark.parametrize("number,faces", [(4, (1, 3)), (10, (4, 6))])
def test_art_11_big_4_or_10_pays_9_for_5(number, faces):
    assert single(craps_table(BOOK), f"place_{number}", faces, stake=500).paid == 900


def test_art_12_bets_of_arts_4_to_11_any_time():
    table = craps_table(BOOK)
    table.throw((2, 2))
    for bet in ("field", "hard_4", "any_seven", "eleven", "any_craps", "place_6", "place_5", "place_4"):
        place(table, bet, 600)
    assert len(table.open_bets) == 8


def test_1985_has_no_ace_deuce_horn_or_big_small():
    for bet in ("ace_deuce", "aces", "boxcars", "horn", "big", "small"):
        with pytest.raises(BetRefused) as refused:
            place(craps_table(BOOK), bet)
        assert refused.value.reason is RefusalReason.UNKNOWN_BET


def test_1985_asks_no_multiple_of_the_minimum_the_house_rule_may_add_it():
    """Portaria 97/85/M names no multiple of the minimum (2010 Art. 5.6 added it): a field of 150 at a
    100 minimum is accepted, unless the table sets limits.all_multiples_of_minimum."""
    place(craps_table(BOOK), "field", 150)
    house = craps_table(BOOK, limits=Limits(100, 10_000, all_multiples_of_minimum=True))
    with pytest.raises(BetRefused) as refused:
        place(house, "field", 150)
    assert refused.value.reason is RefusalReason.NOT_MULTIPLE_OF_MINIMUM


def test_art_1_the_1985_book_sets_no_condition_on_the_shooter():
    """Art. 1: "o lançamento dos dados só pode ser feito por um deles" — one player throws; no bet needed."""
    table = craps_table(BOOK)
    assert table.game.shooter_refusal(table.open_bets, "ana") is None
    assert table.game.void_reasons == {"off_table": "Macau 1985 Art. 1"}
