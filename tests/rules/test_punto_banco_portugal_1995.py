"""Punto banco, Portugal 1995 chapter II (seed 004): one test per article, named after it.

Published figures: ../shared/oracles/PUBLISHED.md, "Punto banco, 8 decks, cards dealt without
replacement" (counts of ordered card sequences and the edges).
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.baccarat_edge import enumerate_coups, enumerate_decks
from firmware_host.rules.baccarat_tableau import banker_draws, player_draws, points
from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.cards import Card, baccarat_value, baccarat_value_counts, parse_card
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.errors import BetRefused, RefusalReason, RulebookError
from firmware_host.rules.layout import Layout
from firmware_host.rules.misdeal import (BeyondComposition, CardNotDue, CoupNotFinished, CoupVoid, Remedy,
                                         TooManyCards, UnknownCard, WrongOrder)
from firmware_host.rules.money import RoundingMode, RoundingRule
from firmware_host.rules.punto_banco import PuntoBanco
from firmware_host.rules.shoe import Shoe, ShoeFinished, punto_banco_shoe

LIMITS = Limits(1000, 10_000_000)


def book(**options) -> PuntoBanco:
    return PuntoBanco("portugal-1995", options.pop("limits", LIMITS), **options)


def dealt(cards: list[str], game: PuntoBanco | None = None):
    coup = (game or book()).new_coup()
    for card in cards:
        coup.deal(card)
    return coup


def bets(*spec: tuple[str, int]) -> list[Bet]:
    return [Bet(f"t{i}", bet, stake, f"o{i}") for i, (bet, stake) in enumerate(spec)]


# --- II.1 and II.5-7: the shoe ----------------------------------------------------------------

def test_ii_1_six_decks_single_table_eight_double():
    assert punto_banco_shoe(6).decks == 6 and punto_banco_shoe(8).decks == 8
    with pytest.raises(Exception):
        punto_banco_shoe(4)


def test_ii_5_burn_the_first_eight_cards_then_deal():
    shoe = Shoe(punto_banco_shoe(8))
    coup = book().new_coup(shoe)
    for _ in range(8):
        assert coup.due().to == "burn"
        coup.deal("KS")
    assert coup.due().to == "player"
    assert len(coup.burned) == 8


def test_ii_12_one_burn_card_before_every_coup_but_the_first():
    game = book()
    shoe = Shoe(punto_banco_shoe(8))
    first = game.new_coup(shoe)
    for card in ["2S"] * 8 + ["9S", "KH", "QS", "JD"]:  # 8 burns, player natural 9
        first.deal(card)
    assert first.is_complete
    second = game.new_coup(shoe)
    assert second.due().to == "burn"
    second.deal("5H")
    assert second.due().to == "player"


def test_ii_6_cut_card_makes_the_coup_in_progress_the_last():
    game = book()
    shoe = Shoe(punto_banco_shoe(8), burns=False)
    coup = game.new_coup(shoe)
    coup.deal("9S")
    coup.cut_card()
    for card in ["KH", "QS", "JD"]:
        coup.deal(card)
    assert coup.is_complete and shoe.finished
    with pytest.raises(ShoeFinished):
        game.new_coup(shoe)


def test_ii_6_cut_card_between_coups_the_next_coup_is_the_last():
    game = book()
    shoe = Shoe(punto_banco_shoe(8))
    first = game.new_coup(shoe)
    for card in ["2S"] * 8 + ["9S", "KH", "QS", "JD"]:
        first.deal(card)
    shoe.cut_card()
    assert not shoe.finished
    coup = game.new_coup(shoe)
    assert coup.due().to == "burn"
    for card in ["2C", "9S", "KH", "QS", "JD"]:
        coup.deal(card)
    assert shoe.finished


def test_ii_7_a_card_found_face_up_is_valid():
    coup = book().new_coup()
    coup.deal("9S", face_up=True)
    assert coup.player == [Card("9", "S")]


# --- II.8: card values ------------------------------------------------------------------------

def test_ii_8_card_values_and_points_modulo_ten():
    assert [baccarat_value(parse_card(c)) for c in ["AS", "2S", "9S", "10S", "JS", "QS", "KS"]] == [1, 2, 9, 0, 0, 0, 0]
    assert points([parse_card("7S"), parse_card("8H")]) == 5
    assert points([parse_card("KS"), parse_card("10H"), parse_card("QD")]) == 0
    assert baccarat_value_counts(8) == [128] + [32] * 9


# --- II.12: two cards each, alternately, player first ------------------------------------------

def test_ii_12_alternate_dealing_player_first():
    coup = book().new_coup()
    order = []
    for card in ["4S", "3H", "2D", "2C"]:
        order.append(coup.due().to)
        coup.deal(card)
    assert order == ["player", "banker", "player", "banker"]


# --- II.13: the tableau -----------------------------------------------------------------------

@pytest.mark.parametrize("p,draws", [(0, True), (5, True), (6, False), (7, False)])
def test_ii_13_player_draws_on_0_to_5_stands_on_6_7(p, draws):
    assert player_draws(p) is draws


BANKER_TABLE = {  # II.13: the player's third card values on which the banker draws ("10" reads 0)
    3: {1, 2, 3, 4, 5, 6, 7, 9, 0}, 4: {2, 3, 4, 5, 6, 7}, 5: {4, 5, 6, 7}, 6: {6, 7},
}


@pytest.mark.parametrize("b", range(10))
@pytest.mark.parametrize("third", [None, *range(10)])
def test_ii_13_banker_table_cell_by_cell(b, third):
    if b >= 7:
        expected = False
    elif b <= 2:
        expected = True
    elif third is None:
        expected = b <= 5  # 3-5 draw and 6 stands when the player did not draw
    else:
        expected = third in BANKER_TABLE[b]
    assert banker_draws(b, third) is expected


def test_ii_13_a_natural_ends_the_coup_after_four_cards():
    coup = dealt(["8S", "2H", "KD", "3C"])  # player 8: natural; banker 5 does not draw
    assert coup.is_complete
    assert coup.result().winner == "player" and coup.result().natural


def test_ii_13_player_draws_then_banker_by_the_third_card():
    coup = dealt(["2S", "3H", "2D", "KC"])  # player 4, banker 3
    assert coup.due().to == "player"
    coup.deal("8S")  # player's third card 8: banker 3 stands
    assert coup.is_complete
    result = coup.result()
    assert (result.player_points, result.banker_points, result.winner) == (2, 3, "banker")


def test_ii_13_banker_draws_when_the_player_stood_on_3_to_5():
    coup = dealt(["7S", "5H", "KD", "KC"])  # player 7 stands, banker 5 draws
    assert coup.due().to == "banker"
    coup.deal("4S")
    assert coup.result().banker_points == 9


def test_ii_13_banker_six_stands_when_the_player_stood():
    assert dealt(["7S", "6H", "KD", "KC"]).result().winner == "player"


# --- II.14: a dealing slip is corrected at once; void if it cannot be --------------------------

def test_ii_14_card_to_the_banker_before_the_player_is_wrong_order_corrected_at_once():
    coup = book().new_coup()
    with pytest.raises(WrongOrder) as err:
        coup.deal("5S", to="banker")
    assert err.value.remedy is Remedy.CORRECT_AT_ONCE and "II.14" in err.value.article
    assert err.value.due.to == "player"
    coup.deal("5S", to="player")  # the correction: the same card where it was due
    assert coup.player == [Card("5", "S")]


def test_ii_14_third_card_to_a_player_who_stands_is_not_due():
    coup = dealt(["7S", "5H", "KD", "KC"])  # player 7 stands; banker 5 draws
    with pytest.raises(CardNotDue) as err:
        coup.deal("4S", to="player")
    assert err.value.due.to == "banker" and err.value.remedy is Remedy.CORRECT_AT_ONCE


def test_ii_14_card_after_a_complete_coup_is_burned():
    coup = dealt(["8S", "2H", "KD", "3C"])
    with pytest.raises(TooManyCards) as err:
        coup.deal("4S")
    assert err.value.remedy is Remedy.BURN_CARD
    coup.discard("4S")
    assert coup.result().winner == "player"


def test_ii_14_a_card_foreign_to_the_shoe_voids_the_coup():
    coup = book().new_coup()
    coup.deal("5S")
    with pytest.raises(UnknownCard) as err:
        coup.deal("JOKER")
    assert err.value.remedy is Remedy.VOID_COUP
    assert coup.is_void
    with pytest.raises(CoupVoid):
        coup.deal("5H")


def test_ii_14_a_ninth_copy_of_a_card_in_an_eight_deck_shoe_voids_the_coup():
    game = book()
    shoe = Shoe(punto_banco_shoe(8), burns=False)
    shoe.remaining[Card("A", "S")] = 1
    coup = game.new_coup(shoe)
    coup.deal("AS")
    with pytest.raises(BeyondComposition):
        coup.deal("AS")
    assert coup.is_void


def test_ii_14_a_void_coup_returns_every_stake_and_settles_nothing():
    game = book()
    coup = game.new_coup()
    coup.deal("5S")
    coup.void("two cards stuck together, order lost", "Portugal 1995 II.14")
    placed = bets(("banker", 5000), ("player", 1000), ("tie", 1000))
    outcomes = game.settle(coup, placed)
    assert [o.result for o in outcomes] == [Result.RETURNED] * 3
    assert [o.returned for o in outcomes] == [5000, 1000, 1000] and all(o.paid == 0 for o in outcomes)


def test_ii_14_an_unfinished_coup_has_no_settlement():
    coup = book().new_coup()
    coup.deal("5S")
    with pytest.raises(CoupNotFinished):
        book().settle(coup, bets(("banker", 1000)))


# --- II.17-19: payouts --------------------------------------------------------------------------

def test_ii_17_tie_pays_nine_to_one_player_and_banker_push():
    game = book()
    coup = dealt(["8S", "8H", "KD", "KC"])  # 8 - 8
    out = game.settle(coup, bets(("tie", 1000), ("banker", 1000), ("player", 1000)))
    assert (out[0].result, out[0].paid) == (Result.WIN, 9000)
    assert [o.result for o in out[1:]] == [Result.PUSH, Result.PUSH]
    assert all(o.returned == 1000 for o in out)


def test_ii_17_tie_at_eight_to_one_is_a_table_setting_others_refused():
    game = book(tie_pays=F(8))
    out = game.settle(dealt(["8S", "8H", "KD", "KC"]), bets(("tie", 1000)))
    assert out[0].paid == 8000
    with pytest.raises(RulebookError):
        book(tie_pays=F(10))


def test_ii_18_19_winners_paid_even_money_banker_less_five_percent():
    game = book()
    player_win = game.settle(dealt(["9S", "KH", "KD", "KC"]), bets(("player", 1000), ("banker", 1000), ("tie", 1000)))
    assert [(o.result, o.paid, o.kept) for o in player_win] == [(Result.WIN, 1000, 0), (Result.LOSE, 0, 1000), (Result.LOSE, 0, 1000)]
    banker_win = game.settle(dealt(["KS", "9H", "KD", "KC"]), bets(("banker", 1000)))
    assert (banker_win[0].result, banker_win[0].paid, banker_win[0].returned) == (Result.WIN, 950, 1000)


def test_ii_19_commission_breakage_is_recorded():
    game = book(limits=Limits(10, 100_000), rounding=RoundingRule(10, RoundingMode.DOWN))
    out = game.settle(dealt(["KS", "9H", "KD", "KC"]), bets(("banker", 30)))[0]
    assert out.paid == 20 and out.breakage == F(17, 2)  # 28.5 exact, 20 paid in units of 10


# --- II.20: limits --------------------------------------------------------------------------------

def test_ii_20_max_is_70_times_min_on_player_banker_14_on_tie():
    layout = Layout(book())
    layout.place(Bet("a", "banker", 70_000, "x"))
    with pytest.raises(BetRefused) as err:
        layout.place(Bet("b", "banker", 1000, "x"))  # the owner's total would pass 70 x min
    assert err.value.reason is RefusalReason.OVER_MAXIMUM
    layout.place(Bet("c", "tie", 14_000, "y"))
    with pytest.raises(BetRefused):
        layout.place(Bet("d", "tie", 15_000, "z"))


def test_ii_20_stakes_need_not_be_multiples_of_the_minimum_and_bets_are_known():
    """Chapter II asks a minimum and a maximum, never a multiple of the minimum (only I.36, V.14 and
    craps do): 1,500 at a 1,000 minimum is accepted."""
    layout = Layout(book())
    layout.place(Bet("a", "banker", 1500, "x"))
    for bet, reason in [(Bet("b", "banker", 500, "x"), RefusalReason.UNDER_MINIMUM),
                        (Bet("c", "pair", 1000, "x"), RefusalReason.UNKNOWN_BET)]:
        with pytest.raises(BetRefused) as err:
            layout.place(bet)
        assert err.value.reason is reason


# --- pairs recorded, the published figures ---------------------------------------------------------

def test_pairs_are_recorded_for_the_boards():
    result = dealt(["4S", "9H", "4D", "9C"]).result()
    assert result.player_pair and result.banker_pair
    assert result.view()["player"] == ["4S", "4D"]


def test_published_eight_deck_counts_reproduced_exactly():
    # ../shared/oracles/PUBLISHED.md, "Punto banco, 8 decks, cards dealt without replacement".
    counts = enumerate_decks(8)
    assert counts.banker == 2_292_252_566_437_888
    assert counts.player == 2_230_518_282_592_256
    assert counts.tie == 475_627_426_473_216
    assert counts.total == 416 * 415 * 414 * 413 * 412 * 411


def test_published_eight_deck_edges():
    # PUBLISHED.md: banker 1.0579%, player 1.2351%, tie 8:1 14.3596%, tie 9:1 4.8440%.
    rows = {r.bet: r for r in book().edge_rows()}
    assert round(float(rows["banker"].edge) * 100, 4) == 1.0579
    assert round(float(rows["player"].edge) * 100, 4) == 1.2351
    assert round(float(rows["tie"].edge) * 100, 4) == 4.8440
    assert round(float(book(tie_pays=F(8)).edge_rows()[2].edge) * 100, 4) == 14.3596
    assert round(float(rows["banker"].p_win), 6) == 0.458597


def test_six_deck_figures():
    counts = enumerate_decks(6)
    assert counts.total == 312 * 311 * 310 * 309 * 308 * 307
    rows = {r.bet: r for r in book(decks=6).edge_rows()}
    # Six decks: banker 1.0558%, player 1.2374% (the widely published six-deck figures); tie 9:1 4.9313%.
    assert round(float(rows["banker"].edge) * 100, 4) == 1.0558
    assert round(float(rows["player"].edge) * 100, 4) == 1.2374
    assert round(float(rows["tie"].edge) * 100, 4) == 4.9313


def test_enumeration_on_a_tiny_shoe_matches_brute_force():
    from itertools import permutations

    from firmware_host.rules.punto_banco_deal import baccarat_result

    cards = [Card(r, "S") for r in ["K", "2", "3", "4", "5", "6", "7", "9"]]  # 8P6 = 20,160 sequences
    wins = {"banker": 0, "player": 0, "tie": 0}
    for seq in permutations(cards, 6):
        coup = PuntoBanco("portugal-1995", LIMITS).new_coup()
        for card in seq:
            if coup.is_complete:
                break
            coup.deal(card)
        wins[baccarat_result(coup.player, coup.banker).winner] += 1
    counts = enumerate_coups([1, 0, 1, 1, 1, 1, 1, 1, 0, 1])
    assert (counts.banker, counts.player, counts.tie) == (wins["banker"], wins["player"], wins["tie"])
