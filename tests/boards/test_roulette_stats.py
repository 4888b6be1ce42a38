"""Roulette board statistics against a hand-counted session of 36 spins (single zero, 004 §X)."""

from __future__ import annotations

import msgspec
import pytest

from firmware_host.boards.history import BoardSettings, RouletteHistory
from firmware_host.boards.roulette_stats import RED_NUMBERS, Spin, chance_counts, colour_of, hot_and_cold

SESSION = [32, 15, 19, 4, 21, 2, 0, 17, 17, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1, 20, 14, 31, 9, 22, 18,
           29, 7, 28, 12, 17, 0, 35, 3, 26, 32]


def test_colours_of_the_single_zero_wheel():
    assert len(RED_NUMBERS) == 18
    assert colour_of(0) == "green"
    assert [colour_of(n) for n in (1, 2, 10, 11, 19, 20, 28, 29, 36)] == [
        "red", "black", "black", "black", "red", "black", "black", "black", "red"]
    with pytest.raises(ValueError, match="0 to 36"):
        colour_of(37)


def test_chance_counts_hand_counted():
    # Counted by hand, spin by spin: 2 zeros; of the 34 others 16 red / 18 black, 17 odd /
    # 17 even, 18 low / 16 high; dozens 11 / 13 / 10; columns 9 / 15 / 10.
    c = chance_counts(SESSION)
    assert (c.spins, c.zero) == (36, 2)
    assert (c.red, c.black) == (16, 18)
    assert (c.odd, c.even) == (17, 17)
    assert (c.low, c.high) == (18, 16)
    assert c.dozens == (11, 13, 10)
    assert c.columns == (9, 15, 10)


def test_hot_and_cold_hand_counted():
    # 17 came 3 times; 32 and 0 twice (32 more recently); then the most recent singles 26, 3.
    # Never seen: 6, 13, 25, 27, 34.
    hot, cold = hot_and_cold(SESSION, 5)
    assert [(h.number, h.count) for h in hot] == [(17, 3), (32, 2), (0, 2), (26, 1), (3, 1)]
    assert [(h.number, h.count) for h in cold] == [(6, 0), (13, 0), (25, 0), (27, 0), (34, 0)]


def test_cold_prefers_the_number_absent_longest():
    hot, cold = hot_and_cold([5, 6, 7] + [n for n in range(37) if n not in (5, 6, 7)] + [7, 5], 3)
    assert [h.number for h in cold] == [6] + [n for n in range(37) if n not in (5, 6, 7)][:2]


def test_board_over_a_window_of_ten_spins():
    # The last 10 spins: 29 7 28 12 17 0 35 3 26 32 -> red 7 12 3 32, black 29 28 17 35 26, one zero.
    h = RouletteHistory("t", BoardSettings(last_n=20, window=10, hot_cold=5))
    for n in SESSION:
        h.add(Spin(n))
    b = h.board()
    assert b.spins == 36 and b.window == 10
    assert (b.counts.spins, b.counts.red, b.counts.black, b.counts.zero) == (10, 4, 5, 1)
    assert [x.number for x in b.hot] == [32, 26, 3, 35, 0]  # all once: the most recent first
    assert [x.number for x in b.last] == SESSION[::-1][:20]
    assert b.last[0].colour == "red" and b.last[4].colour == "green"


def test_default_last_is_twenty_and_window_covers_the_session():
    h = RouletteHistory("t")
    for n in SESSION:
        h.add(Spin(n))
    b = h.board()
    assert len(b.last) == 20 == b.last_n
    assert b.counts.spins == 36 and b.counts.dozens == [11, 13, 10]


def test_direction_of_the_last_spins_and_no_alternation_verdict_for_players():
    """Whether the ball alternated is a supervisor matter (events, `direction_not_alternated`): the
    board gives each spin's direction and no verdict on it."""
    h = RouletteHistory("t")
    for s in [Spin(1, "cw"), Spin(2, "ccw"), Spin(3, "cw"), Spin(4, "cw")]:
        h.add(s)
    b = h.board()
    assert [s.direction for s in b.last] == ["cw", "cw", "ccw", "cw"]
    assert "directions_alternate" not in msgspec.to_builtins(b)


def test_reset_at_a_new_session():
    h = RouletteHistory("t")
    h.add(Spin(5), round=1, round_id="t-00000001")
    assert h.message("u").round_id == "t-00000001"
    h.reset("new_session")
    m = h.message("u")
    b = m.board
    assert (b.spins, b.last, m.round, m.round_id, m.reset) == (0, [], None, None, "new_session")
    assert [x.count for x in b.cold] == [0] * 5 and b.hot == []
