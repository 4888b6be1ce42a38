"""P'ai Kao stacks entered as the seats are opened (Macau 1985, seed 002): every tile once per deal
(Art. 1.1), four tiles a seat (Art. 1.4), the face-up tiles rule (Art. 2.2-2.3). A wrong entry is
refused and changes nothing: the dealer corrects it (a keypad slip is not a misdeal at the table)."""

from __future__ import annotations

import pytest

from firmware_host.rules.misdeal import BeyondComposition, CardNotDue, CoupVoid, Remedy, TooManyCards, UnknownCard
from firmware_host.rules.paikao_game import PaiKaoRound
from firmware_host.rules.paikao_tiles import SET

ORDER = [3, 4, 5, 6, 7, 0, 1, 2]  # four dice totalling 4: the fourth seat from the banker, who counts one


def stacks() -> dict[int, list[str]]:
    tiles = [str(t) for t, n in sorted(SET.items()) for _ in range(n)]
    return {seat: tiles[4 * i:4 * i + 4] for i, seat in enumerate(ORDER)}


def test_art_1_4_and_8_1_stacks_are_entered_in_any_order_of_the_seats():
    deal = PaiKaoRound(order=ORDER).deal
    tiles = stacks()
    for seat in (0, 7, 2, 5, 1, 6, 3):
        assert not deal.stack(seat, tiles[seat]).complete
    assert deal.due().to == "seat 4"
    assert deal.stack(4, tiles[4]).complete
    assert sum(deal.left.values()) == 0


def test_art_1_1_a_tile_entered_beyond_the_set_is_refused_and_changes_nothing():
    deal = PaiKaoRound(order=ORDER).deal
    deal.stack(3, ["1-2", "2-4", "6-6", "6-6"])
    before = (dict(deal.tiles), +deal.left)
    with pytest.raises(BeyondComposition) as err:
        deal.stack(4, ["1-2", "1-1", "1-1", "3-3"])  # the 1-2 Gee Joon tile is one of a kind: entered twice
    assert err.value.remedy is Remedy.CORRECT_AT_ONCE and "already entered" in err.value.message
    with pytest.raises(BeyondComposition):
        deal.stack(4, ["6-6", "1-1", "1-1", "3-3"])  # both Teen tiles are already at seat 3
    assert (dict(deal.tiles), +deal.left) == before and not deal.is_void
    deal.stack(4, ["1-1", "1-1", "3-3", "3-3"])


def test_art_1_4_four_tiles_a_seat_each_seat_once():
    deal = PaiKaoRound(order=ORDER).deal
    with pytest.raises(TooManyCards):
        deal.stack(3, ["1-2", "2-4", "6-6"])
    with pytest.raises(TooManyCards):
        deal.stack(3, ["1-2", "2-4", "6-6", "6-6", "1-1"])
    deal.stack(3, ["1-2", "2-4", "6-6", "6-6"])
    with pytest.raises(CardNotDue, match="already entered"):
        deal.stack(3, ["1-1", "1-1", "3-3", "3-3"])
    with pytest.raises(CardNotDue):
        deal.stack(8, ["1-1", "1-1", "3-3", "3-3"])


def test_art_1_1_a_mistyped_tile_is_a_correction_not_a_void_deal():
    deal = PaiKaoRound(order=ORDER).deal
    with pytest.raises(UnknownCard) as err:
        deal.stack(3, ["0-7", "2-4", "6-6", "6-6"])
    assert err.value.remedy is Remedy.CORRECT_AT_ONCE and not deal.is_void


def test_art_2_2_2_3_face_up_tiles_entered_with_their_stack():
    deal = PaiKaoRound(order=ORDER).deal
    tiles = stacks()
    with pytest.raises(CardNotDue, match="not among"):
        deal.stack(5, tiles[5], face_up=[tiles[3][0]])
    deal.stack(5, tiles[5], face_up=tiles[5][:1])  # Art. 2.2: one face up, the seat plays
    deal.stack(6, tiles[6], face_up=tiles[6][:2])  # Art. 2.3: two, the seat is out of this deal
    assert deal.seats_out == [6] and not deal.is_void
    deal.stack(0, tiles[0], face_up=tiles[0][1:3])  # Art. 2.3: two of the banker's: the whole deal is void
    assert deal.is_void
    with pytest.raises(CoupVoid):
        deal.stack(1, tiles[1])
