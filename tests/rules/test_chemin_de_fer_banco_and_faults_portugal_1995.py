"""Chemin de fer, Portugal 1995 chapter I (seed 004): a banco's false draws (I.70) and the faults whose
outcome the text fixes (I.75, I.104-106). One test per article, named after it; the audit's case first.

Cards are dealt player, banker, player, banker (I.62). The cards a fault brought out of the shoe are
given with the fault (`coup.fault(...)`), not dealt.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.cards import parse_card
from firmware_host.rules.chemin_de_fer import ChemindeFer
from firmware_host.rules.chemin_de_fer_faults import Fault, FaultRemedy
from firmware_host.rules.misdeal import DecisionRefused
from firmware_host.rules.stakes import Limits

BANK = Bet("bank", "banker", 10_000, "b")
BANCO = [BANK, Bet("p", "player", 10_000, "x")]


def game() -> ChemindeFer:
    return ChemindeFer("portugal-1995", Limits(1000, 10_000_000), bank_minimum=10_000, commission=F(0))


def coup_of(*events, banco: bool = False, **options):
    coup = game().new_coup(banco=BANCO if banco else None, **options)
    for event in events:
        if isinstance(event, tuple):
            coup.decide(*event)
        elif event in ("draw", "stand"):
            coup.decide(event)
        else:
            coup.deal(event)
    return coup


def cards(*texts):
    return [parse_card(t) for t in texts]


def winner(coup) -> str:
    return coup.result().winner


# --- I.70: a banco frees both sides' draws ------------------------------------------------------------------

def test_i_70_in_a_banco_the_player_may_draw_against_the_table():
    """The audit's case: in a banco the player on 6 asks for a card ("falsa tiragem") and draws a 2: 8
    against the banker's 5, who then stands — the player wins. The table forced "não" on 6, moved the
    2 to the banker (5 + 2 = 7 against 6) and paid the bank."""
    coup = coup_of("4S", "3H", "2D", "2C", banco=True)  # player 6, banker 5
    assert coup.due().decision == "player"
    coup.decide("draw")
    coup.deal("2S", to="player")
    assert coup.due().decision == "banker"  # a banco: the banker too chooses
    coup.decide("stand")
    assert (coup.result().player_points, coup.result().banker_points, winner(coup)) == (8, 5, "player")
    bank, punter = game().settle(coup, BANCO)
    assert (bank.result, punter.result, punter.paid) == (Result.LOSE, Result.WIN, 10_000)


def test_i_70_in_a_banco_the_banker_may_draw_against_the_table():
    coup = coup_of("4S", "3H", "3D", "3C", ("stand",), banco=True)  # player 7 stands, banker 6
    coup.decide("draw")  # the table says 6 stands when the player stood
    coup.deal("2H")
    assert (coup.result().banker_points, winner(coup)) == (8, "banker")


def test_i_70_except_the_banker_on_baccarat_who_draws_by_the_table():
    coup = coup_of("4S", "KH", "3D", "QC", ("stand",), banco=True)  # player 7 stands, banker baccarat
    assert coup.due().to == "banker"


def test_i_70_naturals_are_still_shown():
    assert coup_of("9S", "2H", "KD", "KC", banco=True).is_complete


def test_i_71_outside_a_banco_a_false_draw_is_reconstituted_by_the_table():
    coup = coup_of("4S", "3H", "2D", "2C")  # player 6 must stand (I.64 b): no decision
    assert coup.due().to == "banker"
    with pytest.raises(DecisionRefused):
        coup.decide("draw")


def test_i_45_a_banco_is_one_punter_against_the_whole_bank():
    with pytest.raises(DecisionRefused):
        game().new_coup(banco=[BANK, Bet("p", "player", 5000, "x"), Bet("q", "player", 5000, "y")])
    assert game().is_banco(BANCO) and not game().is_banco([BANK, Bet("p", "player", 5000, "x")])


# --- I.104: the banker's faults ----------------------------------------------------------------------------------

def test_i_104_b_the_banker_who_turns_the_players_cards_plays_by_the_table():
    coup = coup_of("2S", "3H")
    coup.fault(Fault.PLAYER_CARDS_TURNED)
    for card in ("2D", "KC", "9S"):  # player 4 draws a 9; banker 3 against a 9: optional, now forced
        coup.deal(card)
    assert coup.due().to == "banker" and coup.faults[0].remedy is FaultRemedy.BY_THE_TABLE


def test_i_104_c_two_cards_stuck_on_the_players_draw_void_the_coup():
    coup = coup_of("2S", "5H", "KD", "KC")  # player 2 draws
    coup.fault(Fault.STUCK_CARDS, cards=("4S", "2H"))
    assert coup.is_void and coup.burned == cards("4S", "2H")
    assert {o.result for o in game().settle(coup, [BANK, Bet("p", "player", 2000, "x")])} == {Result.RETURNED}


def test_i_104_c_unless_the_coup_can_be_reconstituted_with_certainty():
    coup = coup_of("2S", "5H", "KD", "KC")  # player 2, banker 5
    coup.fault(Fault.STUCK_CARDS, cards=("4S", "2H"), reconstitute=True)
    assert coup.player == cards("2S", "KD", "4S") and coup.held == cards("2H")
    assert coup.due().decision == "banker"  # banker 5 against a 4: optional (I.67 d)
    coup.decide("draw")  # the second card is his
    assert coup.banker == cards("5H", "KC", "2H") and coup.is_complete and winner(coup) == "banker"


def test_i_104_d_a_banker_with_three_cards_after_the_deal_counts_baccarat_and_draws():
    """The audit's case: player 7, banker 4-4 (8) and a third card he dealt himself. The extra card was
    corrected away and the bank won with 8; the text makes his hand baccarat with a card to come: 5."""
    coup = coup_of("7S", "4H", "KD", "4C")
    assert coup.is_complete  # player 7 stands, banker shows 8
    coup.fault(Fault.BANKER_EXTRA_CARD, cards=("KH",))
    assert coup.banker_points() == 0 and coup.due().to == "banker"
    coup.deal("5S")
    assert (coup.result().banker_points, winner(coup)) == (5, "player")


def test_i_104_d_the_banker_draws_even_when_the_player_showed():
    coup = coup_of("9S", "4H", "KD", "4C")  # player natural 9
    coup.fault(Fault.BANKER_EXTRA_CARD, cards=("2H",))
    coup.deal("9D")
    assert (coup.result().banker_points, winner(coup)) == (9, "tie")


def test_i_104_e_the_banker_drawing_two_cards_keeps_the_lowest_three_of_four():
    """The audit's case: player 3 draws a 4 (7); banker K-4 draws two cards, 5 and 3. The second card was
    burned and the banker won with 9; the text gives him the lowest three of four: 4-5-3 = 2, K burned."""
    coup = coup_of("3S", "KH", "KD", "4C", "4S")
    coup.fault(Fault.BANKER_TWO_CARDS, cards=("5D", "3S"))
    assert coup.banker == cards("4C", "5D", "3S") and coup.burned == cards("KH")
    assert (coup.result().banker_points, winner(coup)) == (2, "player")


def test_i_104_f_a_fifth_card_in_the_deal_goes_to_the_banker_when_the_player_stands():
    """The audit's case: player 7, banker natural 8, a fifth card out. It was burned and the banker showed
    8; the text gives it to the banker, who loses his right to show: 8 + 5 = 3 against 7."""
    coup = coup_of("7S", "4H", "KD", "4C")
    coup.fault(Fault.FIFTH_CARD, cards=("5S",))
    assert coup.banker == cards("4H", "4C", "5S") and coup.is_complete
    assert (coup.result().banker_points, winner(coup)) == (3, "player")


def test_i_104_f_the_fifth_card_is_the_players_when_he_asks():
    coup = coup_of("5S", "3H", "KD", "KC")  # player 5 (his choice), banker 3
    coup.fault(Fault.FIFTH_CARD, cards=("4S",))
    assert coup.due().decision == "player"
    coup.decide("draw")
    assert coup.player == cards("5S", "KD", "4S") and coup.due().to == "banker"  # 3 against a 4 draws


def test_i_104_f_the_banker_showing_first_the_fifth_card_is_burned():
    coup = coup_of("3S", "4H", "KD", "4C")  # player 3 asks; banker shows 8 (I.67 a)
    coup.fault(Fault.FIFTH_CARD, cards=("5S",))
    assert coup.burned == cards("5S") and winner(coup) == "banker"


def test_i_104_g_a_player_with_three_cards_gets_the_best_of_two_or_three():
    coup = coup_of("2S", "6H", "3D", "KC")  # player 5, banker 6
    coup.fault(Fault.PLAYER_EXTRA_CARD, cards=("6S",))  # 2-3-6: 3 + 6 = 9 is the best
    assert coup.player_points() == 9 and coup.due().decision == "banker"  # he keeps his right to draw
    coup.decide("draw")
    coup.deal("3H")  # banker 9: equal points
    assert winner(coup) == "tie"


def test_i_104_g_unless_the_banker_has_7_or_8():
    coup = coup_of("2S", "7H", "3D", "KC")
    coup.fault(Fault.PLAYER_EXTRA_CARD, cards=("KS",))
    assert coup.is_complete and (coup.player_points(), winner(coup)) == (5, "banker")


def test_i_104_h_a_player_with_four_cards_after_his_draw_gets_the_best_three():
    coup = coup_of("2S", "KH", "3D", "7C", ("draw",), "4S")  # player 5 draws a 4 (9); banker 7
    coup.fault(Fault.PLAYER_FOURTH_CARD, cards=("8H",))
    assert coup.player_points() == 9 and coup.is_complete and winner(coup) == "player"


def test_i_104_i_cards_dropped_in_the_deal_the_player_shows_9():
    coup = coup_of("2S", "5H", "KD")
    coup.fault(Fault.PLAYER_CARDS_DROPPED)
    coup.deal("4C")  # banker's regular cards: 9 — equal points
    assert coup.is_complete and (coup.result().player_points, winner(coup)) == (9, "tie")
    coup = coup_of("2S", "4H", "KD", "4C")
    coup.fault(Fault.PLAYER_CARDS_DROPPED)
    assert winner(coup) == "player"  # 9 against 8


def test_i_104_j_the_players_card_put_in_the_discard_counts_9():
    coup = coup_of("2S", "5H", "KD", "KC")  # player 2 draws; banker 5
    coup.fault(Fault.PLAYER_CARD_DISCARDED, cards=("3S",))
    assert coup.discarded == cards("3S") and coup.due().decision == "banker"
    coup.decide("draw")
    coup.deal("4H")
    assert (coup.result().player_points, coup.result().banker_points, winner(coup)) == (9, 9, "tie")
    coup = coup_of("2S", "7H", "KD", "KC")
    coup.fault(Fault.PLAYER_CARD_DISCARDED, cards=("3S",))
    assert coup.is_complete and winner(coup) == "player"  # the banker on 7 does not draw


# --- I.105: the player's faults ------------------------------------------------------------------------------------

def test_i_105_a_a_player_who_does_not_show_in_time_is_at_the_bankers_disposal():
    coup = coup_of("8S", "KH", "KD", "3C")  # player 8, banker 3
    coup.fault(Fault.NOT_SHOWN)
    assert coup.due().decision == "player"
    coup.decide("draw")  # he asks for a card
    assert coup.due().decision == "banker_for_player"
    coup.decide("stand", "banker_for_player")  # the banker refuses it
    assert coup.due().to == "banker"  # banker 3, the player had no card: draws
    coup.deal("KS")
    assert winner(coup) == "player"


def test_i_105_b_a_9_not_shown_loses_to_the_bankers_8():
    coup = coup_of("9S", "4H", "KD", "4C")
    coup.fault(Fault.NOT_SHOWN)
    coup.decide("stand")
    assert (coup.result().player_points, coup.result().banker_points, winner(coup)) == (9, 8, "banker")


def test_i_105_c_a_changed_announcement_lets_the_banker_decide():
    coup = coup_of("4S", "KH", "KD", "7C")  # player 4 said "carta" then "não"; banker 7
    coup.fault(Fault.ANNOUNCEMENT_CHANGED)
    coup.decide("stand", "banker_for_player")
    assert coup.is_complete and winner(coup) == "banker"


def test_i_105_d_on_5_the_first_announcement_counts():
    coup = coup_of("5S", "KH", "KD", "7C", ("stand",))
    with pytest.raises(DecisionRefused):
        coup.decide("draw")


def test_i_105_e_a_slow_player_loses_the_cards_to_the_next_stake_nothing_else_changes():
    coup = coup_of("5S", "KH", "KD", "7C")
    coup.fault(Fault.SLOW_TO_ANNOUNCE, holder="seat 4")
    assert coup.holder == "seat 4" and coup.due().decision == "player"


# --- I.106 and I.75: the dealer's faults, cards into the discard ------------------------------------------------

def test_i_106_b_a_card_called_by_mistake_is_the_bankers_on_0_to_5():
    coup = coup_of("6S", "2H", "KD", "KC")  # player 6 said "não"; banker 2
    coup.fault(Fault.DEALER_CALLED_CARD, cards=("5S", "9H"))
    assert coup.banker == cards("2H", "KC", "5S") and coup.burned == cards("9H") and winner(coup) == "banker"


def test_i_106_b_and_burned_on_6_or_7():
    coup = coup_of("6S", "KH", "KD", "7C")
    coup.fault(Fault.DEALER_CALLED_CARD, cards=("5S",))
    assert coup.burned == cards("5S") and winner(coup) == "banker"


def test_i_106_c_a_dealing_slip_that_cannot_be_reconstituted_voids_the_coup():
    coup = coup_of("6S", "KH")
    coup.fault(Fault.DEALER_SLIP)
    assert coup.is_void and "I.106 c" in coup.void_article


def test_i_75_the_side_that_throws_cards_in_the_discard_loses_the_dealer_voids():
    coup = coup_of("9S", "KH", "KD", "KC")  # player 9
    coup.fault(Fault.PLAYER_DISCARDED_CARDS)
    assert winner(coup) == "banker"
    coup = coup_of("9S", "KH", "KD")
    coup.fault(Fault.DEALER_DISCARDED_CARDS)
    assert coup.is_void


def test_faults_are_refused_out_of_their_moment_and_recorded_with_their_article():
    coup = coup_of("2S", "5H")
    with pytest.raises(DecisionRefused, match="I.104 e"):
        coup.fault(Fault.BANKER_TWO_CARDS, cards=("5D", "3S"))
    with pytest.raises(DecisionRefused, match="unknown fault"):
        coup.fault("banker_sneezed")
    with pytest.raises(DecisionRefused, match="2 card"):
        coup.fault(Fault.STUCK_CARDS, cards=("5D",))
    coup.fault(Fault.PLAYER_CARDS_TURNED)
    assert coup.faults[0].view()["article"] == "Portugal 1995 I.104 b"
