"""Craps, Macau 2010 rule book (Despacho 53/2010, seed 001): one test per article."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.bets import Result
from firmware_host.rules.errors import BetRefused, RefusalReason, RulebookError

from .tables import craps_table, outcome_of, place, single, won

BOOK = "macau-2010"


def test_art_4_shooter_changes_on_seven_out_not_on_come_out_seven():
    table = craps_table(BOOK)
    table.throw((3, 4))  # come-out 7: a natural, same shooter
    assert table.state.shooter == 1
    table.throw((2, 2))  # point 4
    table.throw((3, 4))  # seven-out
    assert table.state == type(table.state)(point=0, shooter=2)


def test_art_4_1_shooter_who_stops_betting_is_replaced():
    table = craps_table(BOOK)
    assert table.game.new_shooter(table.state).shooter == 2


@pytest.mark.parametrize("faces,result", [((3, 4), Result.WIN), ((5, 6), Result.WIN), ((1, 1), Result.LOSE),
                                          ((1, 2), Result.LOSE), ((6, 6), Result.LOSE), ((2, 2), Result.STAY)])
def test_art_5_2_1_pass_line_come_out(faces, result):
    out = single(craps_table(BOOK), "pass", faces)
    assert out.result is result
    if result is Result.WIN:
        assert won(out) == 1  # Art. 6.1: 1:1


def test_art_5_2_1_pass_line_point_made_or_seven_out():
    table = craps_table(BOOK)
    bet = place(table, "pass")
    table.throw((4, 6))  # point 10
    assert outcome_of(table, bet, (5, 3)).result is Result.STAY
    assert outcome_of(table, bet, (6, 4)).result is Result.WIN
    table2 = craps_table(BOOK)
    bet2 = place(table2, "pass")
    table2.throw((4, 6))
    assert outcome_of(table2, bet2, (3, 4)).result is Result.LOSE


@pytest.mark.parametrize("faces,result", [((1, 1), Result.WIN), ((1, 2), Result.WIN), ((6, 6), Result.PUSH),
                                          ((3, 4), Result.LOSE), ((5, 6), Result.LOSE)])
def test_art_5_2_3_dont_pass_come_out_with_bar_12(faces, result):
    out = single(craps_table(BOOK), "dont_pass", faces)
    assert out.result is result
    if result is Result.PUSH:
        assert out.returned == out.bet.stake and out.paid == 0


def test_art_5_2_3_dont_pass_wins_on_seven_before_point():
    table = craps_table(BOOK)
    bet = place(table, "dont_pass")
    table.throw((3, 3))
    assert outcome_of(table, bet, (3, 4)).result is Result.WIN


def test_art_5_2_5_come_is_made_after_a_point_and_has_its_own_point():
    table = craps_table(BOOK)
    with pytest.raises(BetRefused) as refused:
        place(table, "come")
    assert refused.value.reason is RefusalReason.NOT_ALLOWED_NOW
    table.throw((2, 2))  # point 4
    come = place(table, "come")
    out = outcome_of(table, come, (3, 3))  # come point 6
    assert out.result is Result.STAY and out.point == 6
    assert outcome_of(table, come, (4, 2)).result is Result.WIN  # its own point, not the table's


def test_art_5_2_5_come_wins_on_eleven_loses_on_craps():
    table = craps_table(BOOK)
    table.throw((2, 2))
    assert single(table, "come", (5, 6)).result is Result.WIN
    assert single(table, "come", (1, 2)).result is Result.LOSE


def test_art_5_2_6_dont_come_bars_12():
    table = craps_table(BOOK)
    table.throw((2, 3))
    assert single(table, "dont_come", (6, 6)).result is Result.PUSH
    assert single(table, "dont_come", (1, 1)).result is Result.WIN


@pytest.mark.parametrize("point,faces,ratio", [(4, (2, 2), F(2)), (10, (5, 5), F(2)), (5, (2, 3), F(3, 2)),
                                               (9, (4, 5), F(3, 2)), (6, (3, 3), F(6, 5)), (8, (4, 4), F(6, 5))])
def test_art_6_2_pass_odds_pay_true_odds(point, faces, ratio):
    table = craps_table(BOOK, odds_multiple=6)
    place(table, "pass", 1000)
    table.throw(faces)
    odds = place(table, "odds", 1000, number=point)
    assert won(outcome_of(table, odds, faces)) == ratio


@pytest.mark.parametrize("point,faces,ratio", [(4, (1, 3), F(1, 2)), (5, (1, 4), F(2, 3)), (6, (1, 5), F(5, 6))])
def test_art_6_4_dont_odds_pay_the_inverse(point, faces, ratio):
    table = craps_table(BOOK, odds_multiple=6)
    place(table, "dont_pass", 1200)
    table.throw(faces)
    odds = place(table, "dont_odds", 1200, number=point)
    assert won(outcome_of(table, odds, (3, 4))) == ratio


@pytest.mark.parametrize("bet,faces,ratio", [
    ("any_craps", (1, 2), F(7)), ("any_craps", (6, 6), F(7)), ("any_seven", (3, 4), F(4)),
    ("eleven", (5, 6), F(15)), ("ace_deuce", (1, 2), F(15)), ("aces", (1, 1), F(30)), ("boxcars", (6, 6), F(30)),
    ("big", (4, 4), F(1)), ("big", (6, 6), F(1)), ("small", (1, 1), F(1)), ("small", (3, 3), F(1)),
])
def test_art_5_3_and_6_one_roll_bets_pay(bet, faces, ratio):
    assert won(single(craps_table(BOOK), bet, faces, stake=400)) == ratio


@pytest.mark.parametrize("bet,faces", [("any_craps", (3, 4)), ("any_seven", (3, 3)), ("eleven", (5, 5)),
                                       ("ace_deuce", (1, 1)), ("aces", (1, 2)), ("boxcars", (5, 6)),
                                       ("big", (3, 4)), ("small", (3, 4)), ("horn", (3, 4)), ("field", (4, 4))])
def test_art_5_3_one_roll_bets_lose_on_anything_else(bet, faces):
    assert single(craps_table(BOOK), bet, faces, stake=400).result is Result.LOSE


@pytest.mark.parametrize("faces,ratio", [((1, 1), F(27, 4)), ((6, 6), F(27, 4)), ((1, 2), F(3)), ((5, 6), F(3))])
def test_art_6_11_horn_pays_on_the_whole_stake(faces, ratio):
    assert won(single(craps_table(BOOK), "horn", faces, stake=400)) == ratio


@pytest.mark.parametrize("field_12", [F(2), F(3)])
def test_art_6_12_field_operator_chooses_12_pays(field_12):
    table = craps_table(BOOK, field_12_pays=field_12)
    assert won(single(table, "field", (6, 6))) == field_12
    assert won(single(table, "field", (1, 1))) == 2
    for faces in ((1, 2), (2, 2), (4, 5), (5, 5), (5, 6)):
        assert won(single(table, "field", faces)) == 1


def test_art_6_12_field_12_paying_anything_else_is_refused():
    with pytest.raises(RulebookError, match="field 12"):
        craps_table(BOOK, field_12_pays=F(4))


@pytest.mark.parametrize("number,ratio", [(4, F(7)), (10, F(7)), (6, F(9)), (8, F(9))])
def test_art_5_4_1_and_6_14_hardways(number, ratio):
    table = craps_table(BOOK)
    half = number // 2
    bet = place(table, f"hard_{number}")
    assert outcome_of(table, bet, (1, 2)).result is Result.STAY
    assert won(outcome_of(table, bet, (half, half))) == ratio
    easy = (half - 1, half + 1)
    assert single(table, f"hard_{number}", easy).result is Result.LOSE
    assert single(table, f"hard_{number}", (3, 4)).result is Result.LOSE


@pytest.mark.parametrize("number,faces,ratio", [(6, (1, 5), F(7, 6)), (8, (2, 6), F(7, 6)), (5, (1, 4), F(7, 5)),
                                                (9, (3, 6), F(7, 5)), (4, (1, 3), F(9, 5)), (10, (4, 6), F(9, 5))])
def test_art_5_4_2_to_4_and_6_15_big_numbers_are_place_bets(number, faces, ratio):
    table = craps_table(BOOK)
    bet = place(table, f"place_{number}", 3000)
    assert outcome_of(table, bet, (1, 1)).result is Result.STAY  # other totals: no decision
    assert won(outcome_of(table, bet, faces)) == ratio
    assert single(table, f"place_{number}", (3, 4), 3000).result is Result.LOSE


def test_art_5_5_one_and_multi_roll_bets_any_time():
    table = craps_table(BOOK)
    table.throw((3, 3))  # point on
    for bet in ("field", "any_seven", "hard_8", "place_6", "horn"):
        place(table, bet, 600)
    assert len(table.open_bets) == 5


def test_art_5_6_stakes_are_multiples_of_the_minimum():
    table = craps_table(BOOK)
    with pytest.raises(BetRefused) as refused:
        place(table, "field", 150)
    assert refused.value.reason is RefusalReason.NOT_MULTIPLE_OF_MINIMUM


def test_art_5_6_payout_not_a_whole_unit_follows_the_rounding_rule():
    from firmware_host.rules.money import RoundingMode, RoundingRule
    table = craps_table(BOOK, rounding=RoundingRule(unit=100, mode=RoundingMode.DOWN))
    out = single(table, "place_6", (3, 3), stake=500)  # 500 x 7/6 = 583.33...
    assert (out.paid, out.breakage) == (500, F(250, 3))


def test_art_7_2_edge_table_covers_every_bet_of_the_book():
    table = craps_table(BOOK)
    rows = table.game.edge_rows()
    assert {r.bet for r in rows} == set(table.game.table.bet_ids)


def test_art_2_1_only_a_player_who_has_bet_throws_the_dice():
    """Art. 2.1: "só um jogador que tenha apostado o valor mínimo pode lançar os dados"; Art. 2.3: from
    the stickman's left, or the next if he declines (no preference for the pass line here)."""
    table = craps_table(BOOK)
    place(table, "field", 600, owner="rui")
    place(table, "pass", 600, owner="eva")
    craps = table.game
    assert "Art. 2.1" in craps.shooter_refusal(table.open_bets, "ana")
    assert craps.shooter_refusal(table.open_bets, "rui") is None
    assert craps.shooters(table.open_bets, ["ana", "rui", "eva"]) == ["rui", "eva"]


def test_art_3_3_dice_thrown_without_rolling_make_a_void_throw():
    """Art. 3.3: "Os dados sejam atirados para a mesa, sem rolamento" — void, thrown again, like dice off
    the layout (3.2 (1)) or short of the middle (3.2 (2)). The rule book lists the reasons it voids a
    throw for; a void throw never reaches settlement (the bets stay as they are)."""
    table = craps_table(BOOK)
    assert table.game.void_reasons["not_rolled"] == "Macau 2010 Art. 3.3"
    assert set(table.game.void_reasons) == {"off_table", "not_past_middle", "not_rolled"}
    assert "not_rolled" not in craps_table("portugal-1995").game.void_reasons  # VI.7 voids two things only
