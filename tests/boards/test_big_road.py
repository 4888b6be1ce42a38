"""Big road and bead plate: new column on a change of winner, ties on the previous cell, ties that
open a shoe, pairs, counts; the dragon tail layout."""

from __future__ import annotations

from firmware_host.boards.baccarat_roads import BigRoadCell, Coup, big_road, shoe_counts
from firmware_host.boards.grid_layout import bead_plate_layout, dragon_tail_layout
from firmware_host.boards.results_text import parse_coups


def road(text: str) -> list[list[tuple[str | None, int]]]:
    return [[(c.winner, c.ties) for c in col] for col in big_road(parse_coups(text))]


def test_new_column_on_each_change_of_winner():
    assert road("BBPBPPP") == [[("B", 0), ("B", 0)], [("P", 0)], [("B", 0)], [("P", 0), ("P", 0), ("P", 0)]]


def test_ties_are_marked_on_the_previous_cell_and_start_no_column():
    assert road("BTPTTP") == [[("B", 1)], [("P", 2), ("P", 0)]]
    assert road("BTB") == [[("B", 1), ("B", 0)]]


def test_ties_opening_a_shoe_wait_on_the_first_cell_then_the_first_win_fills_it():
    assert road("TT") == [[(None, 2)]]
    assert road("TTB") == [[("B", 2)]]
    assert road("TTBTP") == [[("B", 3)], [("P", 0)]]
    # the first win after opening ties does not start a second column
    assert len(big_road(parse_coups("TTTPPB"))) == 2


def test_empty_shoe():
    assert big_road([]) == []
    assert shoe_counts([]).coups == 0


def test_counts_and_pairs():
    coups = parse_coups("Bb P Pp T Tbp B")
    n = shoe_counts(coups)
    assert (n.coups, n.banker, n.player, n.tie, n.banker_pair, n.player_pair) == (6, 2, 2, 2, 2, 2)
    assert coups[4] == Coup("T", banker_pair=True, player_pair=True)


def test_pairs_are_on_the_cell_of_their_coup_or_of_the_tie_marked_on_it():
    cells = [[(c.winner, c.ties, c.banker_pair, c.player_pair) for c in col]
             for col in big_road(parse_coups("Bb P Pp Tb B"))]
    assert cells == [[("B", 0, True, False)], [("P", 0, False, False), ("P", 1, True, True)], [("B", 0, False, False)]]
    # ties opening a shoe: their pairs wait on the first cell with them
    assert [(c.winner, c.ties, c.banker_pair, c.player_pair) for c in big_road(parse_coups("Tp B"))[0]] == [
        ("B", 1, False, True)]


def test_cells_are_plain_values():
    assert big_road([Coup("P")]) == [[BigRoadCell("P", 0)]]


def test_bead_plate_runs_down_columns_of_six():
    assert bead_plate_layout(8) == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 0), (1, 1)]


def test_dragon_tail_turns_right_past_row_six():
    # banker 9, player 8, banker 2 (hand-worked): the banker run turns right on the bottom row;
    # the player run stops above that tail and turns right on row 5 (index 4).
    lengths = [9, 8, 2]
    assert dragon_tail_layout(lengths) == [
        (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5), (2, 5), (3, 5),
        (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4), (4, 4),
        (2, 0), (2, 1),
    ]


def test_dragon_tail_blocked_early_by_an_earlier_tail():
    # 7, 7, 1, 6 (hand-worked): the fourth column meets the second one's tail on row 5 and turns
    # right on row 4 (index 3).
    assert dragon_tail_layout([7, 7, 1, 6]) == [
        (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5),
        (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4),
        (2, 0),
        (3, 0), (3, 1), (3, 2), (3, 3), (4, 3), (5, 3),
    ]


def test_a_column_exactly_six_long_needs_no_tail():
    assert dragon_tail_layout([6, 1]) == [(0, y) for y in range(6)] + [(1, 0)]


def test_every_cell_has_its_own_place():
    lengths = [9, 8, 7, 7, 1, 12, 3, 6, 6, 2]
    places = dragon_tail_layout(lengths)
    assert len(places) == sum(lengths) == len(set(places))
    assert all(0 <= y < 6 for _, y in places)
