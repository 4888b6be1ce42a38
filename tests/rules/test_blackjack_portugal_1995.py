"""Blackjack, Portugal 1995 chapter V (seed 004): one test per article, named after it."""

from __future__ import annotations


import pytest

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.blackjack import Blackjack
from firmware_host.rules.blackjack_hand import Hand, dealer_stands, is_bonus
from firmware_host.rules.cards import parse_card
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.errors import BetRefused, RefusalReason, RulesError
from firmware_host.rules.layout import Layout
from firmware_host.rules.misdeal import CardNotDue, DecisionNeeded, CoupNotFinished, DecisionRefused, Remedy, TooManyCards, WrongOrder
from firmware_host.rules.shoe import Shoe, blackjack_shoe

MIN = 1000


def game(**options) -> Blackjack:
    return Blackjack("portugal-1995", Limits(MIN, 1_000_000), **options)


def cards(*texts: str):
    return [parse_card(t) for t in texts]


def play(bets, *events, **options):
    """Deal `events` (cards; tuples are decisions: (decision, kwargs)) and return (game, coup)."""
    g = game(**options)
    coup = g.new_coup(None, bets)
    for event in events:
        if isinstance(event, tuple):
            coup.decide(event[0], **(event[1] if len(event) > 1 else {}))
        else:
            coup.deal(event)
    return g, coup


def box(n: int, stake: int = 2000, owner: str | None = None, ticket: str | None = None) -> Bet:
    return Bet(ticket or f"b{n}", "box", stake, owner or f"p{n}", n)


def by_ticket(outcomes):
    return {o.bet.ticket: o for o in outcomes}


# --- V.3, V.9-11: the shoe ---------------------------------------------------------------------------

def test_v_3_four_or_six_decks():
    assert blackjack_shoe(4).decks == 4 and blackjack_shoe(6).decks == 6
    with pytest.raises(RulesError):
        blackjack_shoe(8)


def test_v_9_cut_card_near_the_50th_from_the_end_or_mid_shoe_with_one_player():
    assert blackjack_shoe(6, players=3).cut_from_end == 50
    assert blackjack_shoe(6, players=1).cut_from_end == 156


def test_v_10_one_card_burned_before_the_deal():
    coup = game().new_coup(Shoe(blackjack_shoe(6)), [box(1)])
    assert coup.due().to == "burn"
    coup.deal("5S")
    assert coup.due().to == "box 1"


def test_v_11_warning_card_at_the_start_of_a_coup_that_coup_is_still_played():
    shoe = Shoe(blackjack_shoe(6), burns=False)
    coup = game().new_coup(shoe, [box(1)])
    coup.cut_card()
    for c in ["10S", "7H", "9D", "QC"]:  # 19 against 17
        coup.deal(c)
    coup.decide("stand")
    assert coup.is_complete and shoe.finished


# --- V.6, V.19: values and the dealer ------------------------------------------------------------------

def test_v_6_ace_counts_1_or_11_faces_10():
    assert Hand(cards("A", "6") if False else cards("AS", "6H")).total == 17
    assert Hand(cards("AS", "6H", "9D")).total == 16
    assert Hand(cards("KS", "QH")).total == 20


def test_v_6_v_19_dealer_stands_on_soft_17_draws_to_16():
    assert dealer_stands(cards("AS", "6H"))
    assert not dealer_stands(cards("10S", "6H"))
    assert dealer_stands(cards("10S", "7H"))
    _, coup = play([box(1)], "10S", "6C", "7H", "QC", ("stand",))  # dealer 16
    assert coup.due().to == "dealer"
    coup.deal("AS")  # 17 stands
    assert coup.is_complete


def test_v_19_a_card_the_dealer_draws_at_17_is_discarded():
    _, coup = play([box(1)], "10S", "7C", "9H", "QC", ("stand",))
    with pytest.raises(TooManyCards) as err:
        coup.deal("5S", to="dealer")
    assert err.value.remedy is Remedy.BURN_CARD


# --- V.17: the deal --------------------------------------------------------------------------------------

def test_v_17_one_card_to_each_box_in_seat_order_then_the_dealer_twice_the_hole_card_last():
    coup = game().new_coup(None, [box(5), box(2)])
    order = []
    for c in ["2S", "3S", "4S", "5S", "6S", "7S"]:
        order.append(coup.due().to)
        coup.deal(c)
    assert order == ["box 2", "box 5", "dealer", "box 2", "box 5", "dealer"]
    assert [str(c) for c in coup.dealer] == ["4S", "7S"]


def test_v_17_a_card_out_of_seat_order_is_corrected_at_once():
    coup = game().new_coup(None, [box(1), box(2)])
    with pytest.raises(WrongOrder) as err:
        coup.deal("9S", to="box 2")
    assert err.value.remedy is Remedy.CORRECT_AT_ONCE and err.value.due.to == "box 1"


# --- V.18: hitting and standing ------------------------------------------------------------------------

def test_v_18_a_player_stands_only_above_11():
    _, coup = play([box(1)], "5S", "10C", "6H", "QC")  # 11
    with pytest.raises(DecisionRefused) as err:
        coup.decide("stand")
    assert "V.18" in str(err.value)
    coup.decide("hit")
    coup.deal("2D")
    coup.decide("stand")  # 13


def test_v_18_no_card_after_21_and_the_hand_is_done():
    _, coup = play([box(1), box(2)], "10S", "5S", "10C", "6H", "QD", "QC")
    coup.decide("hit")
    coup.deal("5D")  # box 1 hand 6+... 10+6+5 = 21
    assert coup.due().decision == "box 2"


def test_v_18_a_card_drawn_by_mistake_face_down_goes_to_the_next_box_that_asks():
    """V.18: "a carta em causa, se ainda não estiver vista ... será atribuída ao mais próximo jogador que
    peça cartas". The audit's case: box 1 (16) stands, the dealer draws a card anyway; box 2 (11) then
    asks. The card was discarded and box 2 was dealt the next one, so every hand after drifted from
    the table; now box 2 gets the card drawn by mistake and wins with 20 against 17."""
    g, coup = play([box(1), box(2)], "10S", "5S", "10C", "6H", "6D", "7C")
    with pytest.raises(DecisionNeeded) as err:
        coup.deal("9S")  # box 1 has not asked
    assert err.value.remedy is Remedy.HOLD_FOR_NEXT and "V.18" in err.value.article
    coup.hold("9S")
    assert coup.held == cards("9S") and coup.due().decision == "box 1"
    coup.decide("stand")
    coup.decide("hit")  # box 2 asks: the held card is his at once
    assert coup.boxes[1].hands[0].total == 20 and coup.held == [] and coup.due().decision == "box 2"
    coup.decide("stand")
    assert coup.is_complete  # dealer 17 stands
    out = by_ticket(g.settle(coup, [box(1), box(2)]))
    assert (out["b1"].result, out["b2"].result, out["b2"].paid) == (Result.LOSE, Result.WIN, 2000)


def test_v_18_if_no_box_asks_the_card_goes_to_the_dealer():
    _, coup = play([box(1)], "10S", "10C", "7H", "6D")  # box 17, dealer 16
    coup.hold("5S")  # drawn before box 1 answered: he stands
    coup.decide("stand")
    assert coup.dealer == cards("10C", "6D", "5S") and coup.is_complete


def test_v_18_a_held_card_the_dealer_cannot_take_is_discarded_v_19():
    _, coup = play([box(1)], "10S", "10C", "7H", "7D")  # dealer 17: takes no card (V.19)
    coup.hold("5S")
    coup.decide("stand")
    assert coup.is_complete and coup.discarded == cards("5S") and len(coup.dealer) == 2


def test_v_18_a_card_drawn_by_mistake_and_turned_is_discarded():
    _, coup = play([box(1), box(2)], "10S", "5S", "10C", "6H", "QD", "QC")
    with pytest.raises(DecisionNeeded) as err:
        coup.deal("3S", face_up=True)
    assert err.value.remedy is Remedy.BURN_CARD
    coup.discard("3S")
    coup.decide("hit")
    with pytest.raises(CardNotDue) as err:
        coup.deal("4S", to="box 2")  # box 1 asked: unseen, the card is his (the next box that asks)
    assert err.value.remedy is Remedy.HOLD_FOR_NEXT and "V.18" in err.value.article
    coup.hold("4S")
    assert coup.boxes[0].hands[0].total == 20


def test_v_18_decisions_come_in_seat_order():
    _, coup = play([box(1), box(2)], "10S", "5S", "10C", "6H", "QD", "QC")
    with pytest.raises(DecisionRefused):
        coup.decide("stand", box=2)


# --- V.20-25: results ---------------------------------------------------------------------------------------

def test_v_20_blackjack_beats_21_and_21_after_a_split_is_not_blackjack():
    g, coup = play([box(1)], "AS", "10C", "KH", "5C")
    # box 1's blackjack waits for the hole card (up card 10); the dealer draws nothing: only a blackjack stands
    assert coup.is_complete
    out = g.settle(coup, [box(1)])[0]
    assert (out.result, out.paid) == (Result.WIN, 3000)
    split = Hand(cards("AS", "KD"), from_split=True)
    assert not split.is_blackjack and split.total == 21


def test_v_21_blackjack_pays_3_to_2_at_once_when_the_up_card_cannot_make_one():
    g, coup = play([box(1), box(2)], "AS", "10S", "9C", "KH", "7H", "QC")  # up card 9
    early = by_ticket(g.settle_at_once(coup))
    assert (early["b1"].result, early["b1"].paid) == (Result.WIN, 3000)


def test_v_21_blackjack_pushes_with_the_dealers():
    g, coup = play([box(1)], "AS", "AC", "KH", "KC", ("close_insurance",))
    assert coup.is_complete and coup.dealer_blackjack
    assert g.settle(coup, [box(1)])[0].result is Result.PUSH


def test_v_22_bust_loses_at_once():
    g, coup = play([box(1)], "10S", "9C", "6H", "8C", ("hit",), "KD")
    assert by_ticket(g.settle_at_once(coup))["b1"].result is Result.LOSE


def test_v_23_24_nearer_21_wins_even_money_equal_is_a_push():
    g, coup = play([box(1), box(2)], "10S", "10D", "9C", "9H", "8H", "QC", ("stand",), ("stand",))  # 19, 18 v 19
    out = by_ticket(g.settle(coup, [box(1), box(2)]))
    assert out["b1"].result is Result.PUSH and out["b2"].result is Result.LOSE
    g, coup = play([box(1)], "10S", "9C", "9H", "7C", ("stand",), "KS")  # dealer 26
    assert g.settle(coup, [box(1)])[0].paid == 2000


# --- V.26-28: splits -----------------------------------------------------------------------------------------

def test_v_26_split_two_cards_of_equal_value_each_hand_plays_on():
    g, coup = play([box(1)], "KS", "6C", "QH", "10C", ("split",), "5D", ("hit",), "6D", "9S", ("stand",))
    assert [h.total for h in coup.boxes[0].hands] == [21, 19]
    coup.deal("5H")  # dealer 16 draws: 21
    out = by_ticket(g.settle(coup, [box(1)]))
    assert out["b1"].result is Result.PUSH and out["b1/hand2"].result is Result.LOSE


def test_v_26_unequal_cards_do_not_split():
    _, coup = play([box(1)], "KS", "6C", "9H", "10C")
    with pytest.raises(DecisionRefused):
        coup.decide("split")


def test_v_26_split_aces_take_one_card_each():
    _, coup = play([box(1)], "AS", "6C", "AH", "10C", ("split",), "9D")
    with pytest.raises(DecisionRefused):
        coup.decide("hit")  # one card only: the next thing due is hand 2's card
    assert coup.due().to == "box 1"
    coup.deal("KD")  # 21 after a split: not a blackjack
    assert coup.due().to == "dealer"


def test_v_27_resplit_when_another_equal_card_comes():
    _, coup = play([box(1)], "8S", "6C", "8H", "10C", ("split",), "8D", ("split",))
    assert len(coup.boxes[0].hands) == 3


def test_v_27_aces_split_again_when_an_ace_comes():
    """V.27 lets a split pair be split again "se vier a obter uma ou mais cartas adicionais iguais" and
    excludes no pair; V.26 limits split aces to one card each, which splitting again does not break:
    every hand still takes one card. The docs said allowed and the code refused; both say allowed
    (game.resplit_aces, default true; false for a table that will not)."""
    _, coup = play([box(1)], "AS", "6C", "AH", "10C", ("split",), "AD")
    hand = coup.boxes[0].hands[0]
    assert coup.due().decision == "box 1"
    assert {"stand", "split"} <= set(coup.allowed(coup.boxes[0], 0)) and "hit" not in coup.allowed(coup.boxes[0], 0)
    coup.decide("split")
    for card in ("9D", "KD", "8S"):
        coup.deal(card)
    assert [h.total for h in coup.boxes[0].hands] == [20, 21, 19] and coup.due().to == "dealer"
    assert hand.split_aces and not coup.boxes[0].hands[1].is_blackjack
    _, coup = play([box(1)], "AS", "6C", "AH", "10C", ("split",), "AD", resplit_aces=False)
    assert coup.due().to == "box 1"  # hand 1 is done with A-A; hand 2's card is next


def test_v_28_side_bettor_matches_the_split_or_follows_the_first_hand():
    bets = [box(1, 2000, "holder", "h"), box(1, 1000, "side1", "s1"), box(1, 1000, "side2", "s2")]
    g, coup = play(bets, "9S", "6C", "9H", "10C", ("split",), ("side_split", {"ticket": "s1", "match": True}),
                   ("side_split", {"ticket": "s2", "match": False}), "10D", ("stand",), "2S", ("hit",), "5S", ("stand",))
    # hand 1: 19 (wins against dealer 16+...); hand 2: 16
    coup.deal("6D")  # dealer 22: bust
    out = by_ticket(g.settle(coup, bets))
    assert set(out) == {"h", "h/hand2", "s1", "s1/hand2", "s2"}
    assert all(o.result is Result.WIN for o in out.values())
    with pytest.raises(DecisionRefused):
        coup.decide("side_split", ticket="s2", match=True)


# --- V.29-32: doubles ------------------------------------------------------------------------------------------

def test_v_29_double_on_9_10_11_with_one_card():
    g, coup = play([box(1)], "6S", "10C", "4H", "6C", ("double",), "KD")
    assert coup.boxes[0].hands[0].finished
    coup.deal("KS")  # dealer 26
    out = by_ticket(g.settle(coup, [box(1)]))
    assert out["b1"].paid == 2000 and out["b1/hand1/double"].paid == 2000


def test_v_29_no_double_outside_9_to_11():
    _, coup = play([box(1)], "6S", "10C", "6H", "7C")
    with pytest.raises(DecisionRefused) as err:
        coup.decide("double")
    assert "V.29" in str(err.value)


def test_v_30_side_bettor_may_double_when_the_holder_doubles():
    bets = [box(1, 2000, "holder", "h"), box(1, 1000, "side", "s")]
    g, coup = play(bets, "5S", "10C", "5H", "7C", ("double",), ("side_double", {"ticket": "s"}), "KD")
    out = by_ticket(g.settle(coup, bets))  # 20 v 17
    assert set(out) == {"h", "h/hand1/double", "s", "s/hand1/double"}
    assert out["s/hand1/double"].bet.stake == 1000


def test_v_31_double_after_a_split():
    _, coup = play([box(1)], "5S", "10C", "5H", "7C", ("split",), "4D", ("double",), "KD")
    assert coup.boxes[0].hands[0].doubled and coup.boxes[0].hands[0].total == 19


def test_v_32_only_the_first_two_cards_ace_stays_one_an_ace_drawn_on_the_double_counts_1_or_11():
    """V.32: "Sempre que for um ás uma das duas primeiras cartas ... é obrigado a manter-lhe esse valor".
    The audit's case: A-8 doubled (9, the ace as 1) draws an ace: 1 + 8 + 11 = 20, which beats the
    dealer's 19 — the box wins 1,000 and its double 1,000; the code counted both aces 1 (10) and took
    the 2,000."""
    g, coup = play([box(1, 1000)], "AS", "10C", "8H", "9C", ("double",), "AD")
    hand = coup.boxes[0].hands[0]
    assert hand.ace_as_one and hand.total == 20 and coup.is_complete
    out = by_ticket(g.settle(coup, [box(1, 1000)]))
    assert (out["b1"].paid, out["b1/hand1/double"].paid) == (1000, 1000)


def test_v_32_an_ace_counted_one_for_a_double_stays_one():
    _, coup = play([box(1)], "AS", "10C", "8H", "7C", ("double",), "2D")  # A-8 doubled as 9; +2 = 11, not 21
    hand = coup.boxes[0].hands[0]
    assert hand.ace_as_one and hand.total == 11


# --- V.33-34: insurance and even money --------------------------------------------------------------------

def test_v_33_insurance_up_to_half_pays_2_to_1():
    bets = [box(1, 2000)]
    g, coup = play(bets, "10S", "AC", "9H", "KC")
    assert coup.due().decision == "insurance"
    with pytest.raises(DecisionRefused):
        coup.decide("insure", ticket="b1", amount=1500)
    coup.decide("insure", ticket="b1", amount=1000)
    coup.decide("close_insurance")
    coup.decide("stand")
    out = by_ticket(g.settle(coup, bets))
    assert (out["b1/insurance"].result, out["b1/insurance"].paid) == (Result.WIN, 2000)
    assert out["b1"].result is Result.LOSE


def test_v_33_insurance_only_against_an_ace():
    _, coup = play([box(1)], "10S", "9C", "9H", "KC")
    with pytest.raises(DecisionRefused):
        coup.decide("insure", ticket="b1", amount=1000)


def test_v_34_even_money_for_a_blackjack_against_an_ace():
    g, coup = play([box(1)], "AS", "AC", "KH", "KC", ("even_money", {"box": 1}))
    early = by_ticket(g.settle_at_once(coup))
    assert (early["b1"].result, early["b1"].paid) == (Result.WIN, 2000)


# --- V.35: the bonus ---------------------------------------------------------------------------------------------

def test_v_35_six_seven_eight_suited_or_three_sevens_pay_three_times_at_once():
    assert is_bonus(cards("6H", "7H", "8H")) and is_bonus(cards("7S", "7H", "7D"))
    assert not is_bonus(cards("6H", "7H", "8S"))
    g, coup = play([box(1)], "6H", "10C", "7H", "6C", ("hit",), "8H")
    early = by_ticket(g.settle_at_once(coup))
    assert (early["b1/hand1/bonus"].paid, early["b1/hand1/bonus"].bet.stake) == (6000, 0)
    coup.deal("5S")  # dealer 21: the hand pushes, the bonus stays paid
    out = by_ticket(g.settle(coup, [box(1)]))
    assert out["b1"].result is Result.PUSH and out["b1/hand1/bonus"].paid == 6000


# --- V.36: surrender -------------------------------------------------------------------------------------------------

def test_v_36_surrender_loses_half_but_not_against_an_ace():
    g, coup = play([box(1)], "10S", "9C", "6H", "KC", ("surrender",))
    out = g.settle(coup, [box(1)])[0]
    assert (out.result, out.kept, out.returned) == (Result.LOSE, 1000, 1000)
    _, coup = play([box(1)], "10S", "AC", "6H", "KC", ("close_insurance",))
    with pytest.raises(DecisionRefused) as err:
        coup.decide("surrender")
    assert "V.36" in str(err.value)


def test_v_36_split_hands_surrender_together_or_not_at_all():
    g, coup = play([box(1)], "8S", "9C", "8H", "KC", ("split",), "3D", ("surrender",))
    out = by_ticket(g.settle(coup, [box(1)]))
    assert {t: (o.kept, o.returned) for t, o in out.items()} == {"b1": (1000, 1000), "b1/hand2": (1000, 1000)}


def test_v_36_no_surrender_after_another_play():
    _, coup = play([box(1)], "2S", "9C", "3H", "KC", ("hit",), "2D")
    with pytest.raises(DecisionRefused):
        coup.decide("surrender")


# --- V.14-16, V.37: bets and limits ------------------------------------------------------------------------------------

def test_v_37_max_thirty_times_min_per_box_including_side_bets():
    layout = Layout(game())
    layout.place(box(1, 20_000, "holder", "h"))
    layout.place(box(1, 10_000, "side", "s"))
    with pytest.raises(BetRefused) as err:
        layout.place(box(1, 1000, "late", "l"))
    assert err.value.reason is RefusalReason.OVER_MAXIMUM


def test_v_14_stakes_are_multiples_of_the_minimum_on_a_box_of_the_table():
    layout = Layout(game())
    for bet, reason in [(box(1, 1500), RefusalReason.NOT_MULTIPLE_OF_MINIMUM), (box(8), RefusalReason.MALFORMED),
                        (Bet("x", "player", 1000, "p"), RefusalReason.UNKNOWN_BET)]:
        with pytest.raises(BetRefused) as err:
            layout.place(bet)
        assert err.value.reason is reason


def test_v_16_the_largest_stake_decides_a_box():
    _, coup = play([box(1, 1000, "a", "x"), box(1, 3000, "b", "y")], "2S", "3S", "4S", "5S")
    assert coup.boxes[0].holder == "b"


def test_dealer_blackjack_takes_doubles_unless_the_table_says_original():
    events = ("5S", "AC", "6H", "KC", ("close_insurance",), ("double",), "9D")
    g, coup = play([box(1)], *events)
    out = by_ticket(g.settle(coup, [box(1)]))
    assert out["b1/hand1/double"].result is Result.LOSE
    g, coup = play([box(1)], *events, dealer_blackjack_takes="original")
    out = by_ticket(g.settle(coup, [box(1)]))
    assert out["b1"].result is Result.LOSE and out["b1/hand1/double"].result is Result.RETURNED


def test_a_void_coup_returns_every_stake_insurance_included():
    g, coup = play([box(1)], "10S", "AC", "9H", "KC", ("insure", {"ticket": "b1", "amount": 1000}))
    coup.void("cards dropped, order lost", "dealer console")
    out = g.settle(coup, [box(1)])
    assert all(o.result is Result.RETURNED for o in out) and sum(o.returned for o in out) == 3000
    with pytest.raises(CoupNotFinished):
        g.settle(game().new_coup(None, [box(1)]), [box(1)])
