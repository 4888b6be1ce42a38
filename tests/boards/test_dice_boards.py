"""Craps, cussec, banca francesa and P'ai Kao boards against hand-worked sequences."""

from __future__ import annotations

from firmware_host.boards.history import BoardSettings, PaiKaoHistory, ThreeDiceHistory
from firmware_host.cli.board_cmd import compute


def test_craps_point_outcomes_and_hot_roll():
    # 7 natural; 6 point; 12 nothing (point on); 6 made; 7 natural; 10 point; 10 made; 7 natural;
    # 2 craps; 8 point; 7 seven-out -> shooter 2 with no throws yet.
    b = compute("craps", "3-4,2-4,6-6,3-3,1-6,5-5,4-6,2-5,1-1,4-4,1-6")
    outcomes = [t.outcome for t in reversed(b.last)]
    assert outcomes == ["natural", "point", None, "point_made", "natural", "point", "point_made", "natural",
                        "craps", "point", "seven_out"]
    assert [t.point for t in reversed(b.last)][:4] == [None, None, 6, 6]
    assert (b.point, b.shooter, b.hot_roll, b.longest_roll, b.throws) == (None, 2, 0, 11, 11)
    assert b.last[0].faces == [1, 6] and b.last[0].total == 7 and b.last[0].shooter == 1


def test_craps_point_on_and_hot_roll_growing():
    b = compute("craps", "1-6,4-4,2-2,3-3")
    assert (b.point, b.shooter, b.hot_roll) == (8, 1, 4)
    b = compute("craps", "4-4,3-4,5-5,6-4")  # seven-out, then shooter 2 sets 10 and makes it
    assert (b.point, b.shooter, b.hot_roll, b.longest_roll) == (None, 2, 2, 2)


def test_cussec_small_big_and_triples_lose_both():
    # 1-2-3 small; 6-6-6 triple; 5-6-4 = 15 big; 2-2-2 = 6 a triple, not small (004 §VII.9); 1-1-3 small
    b = compute("cussec", "1-2-3,6-6-6,5-6-4,2-2-2,1-1-3")
    assert [(r.total, r.chance, r.triple) for r in reversed(b.last)] == [
        (6, "small", False), (18, None, True), (15, "big", False), (6, None, True), (5, "small", False)]
    c = b.counts
    assert (c.results, c.small, c.big, c.triples, c.no_decision, c.aces) == (5, 2, 1, 2, 2, 0)


def test_banca_francesa_aces_small_big_and_no_decision():
    # 1-1-1 = 3 aces; 2-2-1 = 5 small; 6-5-4 = 15 big; 3-3-3 = 9 nothing; 1-2-6 = 9 nothing (004 §IV.9)
    b = compute("banca_francesa", "1-1-1,2-2-1,6-5-4,3-3-3,1-2-6")
    assert [(r.total, r.chance) for r in reversed(b.last)] == [(3, "aces"), (5, "small"), (15, "big"), (9, None),
                                                              (9, None)]
    c = b.counts
    assert (c.aces, c.small, c.big, c.triples, c.no_decision) == (1, 1, 1, 2, 2)


def test_paikao_first_seat_by_round():
    # seat = (total - 1) mod 8 counting the banker as one (002 Art. 1.4)
    b = compute("paikao", "1-1-1-1,6-6-6-6,1-2-3-2,2-2-2-3")
    assert [(r.total, r.first_seat) for r in reversed(b.last)] == [(4, 3), (24, 7), (8, 7), (9, 0)]
    assert b.seat_counts == [1, 0, 0, 1, 0, 0, 0, 2]


def test_last_n_keeps_the_newest():
    h = ThreeDiceHistory("cussec", "t", BoardSettings(last_n=2))
    for faces in [(1, 1, 2), (3, 4, 5), (6, 6, 5)]:
        h.add(faces)
    b = h.board()
    assert [r.faces for r in b.last] == [[6, 6, 5], [3, 4, 5]] and b.results == 3


def test_session_reset():
    h = PaiKaoHistory("t")
    h.add((1, 2, 3, 4), round=9, round_id="t-00000009")
    assert h.message("u").round == 9
    h.reset()
    m = h.message("u")
    assert (m.board.rounds, m.board.last, m.round_id, m.reset) == (0, [], None, "new_session")
