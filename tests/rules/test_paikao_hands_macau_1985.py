"""P'ai Kao hands, Macau Portaria of 17 May 1985 (seed 002): one test per article, named after it.

The tile and pair tables the seed names but does not print (Art. 5.3) follow the standard
published Pai Gow ranking: California Department of Justice, "Pai Gow Tiles" (California /
Asian-style games), and Wikipedia, "Pai gow" (tile and pair rankings, Wong, Gong, Gee Joon).
"""

from __future__ import annotations

import pytest

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.errors import BetRefused, RefusalReason
from firmware_host.rules.layout import Layout
from firmware_host.rules.misdeal import BeyondComposition, CoupVoid, UnknownCard, WrongOrder
from firmware_host.rules.paikao_game import PaiKao, PaiKaoRound
from firmware_host.rules.paikao_hands import GONG, PAIR, POINTS, WONG, BadHand, compare, line_winner, pair_value, set_hand
from firmware_host.rules.paikao_tiles import RANK, SET, parse_tile

T = parse_tile


def pv(a: str, b: str):
    return pair_value(T(a), T(b))


def hand(*tiles: str, pair: tuple[str, str]):
    return set_hand([T(t) for t in tiles], list(pair))


def test_art_1_1_thirty_two_tiles_eleven_civil_pairs_ten_military():
    assert sum(SET.values()) == 32
    assert sorted(n for n in SET.values()) == [1] * 10 + [2] * 11
    with pytest.raises(UnknownCard):
        T("0-0")
    with pytest.raises(UnknownCard):
        T("seven")


def test_art_5_3_single_tile_ranking_standard_pai_gow():
    order = ["6-6", "1-1", "4-4", "1-3", "5-5", "3-3", "2-2", "5-6", "4-6", "1-6", "1-5", "4-5", "3-5", "3-4", "1-4", "1-2"]
    ranks = [RANK[T(t)] for t in order]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == len(ranks)
    assert RANK[T("4-5")] == RANK[T("3-6")] and RANK[T("1-2")] == RANK[T("2-4")]  # military tiles rank in equal pairs


def test_art_5_3_pair_ranking_gee_joon_highest_then_civil_then_military():
    values = [pv("1-2", "2-4"), pv("6-6", "6-6"), pv("1-1", "1-1"), pv("1-5", "1-5"), pv("4-5", "3-6"), pv("1-4", "2-3")]
    assert all(v.category == PAIR for v in values)
    assert values == sorted(values, reverse=True)
    assert pv("4-4", "3-5").category == POINTS  # eight pips each but not a pair (Yun is civil, 3-5 military)


def test_art_5_4_wong_and_gong_teen_or_day_with_a_nine_or_an_eight():
    assert pv("6-6", "4-5").category == WONG and pv("1-1", "3-6").category == WONG
    assert pv("6-6", "4-4").category == GONG and pv("1-1", "2-6").category == GONG
    assert pv("6-6", "4-5") > pv("1-1", "4-5") > pv("6-6", "3-5") > pv("1-1", "3-5")  # Tin/Tei Kao Vóng, Ting/Tei Kóng
    assert pv("1-5", "1-5") > pv("6-6", "4-5") > pv("6-6", "3-4")  # pairs over Wong over a 9 by points


def test_art_5_4_points_modulo_ten():
    assert pv("5-6", "3-4").value == 8  # 11 + 7 = 18
    assert pv("6-6", "3-4").value == 9  # 12 + 7 = 19
    assert pv("4-6", "1-6").value == 7  # 10 + 7 = 17
    assert pv("5-5", "4-6").value == 0  # 20


def test_art_5_5_chi_chun_counts_3_or_6_to_raise_the_hand():
    assert pv("1-2", "6-6").value == 8  # 6 + 12 = 18 beats 3 + 12 = 15
    assert pv("2-4", "3-4").value == 3  # 6 + 7 = 13 beats 3 + 7 = 10
    assert pv("1-2", "2-5").value == 3


def test_art_5_2_the_lower_pair_goes_in_front():
    h = hand("6-6", "4-5", "1-1", "2-3", pair=("1-1", "2-3"))
    assert h.front_value.describe() == "7 points" and h.back_value.describe() == "Teen Wong"
    h2 = hand("6-6", "4-5", "1-1", "2-3", pair=("6-6", "4-5"))
    assert (h2.front, h2.back) == (h.front, h.back)


def test_art_5_1_a_setting_uses_the_seats_own_tiles():
    with pytest.raises(BadHand):
        hand("6-6", "4-5", "1-1", "2-3", pair=("5-5", "2-3"))


def test_art_6_1_equal_points_the_higher_tile_wins_copies_go_to_the_banker():
    player, banker = pv("6-6", "1-6"), pv("1-1", "1-6")  # both 9 by points... 12+7=19, 2+7=9
    assert player.value == banker.value == 9
    assert line_winner(player, banker, front=False) == "player"  # Teen over Day
    assert line_winner(pv("4-5", "5-5"), pv("3-6", "5-5"), front=False) == "banker"  # same ranks: a copy


def test_art_6_2_both_fronts_at_zero_go_to_the_banker_whatever_the_tiles():
    player, banker = pv("1-3", "3-3"), pv("5-5", "4-6")  # 10 and 20: both 0; the player's Gor outranks Mooy
    assert player.value == banker.value == 0 and player.high_tile > banker.high_tile
    assert line_winner(player, banker, front=True) == "banker"  # Art. 6.2
    assert line_winner(player, banker, front=False) == "player"  # elsewhere the higher tile decides (Art. 6.1)


def test_art_6_3_6_4_both_lines_win_neither_loses_one_each_pushes():
    banker = hand("5-5", "2-3", "1-6", "3-4", pair=("5-5", "2-3"))  # 5 points and 4 points
    strong = hand("6-6", "4-5", "1-1", "3-6", pair=("6-6", "4-5"))  # Teen Wong / Day Wong
    weak = hand("1-5", "3-5", "2-5", "1-4", pair=("1-5", "3-5"))
    assert compare(strong, banker) == "player"
    assert compare(banker, banker) == "banker"  # copies
    mixed = hand("6-6", "4-5", "3-3", "2-2", pair=("6-6", "4-5"))  # Wong / 0 points
    assert compare(mixed, banker) == "push"
    assert compare(weak, strong) == "banker"


# --- the deal and the settlement -------------------------------------------------------------------

ORDER = [3, 4, 5, 6, 7, 0, 1, 2]  # four 1s: total 4 counts to seat 3 (Art. 1.2)


def full_deal(round_: PaiKaoRound, seat_tiles: dict[int, list[str]], face_up: dict[int, int] | None = None):
    face_up = face_up or {}
    for seat in round_.order:
        for i, tile in enumerate(seat_tiles[seat]):
            round_.deal.deal(tile, face_up=i < face_up.get(seat, 0))


def stacks() -> dict[int, list[str]]:
    tiles = [str(t) for t, n in sorted(SET.items()) for _ in range(n)]
    return {seat: tiles[4 * i:4 * i + 4] for i, seat in enumerate(ORDER)}


def test_art_1_2_1_4_four_tiles_to_every_seat_in_dealing_order():
    round_ = PaiKaoRound([1, 1, 1, 1])
    assert round_.order == ORDER
    assert round_.deal.due().to == "seat 3"
    with pytest.raises(WrongOrder):
        round_.deal.deal("6-6", seat=4)
    full_deal(round_, stacks())
    assert round_.deal.due().complete


def test_art_1_1_a_tile_beyond_the_set_voids_the_deal():
    round_ = PaiKaoRound(order=ORDER)
    round_.deal.deal("1-2")
    with pytest.raises(BeyondComposition):
        round_.deal.deal("1-2")  # a military tile: one in the set
    assert round_.is_void


def test_art_2_2_one_tile_face_up_the_deal_stands():
    round_ = PaiKaoRound(order=ORDER)
    full_deal(round_, stacks(), face_up={4: 1})
    assert not round_.is_void and round_.deal.seats_out == []


def test_art_2_3_two_tiles_face_up_put_that_seat_out():
    game = PaiKao("macau-1985", Limits(100, 100_000))
    round_ = PaiKaoRound(order=ORDER)
    full_deal(round_, stacks(), face_up={4: 2})
    assert round_.deal.seats_out == [4]
    with pytest.raises(BadHand):
        round_.set(4, stacks()[4][:2])
    round_.set(0, stacks()[0][:2])
    out = game.settle(round_, [Bet("a", "seat", 1000, "x", 4)])
    assert out[0].result is Result.RETURNED


def test_art_2_3_two_banker_tiles_face_up_void_the_deal():
    game = PaiKao("macau-1985", Limits(100, 100_000))
    round_ = PaiKaoRound(order=ORDER)
    with pytest.raises(CoupVoid):  # the deal stops at the banker's second face-up tile
        full_deal(round_, stacks(), face_up={0: 2})
    assert round_.is_void
    out = game.settle(round_, [Bet("a", "seat", 1000, "x", 4), Bet("b", "banker", 5000, "B")])
    assert [o.result for o in out] == [Result.RETURNED, Result.RETURNED]


def _settled(bets, caps=True):
    game = PaiKao("macau-1985", Limits(100, 1_000_000), banker_capital_caps=caps)
    round_ = PaiKaoRound(order=ORDER)
    tiles = stacks()
    full_deal(round_, tiles)
    for seat in range(8):
        round_.set(seat, tiles[seat][:2])
    return {o.bet.ticket: o for o in game.settle(round_, bets)}, round_


def test_art_4_2_five_percent_commission_on_winnings():
    out, round_ = _settled([Bet("s4", "seat", 10_000, "y", 4)])
    assert compare(round_.hands[4], round_.hands[0]) == "player"
    assert (out["s4"].result, out["s4"].paid) == (Result.WIN, 9500)


def test_art_4_5_the_banker_loses_at_most_his_capital():
    # seats 4, 1 and 2 beat the banker in this deal; the bank of 15,000 covers seat 4 and part of seat 1.
    bets = [Bet("bank", "banker", 15_000, "B"), Bet("s4", "seat", 10_000, "y", 4), Bet("s1", "seat", 10_000, "z", 1),
            Bet("s2", "seat", 10_000, "w", 2)]
    out, round_ = _settled(bets)
    winners = [s for s in (4, 1, 2) if compare(round_.hands[s], round_.hands[0]) == "player"]
    assert winners == [4, 1, 2]
    assert (out["s4"].paid, out["s1"].paid, out["s2"].result) == (9500, 4750, Result.RETURNED)
    assert (out["bank"].result, out["bank"].kept, out["bank"].returned) == (Result.LOSE, 15_000, 0)


def test_art_4_5_without_the_cap_every_winner_is_paid():
    bets = [Bet("bank", "banker", 15_000, "B"), Bet("s4", "seat", 10_000, "y", 4), Bet("s1", "seat", 10_000, "z", 1)]
    out, _ = _settled(bets, caps=False)
    assert out["s1"].paid == 9500 and out["bank"].kept == 15_000


def test_seat_bets_name_a_seat_and_respect_the_limits():
    layout = Layout(PaiKao("macau-1985", Limits(100, 1000)))
    for bet, reason in [(Bet("a", "seat", 100, "x", 0), RefusalReason.MALFORMED), (Bet("b", "seat", 2000, "x", 3), RefusalReason.OVER_MAXIMUM),
                        (Bet("c", "tie", 100, "x"), RefusalReason.UNKNOWN_BET)]:
        with pytest.raises(BetRefused) as err:
            layout.place(bet)
        assert err.value.reason is reason


def test_art_1_1_a_tile_after_the_thirty_two_voids_the_deal():
    round_ = PaiKaoRound(order=ORDER)
    full_deal(round_, stacks())
    with pytest.raises(BeyondComposition):
        round_.deal.deal("6-6")
    assert round_.is_void
