"""Craps, Portugal 1995 rule book (Portaria 1441/95 chapter VI, seed 004): one test per article."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.bets import Moment, Result
from firmware_host.rules.errors import BetRefused, RefusalReason
from firmware_host.rules.stakes import Limits

from .tables import craps_table, outcome_of, place, single, won

BOOK = "portugal-1995"


def test_vi_8_dice_change_hands_after_a_seven_that_loses_the_pass_line():
    table = craps_table(BOOK)
    table.throw((3, 4))
    assert table.state.shooter == 1
    table.throw((4, 5))
    table.throw((1, 6))
    assert table.state.shooter == 2 and table.state.point == 0


@pytest.mark.parametrize("faces,result", [((3, 4), Result.WIN), ((5, 6), Result.WIN), ((1, 1), Result.LOSE),
                                          ((1, 2), Result.LOSE), ((6, 6), Result.LOSE)])
def test_vi_10_1_pass_line(faces, result):
    assert single(craps_table(BOOK), "pass", faces).result is result


@pytest.mark.parametrize("bar,faces,result", [
    (12, (1, 1), Result.WIN), (12, (1, 2), Result.WIN), (12, (6, 6), Result.PUSH),
    (2, (1, 2), Result.WIN), (2, (6, 6), Result.WIN), (2, (1, 1), Result.PUSH),
    (12, (3, 4), Result.LOSE), (2, (5, 6), Result.LOSE),
])
def test_vi_10_2_dont_pass_bar_is_pair_of_sixes_or_pair_of_aces(bar, faces, result):
    assert single(craps_table(BOOK, bar=bar), "dont_pass", faces).result is result


def test_vi_10_3_come_after_the_point():
    table = craps_table(BOOK)
    with pytest.raises(BetRefused):
        place(table, "come")
    table.throw((4, 5))
    come = place(table, "come")
    table.throw((2, 2))
    assert outcome_of(table, come, (1, 3)).result is Result.WIN


def test_vi_10_4_dont_come_with_bar_2():
    table = craps_table(BOOK, bar=2)
    table.throw((4, 5))
    assert single(table, "dont_come", (1, 1)).result is Result.PUSH
    assert single(table, "dont_come", (6, 6)).result is Result.WIN


@pytest.mark.parametrize("number", [6, 8])
def test_vi_10_5_and_10_6_big_6_and_big_8_are_even_money(number):
    table = craps_table(BOOK)
    bet = place(table, f"big_{number}")
    assert outcome_of(table, bet, (6, 6)).result is Result.STAY
    assert won(outcome_of(table, bet, (number - 3, 3))) == 1
    assert single(table, f"big_{number}", (3, 4)).result is Result.LOSE


@pytest.mark.parametrize("bet,wins,loses", [("under_7", (2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12)),
                                            ("over_7", (8, 9, 10, 11, 12), (2, 3, 4, 5, 6, 7))])
def test_vi_10_7_and_10_8_under_and_over_seven(bet, wins, loses):
    table = craps_table(BOOK)
    faces_for = {t: (max(1, t - 6), t - max(1, t - 6)) for t in range(2, 13)}
    for total in wins:
        assert won(single(table, bet, faces_for[total])) == 1
    for total in loses:
        assert single(table, bet, faces_for[total]).result is Result.LOSE


@pytest.mark.parametrize("bet", ["pass", "dont_pass"])
def test_vi_10_9_line_bets_cannot_be_removed_after_the_first_throw(bet):
    table = craps_table(BOOK)
    placed = place(table, bet)
    table.throw((3, 3))
    with pytest.raises(BetRefused) as refused:
        table.withdraw(placed.ticket)
    assert refused.value.reason is RefusalReason.NOT_REMOVABLE
    assert len(table.open_bets) == 1  # nothing accepted is lost


def test_vi_10_9_line_bet_can_be_removed_before_the_first_throw_and_cannot_be_added_after():
    table = craps_table(BOOK)
    placed = place(table, "pass")
    assert table.withdraw(placed.ticket).returned == placed.stake
    place(table, "pass")
    table.throw((3, 3))
    with pytest.raises(BetRefused) as refused:
        place(table, "pass")  # a change after the come-out
    assert refused.value.reason is RefusalReason.NOT_ALLOWED_NOW


def test_vi_10_9_come_bets_likewise_once_they_have_a_number():
    table = craps_table(BOOK)
    table.throw((3, 3))
    come = place(table, "dont_come")
    table.throw((2, 3))
    with pytest.raises(BetRefused):
        table.withdraw(come.ticket)


def test_vi_11_1_odds_stake_may_not_exceed_the_line_bet_and_may_be_withdrawn():
    table = craps_table(BOOK)
    place(table, "pass", 1000)
    table.throw((2, 3))
    with pytest.raises(BetRefused) as refused:
        place(table, "odds", 1100, number=5)
    assert refused.value.reason is RefusalReason.ODDS_OVER_LIMIT
    odds = place(table, "odds", 1000, number=5)
    assert table.withdraw(odds.ticket).returned == 1000


def test_vi_11_1_odds_may_not_lead_to_a_payment_above_the_table_maximum():
    """VI.11.1: odds "não dêem lugar a pagamento superior ao máximo". At a 500,000 table, pass 500,000
    with odds 500,000 on 4 would pay 1,000,000 at 2:1: refused; 250,000 pays 500,000 and is accepted."""
    table = craps_table(BOOK, limits=Limits(500, 500_000))
    place(table, "pass", 500_000)
    table.throw((1, 3))
    with pytest.raises(BetRefused) as refused:
        place(table, "odds", 500_000, number=4)
    assert refused.value.reason is RefusalReason.ODDS_OVER_LIMIT and "VI.11.1" in refused.value.message
    odds = place(table, "odds", 250_000, number=4)
    with pytest.raises(BetRefused):
        place(table, "odds", 500, number=4)  # together 250,500 would pay 501,000
    assert outcome_of(table, odds, (2, 2)).paid == 500_000


def test_vi_11_1_odds_payment_cap_is_the_1995_books_own():
    """Macau 2010 sets the odds by the line bet only (Art. 5.2.2, 6.2): a 6x table pays odds above the maximum."""
    table = craps_table("macau-2010", limits=Limits(100, 500_000), odds_multiple=6)
    place(table, "pass", 500_000)
    table.throw((1, 3))
    place(table, "odds", 500_000, number=4)


def test_vi_11_1_odds_may_come_down_any_time_before_the_decision():
    """VI.11.1: odds "podem ser retiradas em qualquer altura antes da decisão das jogadas". The audit's
    case: after "no more bets", before the throw, an odds withdrawal was refused; now it is accepted,
    while a place bet then is not (betting is closed), and nothing comes down once the dice are thrown."""
    table = craps_table(BOOK)
    place(table, "pass", 1000)
    table.throw((2, 3))
    odds = place(table, "odds", 1000, number=5)
    place_6 = place(table, "place_6", 600)
    assert table.withdraw(odds.ticket, Moment.BEFORE_DECISION).returned == 1000
    with pytest.raises(BetRefused) as refused:
        table.withdraw(place_6.ticket, Moment.BEFORE_DECISION)
    assert refused.value.reason is RefusalReason.BETTING_CLOSED
    again = place(table, "odds", 1000, number=5)
    with pytest.raises(BetRefused) as refused:
        table.withdraw(again.ticket, Moment.DECIDING)
    assert refused.value.reason is RefusalReason.BETTING_CLOSED


def test_vi_11_1_odds_withdrawal_is_the_1995_books_own_a_choice_elsewhere():
    """2010 and 1985 are silent: by default odds come down while betting is open only; a table may
    choose `odds_withdrawal = "until_decision"`; a 1995 table cannot choose less than VI.11.1."""
    from firmware_host.rules.errors import RulebookError
    for options, allowed in (({}, False), ({"odds_withdrawal": "until_decision"}, True)):
        table = craps_table("macau-2010", odds_multiple=6, **options)
        place(table, "pass", 1000)
        table.throw((2, 3))
        odds = place(table, "odds", 1000, number=5)
        if allowed:
            table.withdraw(odds.ticket, Moment.BEFORE_DECISION)
        else:
            with pytest.raises(BetRefused):
                table.withdraw(odds.ticket, Moment.BEFORE_DECISION)
    with pytest.raises(RulebookError):
        craps_table(BOOK, odds_withdrawal="while_betting")


@pytest.mark.parametrize("point,faces,ratio", [(6, (1, 5), F(6, 5)), (5, (1, 4), F(3, 2)), (4, (1, 3), F(2))])
def test_vi_11_1_odds_payments(point, faces, ratio):
    table = craps_table(BOOK)
    place(table, "pass", 1000)
    table.throw(faces)
    odds = place(table, "odds", 1000, number=point)
    assert won(outcome_of(table, odds, faces)) == ratio


def test_vi_11_1_odds_without_a_line_bet_are_refused():
    table = craps_table(BOOK)
    table.throw((2, 3))
    with pytest.raises(BetRefused) as refused:
        place(table, "odds", 100, number=5)
    assert refused.value.reason is RefusalReason.NO_LINE_BET
    with pytest.raises(BetRefused) as refused:
        place(table, "odds", 100, number=7)
    assert refused.value.reason is RefusalReason.MALFORMED


@pytest.mark.parametrize("bet,faces,ratio", [("any_craps", (1, 1), 7), ("any_seven", (1, 6), 4), ("aces", (1, 1), 30),
                                             ("ace_deuce", (2, 1), 15), ("eleven", (6, 5), 15), ("boxcars", (6, 6), 30)])
def test_vi_11_2_and_11_4_to_11_8_one_roll_payments(bet, faces, ratio):
    assert won(single(craps_table(BOOK), bet, faces)) == ratio


@pytest.mark.parametrize("number,ratio", [(4, 7), (10, 7), (6, 9), (8, 9)])
def test_vi_11_3_hardways(number, ratio):
    half = number // 2
    assert won(single(craps_table(BOOK), f"hard_{number}", (half, half))) == ratio


@pytest.mark.parametrize("number,faces,ratio", [(6, (2, 4), F(7, 6)), (8, (2, 6), F(7, 6)), (5, (2, 3), F(7, 5)),
                                                (9, (4, 5), F(7, 5)), (4, (2, 2), F(9, 5)), (10, (5, 5), F(9, 5))])
def test_vi_12_first_column_place_to_win(number, faces, ratio):
    assert won(single(craps_table(BOOK), f"place_{number}", faces, stake=3000)) == ratio


@pytest.mark.parametrize("number,ratio", [(6, F(10, 13)), (8, F(10, 13)), (5, F(5, 8)), (9, F(5, 8)),
                                          (4, F(5, 11)), (10, F(5, 11))])
def test_vi_12_second_column_place_to_lose(number, ratio):
    table = craps_table(BOOK)
    bet = place(table, f"lay_{number}", 1300)
    assert outcome_of(table, bet, (6, 6)).result is Result.STAY
    assert won(outcome_of(table, bet, (3, 4))) == ratio
    loser = place(table, f"lay_{number}", 1300)
    assert outcome_of(table, loser, (number // 2, number - number // 2)).result is Result.LOSE


def test_vi_12_place_bets_must_be_multiples_of_the_minimum():
    with pytest.raises(BetRefused) as refused:
        place(craps_table(BOOK), "place_6", 250)
    assert refused.value.reason is RefusalReason.NOT_MULTIPLE_OF_MINIMUM


def test_vi_12_only_the_bets_on_the_numbers_must_be_multiples_of_the_minimum():
    """VI.12: "As apostas nestas chances" — the place-to-win and place-to-lose bets; chapter VI asks
    it of no other bet: a field of 750 at a 500 minimum is accepted, a lay 6 of 750 is not."""
    table = craps_table(BOOK, limits=Limits(500, 500_000))
    place(table, "field", 750)
    place(table, "big_6", 750)
    for bet in ("lay_6", "place_8"):
        with pytest.raises(BetRefused) as refused:
            place(table, bet, 750)
        assert refused.value.reason is RefusalReason.NOT_MULTIPLE_OF_MINIMUM and "VI.12" in refused.value.message


@pytest.mark.parametrize("faces,ratio", [((1, 1), 2), ((6, 6), 2), ((1, 2), 1), ((5, 6), 1)])
def test_vi_13_1_field(faces, ratio):
    assert won(single(craps_table(BOOK), "field", faces)) == ratio


def test_vi_1995_has_no_horn_nor_big_small_and_no_field_12_choice():
    from firmware_host.rules.errors import RulebookError
    with pytest.raises(RulebookError):
        craps_table(BOOK, field_12_pays=F(3))
    for bet in ("horn", "big", "small"):
        with pytest.raises(BetRefused):
            place(craps_table(BOOK), bet)


def test_vi_5_players_who_bet_throw_the_pass_line_bettors_first():
    """VI.5: the dice are thrown by players who have made any bet, from the stickman's left, "tendo
    preferência o que tenha apostado no pass-line"."""
    table = craps_table(BOOK)
    place(table, "field", 600, owner="rui")
    place(table, "pass", 600, owner="eva")
    place(table, "big_6", 600, owner="ana")
    assert table.game.shooters(table.open_bets, ["zé", "rui", "eva", "ana"]) == ["eva", "rui", "ana"]
    assert "VI.5" in table.game.shooter_refusal(table.open_bets, "zé")
