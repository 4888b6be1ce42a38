"""Settlement properties (hypothesis): no losing bet is paid, money is conserved, bet order does not matter."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.dice_game import DiceTable, Limits
from firmware_host.rules.errors import BetRefused
from firmware_host.rules.money import RoundingMode, RoundingRule

from .tables import banca_table, craps_table, cussec_table

LIMITS = Limits(100, 1_000_000)
POINTS = (4, 5, 6, 8, 9, 10)


def make_table(game: str, unit: int, mode: RoundingMode) -> DiceTable:
    rounding = RoundingRule(unit, mode)
    if game.startswith("craps:"):
        return craps_table(game.split(":")[1], limits=LIMITS, rounding=rounding, odds_multiple=6)
    if game == "cussec":
        return cussec_table(limits=LIMITS, rounding=rounding)
    return banca_table(limits=LIMITS, rounding=rounding)


GAMES = st.sampled_from(["craps:macau-2010", "craps:macau-1985", "craps:portugal-1995", "cussec", "banca"])


@st.composite
def sessions(draw):
    game = draw(GAMES)
    table = make_table(game, 1, RoundingMode.DOWN)
    n_dice = table.game.n_dice
    bet_ids = table.game.table.bet_ids
    steps = []
    for step in range(draw(st.integers(1, 12))):
        bets = []
        for i in range(draw(st.integers(0, 6))):
            bet = draw(st.sampled_from(bet_ids))
            number = draw(st.sampled_from(POINTS)) if bet in ("odds", "dont_odds") else None
            stake = 100 * draw(st.integers(1, 40))
            owner = draw(st.sampled_from(["a", "b", "c"]))
            bets.append(Bet(f"s{step}b{i}", bet, stake, owner, number))
        faces = tuple(draw(st.lists(st.integers(1, 6), min_size=n_dice, max_size=n_dice)))
        steps.append((bets, faces))
    unit = draw(st.sampled_from([1, 100, 500]))
    mode = draw(st.sampled_from(list(RoundingMode)))
    return game, unit, mode, steps


def play(game, unit, mode, steps, reorder=lambda bets: bets):
    table = make_table(game, unit, mode)
    placed, outcomes = [], []
    for bets, faces in steps:
        for bet in reorder(bets):
            try:
                table.place(bet)
                placed.append(bet)
            except BetRefused:
                pass
        outcomes.extend(table.throw(faces).outcomes())
    return table, placed, outcomes


@settings(max_examples=300)
@given(sessions())
def test_a_losing_or_pushed_bet_is_never_paid(session):
    _, _, outcomes = play(*session)
    for o in outcomes:
        if o.result is not Result.WIN:
            assert o.paid == 0 and o.breakage == 0
        if o.result is Result.LOSE:
            assert o.kept > 0


@settings(max_examples=300)
@given(sessions())
def test_money_is_conserved(session):
    game, unit, mode, _ = session
    table, placed, outcomes = play(*session)
    staked = sum(b.stake for b in placed)
    decided = [o for o in outcomes if o.result is not Result.STAY]
    on_layout = sum(b.stake for b in table.open_bets.bets)
    # every minor unit staked is returned, kept by the house or still on the layout
    assert staked == sum(o.returned + o.kept for o in decided) + on_layout
    for o in decided:
        assert o.returned + o.kept == o.bet.stake
        exact = o.paid + o.breakage
        assert exact >= 0 and o.paid % unit == 0
        if mode is RoundingMode.DOWN:
            assert 0 <= o.breakage < unit
        else:
            assert abs(o.breakage) <= Fraction(unit, 2)


@settings(max_examples=200)
@given(sessions(), st.randoms(use_true_random=False))
def test_settlement_does_not_depend_on_bet_order(session, rnd):
    """Limits bind on the order bets arrive (aces 100 then 600 against a maximum of 600 accepts the
    100; 600 then 100 accepts the 600), so the property is about the bets a table accepted: placed
    again in any other order they are all accepted (every limit is on a total, and a total only
    grows) and settle exactly as before. Odds come after the line bets they back in both runs."""
    game, unit, mode, steps = session
    _, placed, out_a = play(*session)
    accepted = {b.ticket for b in placed}

    def shuffled(bets):
        bets = [b for b in bets if b.ticket in accepted]
        rnd.shuffle(bets)
        return [b for b in bets if b.bet not in ("odds", "dont_odds")] + \
               [b for b in bets if b.bet in ("odds", "dont_odds")]

    _, placed_b, out_b = play(game, unit, mode, steps, reorder=shuffled)
    assert {b.ticket for b in placed_b} == accepted
    assert sorted((o.bet.ticket, o.result, o.paid, o.returned, o.kept, o.breakage) for o in out_a) == \
           sorted((o.bet.ticket, o.result, o.paid, o.returned, o.kept, o.breakage) for o in out_b)
