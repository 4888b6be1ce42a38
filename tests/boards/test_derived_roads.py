"""Big eye boy, small road and cockroach pig against hand-worked shoes.

Rule (see firmware_host/boards/baccarat_roads.py): for a big road entry in column c, row r, the
road comparing column n-k adds, for r = 0, red when columns c-1 and c-1-k are equally long, else
blue; for r >= 1, blue when column c-k has exactly r cells, else red. Ties add nothing.
Every expected mark below was worked out by hand from the big road's column lengths.
"""

from __future__ import annotations

from itertools import groupby

from firmware_host.boards.baccarat_roads import (big_road, column_lengths, derived_marks, derived_roads,
                                                 next_marks_for, shoe_counts)
from firmware_host.boards.grid_layout import dragon_tail_layout
from firmware_host.boards.results_text import parse_coups


def roads(text: str) -> dict[str, list[list[str]]]:
    return derived_roads(column_lengths(big_road(parse_coups(text))))


def columns(marks: str) -> list[list[str]]:
    """Hand-worked marks into columns, grouped independently of the code under test."""
    return [list(run) for _, run in groupby(marks)]


# --- where each road starts: the first comparable entry, not one column later ---------------

def test_big_eye_boy_starts_at_the_second_cell_of_the_second_column():
    # BB|PP: P at column 1 row 1; column 0 has a cell at row 1 -> red.
    assert roads("BBPP")["big_eye_boy"] == [["R"]]
    # B|PP: column 0 stops just above row 1 -> blue.
    assert roads("BPP")["big_eye_boy"] == [["B"]]


def test_big_eye_boy_starts_at_the_third_column_when_the_second_has_one_cell():
    assert roads("BBP")["big_eye_boy"] == []
    assert roads("BBPB")["big_eye_boy"] == [["B"]]  # columns 1 and 0: lengths 1 and 2
    assert roads("BPB")["big_eye_boy"] == [["R"]]  # lengths 1 and 1


def test_small_road_starts_at_the_second_cell_of_the_third_column():
    assert roads("BPB")["small_road"] == []
    assert roads("BPBB")["small_road"] == [["B"]]  # column 0 has one cell: stopped just above
    assert roads("BBPBB")["small_road"] == [["R"]]  # column 0 reaches row 1
    assert roads("BBPPB")["small_road"] == []  # column 2 row 0 has no column c-3 to compare
    # lengths 2, 2, 1, 1: column 3 row 0 compares column 2 (1 cell) with column 0 (2 cells) -> blue
    assert roads("BBPPBP")["small_road"] == [["B"]]


def test_cockroach_pig_starts_at_the_second_cell_of_the_fourth_column():
    assert roads("BPBP")["cockroach_pig"] == []
    assert roads("BPBPP")["cockroach_pig"] == [["B"]]
    assert roads("BBPBPP")["cockroach_pig"] == [["R"]]
    assert roads("BPBPB")["cockroach_pig"] == [["R"]]  # column 4 row 0: lengths of 3 and 0 are 1 and 1


# --- ties at the start of a shoe ----------------------------------------------------------

def test_ties_opening_a_shoe_change_no_road():
    plain, tied = "BBPPBPBBBP", "TTBBPPBPBBBP"
    assert roads(tied) == roads(plain)
    assert roads("T" + plain) == roads(plain)
    # and ties anywhere else change nothing either
    assert roads("TBTBTPPTBTPTBBTBTP") == roads(plain)


def test_a_shoe_of_ties_only_has_empty_roads():
    assert roads("TTT") == {"big_eye_boy": [], "small_road": [], "cockroach_pig": []}


def test_the_first_win_after_opening_ties_is_not_a_new_column():
    # If the opening ties made a column of their own, "TTBPP" would look like B|P|PP... and the
    # big eye boy would mark the P at column 2 row 0. Correctly it is B|PP: one blue mark.
    assert roads("TTBPP")["big_eye_boy"] == [["B"]]
    assert roads("TTBPP")["small_road"] == []


# --- dragon tails do not change the roads --------------------------------------------------

def test_roads_use_logical_columns_not_the_dragon_tail_layout():
    # banker 9, player 8, banker 2. Column 1: rows 1-7 compare column 0 (9 long) -> 7 red.
    # Column 2 row 0: lengths 8 vs 9 -> blue; row 1: column 1 is 8 long -> red.
    r = roads("B" * 9 + "P" * 8 + "BB")
    assert r["big_eye_boy"] == [["R"] * 7, ["B"], ["R"]]
    # small road: column 2 row 1 compares column 0 (9 long) -> red.
    assert r["small_road"] == [["R"]]


# --- a full 80-coup shoe -------------------------------------------------------------------

# Big road columns (B first, alternating) and their lengths:
LENGTHS = [3, 1, 2, 2, 1, 1, 4, 1, 2, 8, 1, 3, 1, 1, 2, 2, 5, 1, 1, 2, 3, 1, 7, 2, 1, 1, 3, 2, 1, 2]
# The shoe: 67 banker/player wins and 13 ties (2 of them open the shoe), with pairs.
SHOE_80 = ("TT BBTB | PT | BB | PTTP | B | P | Bb B Bp B | P | BTB | PPPPPPPTP | B | Pp P P | B | P | BBT | PP | "
           "BBBTBB | Pbp | B | PP | BTBB | P | BBBBBBB | PP | BT | P | BBB | PP | B | PPT").replace("|", "")
# Hand-worked, column by column of the big road (from column 2 for big eye boy, etc.):
BIG_EYE_BOY = ["BB", "BR", "R", "B", "RBRR", "B", "BB", "BRBRRRRR", "B", "BBR", "B", "B", "RB", "BR", "RRBRR",
               "B", "B", "RB", "BRB", "B", "BBRRRRR", "BR", "B", "B", "RBR", "BR", "B", "BB"]
SMALL_ROAD = ["R", "BB", "B", "B", "BBRR", "B", "RR", "BBRRRRRR", "B", "BRR", "B", "R", "BB", "BB", "BRBRR",
              "B", "B", "BB", "BBR", "B", "BRRBRRR", "BB", "B", "B", "BBR", "BB", "B", "BR"]
COCKROACH_PIG = ["R", "B", "R", "BRBR", "B", "RB", "BRRRBRRR", "B", "RRB", "B", "B", "RR", "BB", "BBRRR", "B",
                 "B", "BR", "BBR", "B", "RRBRRRR", "BR", "B", "R", "BRB", "BB", "B", "RR"]


def test_80_coup_shoe_big_road():
    coups = parse_coups(SHOE_80)
    assert len(coups) == 80
    road = big_road(coups)
    assert column_lengths(road) == LENGTHS
    assert [col[0].winner for col in road] == ["B", "P"] * 15
    ties = {(c, r): cell.ties for c, col in enumerate(road) for r, cell in enumerate(col) if cell.ties}
    assert ties == {(0, 0): 2, (0, 1): 1, (1, 0): 1, (3, 0): 2, (8, 0): 1, (9, 6): 1, (14, 1): 1, (16, 2): 1,
                    (20, 0): 1, (24, 0): 1, (29, 1): 1}
    n = shoe_counts(coups)
    assert (n.banker, n.player, n.tie, n.banker_pair, n.player_pair) == (37, 30, 13, 2, 3)


def test_80_coup_shoe_derived_roads():
    r = derived_roads(LENGTHS)
    assert len("".join(BIG_EYE_BOY)) == 63 and len("".join(SMALL_ROAD)) == 62 and len("".join(COCKROACH_PIG)) == 60
    assert r["big_eye_boy"] == columns("".join(BIG_EYE_BOY))
    assert r["small_road"] == columns("".join(SMALL_ROAD))
    assert r["cockroach_pig"] == columns("".join(COCKROACH_PIG))
    assert roads(SHOE_80) == r


def test_80_coup_shoe_marks_entry_by_entry():
    # the per-column hand work above, checked column by column of the big road
    for k, worked in ((1, BIG_EYE_BOY), (2, SMALL_ROAD), (3, COCKROACH_PIG)):
        first = len(LENGTHS) - len(worked)
        for c in range(first, len(LENGTHS)):
            before, upto = derived_marks(LENGTHS[:c], k), derived_marks(LENGTHS[:c + 1], k)
            assert "".join(upto[len(before):]) == worked[c - first], (k, c)


def test_80_coup_shoe_dragon_tails():
    places = dragon_tail_layout(LENGTHS)
    start = sum(LENGTHS[:9])
    assert places[start:start + 8] == [(9, 0), (9, 1), (9, 2), (9, 3), (9, 4), (9, 5), (10, 5), (11, 5)]
    assert places[start + 8] == (10, 0)  # column 10 starts above the tail
    assert places[start + 9:start + 12] == [(11, 0), (11, 1), (11, 2)]
    start = sum(LENGTHS[:22])
    assert places[start + 5:start + 7] == [(22, 5), (23, 5)]
    assert places[start + 7:start + 9] == [(23, 0), (23, 1)]


def test_next_marks_ask_banker_ask_player():
    # BB|PP: a banker next starts column 2 (row 0: lengths 2 vs 2 -> red on big eye boy; small road
    # compares column 1 with column -1: nothing). A player next is column 1 row 2: column 0 has 2
    # cells -> blue.
    ask = next_marks_for(big_road(parse_coups("BBPP")))
    assert ask["B"] == {"big_eye_boy": "R", "small_road": None, "cockroach_pig": None}
    assert ask["P"] == {"big_eye_boy": "B", "small_road": None, "cockroach_pig": None}
    assert next_marks_for(big_road(parse_coups("TT"))) == {
        w: {"big_eye_boy": None, "small_road": None, "cockroach_pig": None} for w in "BP"}
