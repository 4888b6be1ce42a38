"""Chemin de fer, Portugal 1995 chapter I (seed 004): one test per article, named after it.

Published cross-check: ../shared/oracles/PUBLISHED.md, "Chemin de fer": the banker's table of
I.67 matches Scarne's cell for cell; the only optional banker cells are 3 against a 9 and 5
against a 4; the player's 5 is optional.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.baccarat_tableau import Cell, banker_cell, player_cell
from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.cards import Card
from firmware_host.rules.chemin_de_fer import ChemindeFer, DecisionRefused
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.errors import BetRefused, RefusalReason
from firmware_host.rules.layout import Layout
from firmware_host.rules.misdeal import DecisionNeeded, Remedy, WrongOrder
from firmware_host.rules.shoe import Shoe, chemin_de_fer_shoe


def game(**options) -> ChemindeFer:
    return ChemindeFer("portugal-1995", Limits(1000, 10_000_000), bank_minimum=10_000, **options)


def coup_of(*events, **options):
    coup = game().new_coup(**options)
    for event in events:
        if event in ("draw", "stand"):
            coup.decide(event)
        else:
            coup.deal(event)
    return coup


def test_i_2_i_76_equal_points_void_the_coup_and_return_the_stakes():
    coup = coup_of("7S", "7H", "KD", "KC")  # 7 - 7, both stand
    assert coup.is_complete and coup.result().winner == "tie"
    bets = [Bet("bank", "banker", 10_000, "b"), Bet("p", "player", 4000, "x")]
    assert [o.result for o in game().settle(coup, bets)] == [Result.RETURNED, Result.RETURNED]


def test_i_4_i_13_six_decks_warning_card_seven_from_the_end_burn_by_the_first_card():
    rules = chemin_de_fer_shoe()
    assert (rules.decks, rules.cut_from_end) == (6, 7)
    shoe = Shoe(rules)
    coup = game().new_coup(shoe)
    assert coup.due().to == "burn"
    coup.deal("4S")  # a 4: three more cards are burned (four in all)
    for _ in range(3):
        assert coup.due().to == "burn"
        coup.deal("2H")
    assert coup.due().to == "player" and len(coup.burned) == 4


def test_i_13_a_face_card_first_burns_only_itself():
    shoe = Shoe(chemin_de_fer_shoe())
    coup = game().new_coup(shoe)
    coup.deal("KS")
    assert coup.due().to == "player"


def test_i_14_warning_card_the_coup_in_progress_is_the_last():
    shoe = Shoe(chemin_de_fer_shoe(), burns=False)
    coup = game().new_coup(shoe)
    coup.cut_card()
    for card in ["9S", "KH", "KD", "KC"]:
        coup.deal(card)
    assert shoe.finished


def test_i_106_d_the_last_coup_needs_six_cards_behind_the_warning_card():
    shoe = Shoe(chemin_de_fer_shoe(), burns=False)
    shoe.cards_out = 6 * 52 - 5  # five cards left when the warning card comes out
    coup = game().new_coup(shoe)
    coup.cut_card()
    assert coup.is_void and "I.106" in coup.void_article
    assert game().settle(coup, [Bet("p", "player", 1000, "x")])[0].result is Result.RETURNED


def test_i_62_two_cards_each_alternately_player_first():
    coup = game().new_coup()
    assert [coup.due().to, coup.deal("2S").to, coup.deal("3S").to, coup.deal("4S").to] == \
        ["player", "banker", "player", "banker"]
    with pytest.raises(WrongOrder) as err:
        coup.deal("5S", to="player")
    assert err.value.remedy is Remedy.CORRECT_AT_ONCE


@pytest.mark.parametrize("p,cell", [(0, Cell.DRAW), (4, Cell.DRAW), (5, Cell.OPTIONAL), (6, Cell.STAND), (7, Cell.STAND)])
def test_i_64_player_draws_under_5_stands_on_6_7_chooses_on_5(p, cell):
    assert player_cell(p) is cell


def test_i_64_a_player_natural_ends_the_coup():
    coup = coup_of("9S", "2H", "KD", "KC")  # player 9 shows; banker 2 does not draw (I.67 c)
    assert coup.is_complete and coup.result().winner == "player"


def test_i_64_d_the_player_on_5_is_asked_and_the_first_announcement_counts():
    coup = coup_of("5S", "3H", "KD", "KC")  # player 5, banker 3
    assert coup.due().decision == "player"
    with pytest.raises(DecisionNeeded):
        coup.deal("4S")  # no card before the player has announced
    coup.decide("stand")
    with pytest.raises(DecisionRefused):
        coup.decide("draw")  # I.105 d: the first announcement counts
    assert coup.due().to == "banker"  # banker 3, the player stood: draws (last column)


def test_i_67_a_banker_natural_stops_the_player_third_card():
    coup = coup_of("2S", "8H", "KD", "KC")  # player 2, banker 8
    assert coup.is_complete and coup.result().winner == "banker"


SCARNE = {  # I.67 d, as printed, and Scarne's table (PUBLISHED.md): the player's third card 0-9, then "stood"
    3: "TTTTTTTTFOT", 4: "FFTTTTTTFFT", 5: "FFFFOTTTFFT", 6: "FFFFFFTTFFF",
}


@pytest.mark.parametrize("b", [3, 4, 5, 6])
def test_i_67_d_banker_table_cell_by_cell(b):
    cells = [banker_cell(b, third).value for third in range(10)] + [banker_cell(b, None).value]
    assert "".join(cells) == SCARNE[b]
    optional = [(bb, t) for bb in range(10) for t in range(10) if banker_cell(bb, t) is Cell.OPTIONAL]
    assert optional == [(3, 9), (5, 4)]


def test_i_67_b_c_banker_stands_on_7_draws_on_0_to_2():
    assert banker_cell(7, 3) is Cell.STAND and banker_cell(0, 9) is Cell.DRAW and banker_cell(2, None) is Cell.DRAW


def test_i_67_d_optional_banker_cell_is_a_console_decision():
    coup = coup_of("2S", "3H", "2D", "KC", "9S")  # player 4 draws a 9; banker 3: optional
    assert coup.due().decision == "banker"
    with pytest.raises(DecisionRefused):
        coup.decide("maybe")
    coup.decide("draw")
    coup.deal("5D")
    assert coup.result().banker_points == 8


def test_i_102_banker_by_the_table_draws_on_the_optional_cells():
    coup = coup_of("2S", "3H", "2D", "KC", "9S", banker_by_table=True)
    assert coup.due().to == "banker"


def test_i_67_forced_cells_need_no_decision_and_refuse_one():
    coup = coup_of("2S", "6H", "2D", "KC", "3S")  # player drew a 3; banker 6 stands: complete
    assert coup.is_complete
    with pytest.raises(DecisionRefused):
        coup.decide("draw")


def test_i_106_a_a_card_out_of_the_shoe_face_up_is_burned():
    coup = game().new_coup()
    coup.deal("9S", face_up=True)
    assert coup.burned == [Card("9", "S")] and coup.due().to == "player"


def test_i_35_i_45_bank_minimum_and_punters_up_to_the_bank():
    layout = Layout(game())
    with pytest.raises(BetRefused) as err:
        layout.place(Bet("p0", "player", 1000, "x"))
    assert err.value.reason is RefusalReason.NOT_ALLOWED_NOW
    with pytest.raises(BetRefused) as err:
        layout.place(Bet("bank0", "banker", 5000, "b"))
    assert err.value.reason is RefusalReason.UNDER_MINIMUM
    layout.place(Bet("bank", "banker", 10_000, "b"))
    layout.place(Bet("p1", "player", 6000, "x"))
    with pytest.raises(BetRefused) as err:
        layout.place(Bet("p2", "player", 5000, "y"))
    assert err.value.reason is RefusalReason.OVER_TABLE_LIMIT
    layout.place(Bet("p3", "player", 4000, "y"))
    with pytest.raises(BetRefused):
        layout.withdraw("bank")


def test_i_47_bank_wins_the_punters_stakes_less_the_commission():
    coup = coup_of("KS", "9H", "KD", "KC")  # banker natural 9
    bets = [Bet("bank", "banker", 10_000, "b"), Bet("p1", "player", 4000, "x"), Bet("p2", "player", 2000, "y")]
    bank, p1, p2 = game().settle(coup, bets)
    assert (bank.result, bank.paid, bank.returned) == (Result.WIN, 5700, 10_000)  # 6000 less 5%
    assert (p1.kept, p2.kept) == (4000, 2000)


def test_i_45_bank_loses_only_what_the_punters_faded():
    coup = coup_of("9S", "KH", "KD", "KC")
    bank, p1 = game(commission=F(0)).settle(coup, [Bet("bank", "banker", 10_000, "b"), Bet("p1", "player", 4000, "x")])
    assert (bank.result, bank.kept, bank.returned) == (Result.LOSE, 4000, 6000)
    assert (p1.paid, p1.returned) == (4000, 4000)


def test_i_36_punters_stake_the_minimum_or_multiples_i_35_the_bank_only_a_minimum():
    """I.36: "As apostas dos pontos devem ser de valor igual ou múltiplo do mínimo"; I.35 asks the bank
    only its minimum: a bank of 10,500 is accepted, a punter's 1,500 at a 1,000 minimum is not."""
    layout = Layout(game())
    layout.place(Bet("bank", "banker", 10_500, "b"))
    with pytest.raises(BetRefused) as err:
        layout.place(Bet("p1", "player", 1500, "x"))
    assert err.value.reason is RefusalReason.NOT_MULTIPLE_OF_MINIMUM and "I.36" in err.value.message
    layout.place(Bet("p2", "player", 2000, "x"))
