"""Roulette, Portugal 1995 chapters IX (American) and X (French) (seed 004): one test per article.

Published figure: ../shared/oracles/PUBLISHED.md, "Roulette, single zero": every bet 1/37.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.errors import BetRefused, RefusalReason, RulebookError
from firmware_host.rules.layout import Layout
from firmware_host.rules.roulette import (AMERICAN_NUMBERING_WHEEL, CHANCES, FRENCH_WHEEL, LAYOUT, RED,
                                          BadSpin, Roulette, RouletteBet, spin_view)

LIMITS = Limits(100, 10_000_000)


def game(wheel: str = "french", **options) -> Roulette:
    return Roulette("portugal-1995", wheel, options.pop("limits", LIMITS), **options)


def bet(kind: str, stake: int = 100, number: int | None = None, numbers: tuple[int, ...] = (), ticket: str = "t") -> RouletteBet:
    return RouletteBet(ticket, kind, stake, "p", number, numbers)


def test_ix_2_x_2_single_zero_wheels_as_data():
    for wheel in (FRENCH_WHEEL, AMERICAN_NUMBERING_WHEEL):
        assert sorted(wheel) == list(range(37))
    assert FRENCH_WHEEL[:5] == (0, 32, 15, 19, 4) and FRENCH_WHEEL[-1] == 26  # X.9 clockwise
    assert AMERICAN_NUMBERING_WHEEL[:4] == (2, 14, 35, 23) and AMERICAN_NUMBERING_WHEEL[-1] == 0  # IX.2
    assert game("american_numbering").neighbours(0, 1) == [28, 0, 2]
    with pytest.raises(RulebookError):
        game("double_zero")


def test_x_7_8_colours_alternate_red_and_black_zero_has_none():
    assert len(RED) == 18
    colours = ["red" if n in RED else "black" for n in FRENCH_WHEEL[1:]]
    assert all(a != b for a, b in zip(colours, colours[1:]))
    assert spin_view(0) == {"number": 0, "colour": "green"}
    assert spin_view(32)["colour"] == "red"


def test_x_18_every_chance_and_its_size():
    assert {b: c.size for b, c in CHANCES.items()} == {
        "straight": 1, "split": 2, "street": 3, "corner": 4, "six_line": 6, "dozen": 12, "column": 12,
        "two_dozens": 24, "two_columns": 24, "red": 18, "black": 18, "even": 18, "odd": 18, "low": 18, "high": 18}
    assert {k: len(v) for k, v in LAYOUT.items()} == {"straight": 37, "split": 60, "street": 14, "corner": 23, "six_line": 11}


@pytest.mark.parametrize("kind,numbers,ok", [
    ("split", (17, 20), True), ("split", (17, 18), True), ("split", (0, 3), True), ("split", (3, 4), False),
    ("split", (17, 21), False), ("split", (0, 4), False), ("split", (17,), False), ("split", (36, 37), False),
    ("street", (4, 5, 6), True), ("street", (0, 1, 2), True), ("street", (3, 4, 5), False),
    ("corner", (1, 2, 4, 5), True), ("corner", (0, 1, 2, 3), True), ("corner", (3, 4, 6, 7), False),
    ("six_line", (31, 32, 33, 34, 35, 36), True), ("six_line", (2, 3, 4, 5, 6, 7), False),
    ("two_dozens", (1, 2), True), ("two_dozens", (2, 3), True), ("two_dozens", (1, 3), False),
    ("two_columns", (3, 2), True), ("two_columns", (1, 3), False),
])
def test_x_18_bet_validation_names_the_shape(kind, numbers, ok):
    layout = Layout(game())
    if ok:
        layout.place(bet(kind, numbers=numbers))
    else:
        with pytest.raises(BetRefused) as err:
            layout.place(bet(kind, numbers=numbers))
        assert err.value.reason is RefusalReason.NOT_ON_LAYOUT
        assert kind in err.value.message


def test_x_18_malformed_bets_are_refused_with_a_reason():
    layout = Layout(game())
    cases = [(bet("red", number=3), RefusalReason.MALFORMED), (bet("dozen", number=4), RefusalReason.NOT_ON_LAYOUT),
             (bet("straight", number=37), RefusalReason.NOT_ON_LAYOUT), (bet("basket", numbers=(0, 1, 2, 3)), RefusalReason.UNKNOWN_BET),
             (bet("split", numbers=(17, 17)), RefusalReason.NOT_ON_LAYOUT)]
    for b, reason in cases:
        with pytest.raises(BetRefused) as err:
            layout.place(b)
        assert err.value.reason is reason, b


PRIZES = {"straight": F(35), "split": F(17), "street": F(11), "corner": F(8), "six_line": F(5), "dozen": F(2),
          "column": F(2), "two_dozens": F(1, 2), "two_columns": F(1, 2), "red": F(1), "black": F(1), "even": F(1),
          "odd": F(1), "low": F(1), "high": F(1)}


def test_x_20_prizes():
    assert {b: c.pays for b, c in CHANCES.items()} == PRIZES
    g = game()
    placed = [bet("straight", 100, 5, ticket="a"), bet("split", 100, numbers=(5, 8), ticket="b"),
              bet("street", 100, numbers=(4, 5, 6), ticket="c"), bet("corner", 100, numbers=(4, 5, 7, 8), ticket="d"),
              bet("six_line", 100, numbers=(1, 2, 3, 4, 5, 6), ticket="e"), bet("dozen", 100, 1, ticket="f"),
              bet("column", 100, 2, ticket="g"), bet("two_dozens", 200, numbers=(1, 2), ticket="h"),
              bet("two_columns", 200, numbers=(1, 2), ticket="i"), bet("red", 100, ticket="j"), bet("odd", 100, ticket="k"),
              bet("low", 100, ticket="l")]
    paid = {o.bet.ticket: o.paid for o in g.settle(5, placed)}
    assert paid == {"a": 3500, "b": 1700, "c": 1100, "d": 800, "e": 500, "f": 200, "g": 200, "h": 100, "i": 100,
                    "j": 100, "k": 100, "l": 100}


def test_x_20_two_dozens_pay_half_the_stake_with_breakage_recorded():
    out = game().settle(1, [bet("two_dozens", 300, numbers=(1, 2))])[0]
    assert (out.paid, out.breakage, out.returned) == (150, 0, 300)
    odd = game(limits=Limits(1, 1000)).settle(1, [bet("two_dozens", 3, numbers=(1, 2))])[0]
    assert odd.paid == 1 and odd.breakage == F(1, 2)


def test_x_21_zero_loses_even_chances_dozens_columns_and_their_two_way_bets():
    placed = [bet(k, 200, number=1 if k in ("dozen", "column") else None,
                  numbers=(1, 2) if k.startswith("two_") else (), ticket=k)
              for k in ("red", "black", "even", "odd", "low", "high", "dozen", "column", "two_dozens", "two_columns")]
    placed.append(bet("split", 100, numbers=(0, 1), ticket="zero-split"))
    out = {o.bet.ticket: o for o in game().settle(0, placed)}
    assert all(out[k].result is Result.LOSE and out[k].kept == out[k].bet.stake for k in out if k != "zero-split")
    assert out["zero-split"].paid == 1700  # no "en prison": nothing is half-returned


def test_x_22_payment_order():
    placed = [bet("straight", 100, 1, ticket="s"), bet("red", 100, ticket="r"), bet("column", 100, 1, ticket="c"),
              bet("split", 100, numbers=(1, 2), ticket="sp"), bet("dozen", 100, 1, ticket="d"),
              bet("six_line", 100, numbers=(1, 2, 3, 4, 5, 6), ticket="l"), bet("street", 100, numbers=(1, 2, 3), ticket="st"),
              bet("corner", 100, numbers=(1, 2, 4, 5), ticket="co"), bet("two_columns", 200, numbers=(1, 2), ticket="tc"),
              bet("two_dozens", 200, numbers=(1, 2), ticket="td")]
    order = [o.bet.ticket for o in game().settle(1, placed)]
    assert order == ["c", "tc", "d", "td", "r", "l", "st", "co", "sp", "s"]


@pytest.mark.parametrize("kind,ratio", [("straight", 10), ("split", 20), ("street", 30), ("six_line", 60),
                                        ("dozen", 120), ("column", 120), ("red", 180), ("two_dozens", 240),
                                        ("two_columns", 240), ("corner", 40)])
def test_x_27_maximum_is_a_ratio_of_the_minimum(kind, ratio):
    g = game()
    assert g.maximum_for(kind) == ratio * 100
    numbers = {"split": (1, 2), "street": (1, 2, 3), "six_line": (1, 2, 3, 4, 5, 6), "corner": (1, 2, 4, 5),
               "two_dozens": (1, 2), "two_columns": (1, 2)}.get(kind, ())
    number = 1 if kind in ("straight", "dozen", "column") else None
    layout = Layout(g)
    layout.place(bet(kind, ratio * 100, number, numbers, ticket="max"))
    with pytest.raises(BetRefused) as err:
        layout.place(bet(kind, 100, number, numbers, ticket="more"))
    assert err.value.reason is RefusalReason.OVER_MAXIMUM


def test_x_27_stakes_need_not_be_multiples_of_the_minimum():
    """Chapters IX and X fix a minimum and maxima, never a multiple of the minimum: red 700 at a 500
    minimum is accepted (and pays 700)."""
    layout = Layout(game(limits=Limits(500, 1_000_000)))
    layout.place(bet("red", 700))
    assert layout.game.settle(1, layout.bets)[0].paid == 700


def test_x_27_corner_ratio_is_a_table_setting():
    assert game(corner_max_ratio=50).maximum_for("corner") == 5000


def test_published_every_bet_one_in_thirty_seven():
    # ../shared/oracles/PUBLISHED.md, "Roulette, single zero": every bet 1/37, two dozens / columns included.
    rows = game().edge_rows()
    assert len(rows) == 15 and all(r.edge == F(1, 37) for r in rows)


def test_spin_must_be_a_number_of_the_wheel():
    with pytest.raises(BadSpin):
        game().settle(37, [])


def test_plain_bet_with_a_number_is_a_straight():
    out = game().settle(17, [Bet("a", "straight", 100, "p", 17)])[0]
    assert out.paid == 3500
