"""Bet validation: every refusal has a reason code and a message (Macau 2010 Art. 5.6, 1995 VI.10.9, VI.11.1)."""

from __future__ import annotations

import pytest

from firmware_host.rules.bets import Bet
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.errors import BetRefused, RefusalReason

from .tables import craps_table, place


def refusal(table, bet: Bet) -> BetRefused:
    before = len(table.open_bets)
    with pytest.raises(BetRefused) as refused:
        table.place(bet)
    assert len(table.open_bets) == before  # nothing accepted is lost or changed
    assert refused.value.message
    return refused.value


@pytest.mark.parametrize("bet,reason", [
    (Bet("a", "lucky_13", 100, "p1"), RefusalReason.UNKNOWN_BET),
    (Bet("a", "field", 0, "p1"), RefusalReason.BAD_STAKE),
    (Bet("a", "field", -100, "p1"), RefusalReason.BAD_STAKE),
    (Bet("a", "field", "100", "p1"), RefusalReason.BAD_STAKE),
    (Bet("a", "field", 1.5, "p1"), RefusalReason.BAD_STAKE),
    (Bet("a", "field", 150, "p1"), RefusalReason.NOT_MULTIPLE_OF_MINIMUM),
    (Bet("a", "field", 10_000_100, "p1"), RefusalReason.OVER_MAXIMUM),
    (Bet("", "field", 100, "p1"), RefusalReason.MALFORMED),
    (Bet("a", "field", 100, ""), RefusalReason.MALFORMED),
    (Bet("a", 7, 100, "p1"), RefusalReason.MALFORMED),
    (Bet("a", "field", 100, "p1", number=6), RefusalReason.MALFORMED),
    (Bet("a", "come", 100, "p1"), RefusalReason.NOT_ALLOWED_NOW),
    (Bet("a", "odds", 100, "p1", number=6), RefusalReason.NO_LINE_BET),
    (Bet("a", "odds", 100, "p1"), RefusalReason.MALFORMED),
])
def test_each_refusal_reason(bet, reason):
    assert refusal(craps_table("macau-2010"), bet).reason is reason


def test_under_minimum():
    table = craps_table("macau-2010", limits=Limits(500, 100_000))
    assert refusal(table, Bet("a", "field", 100, "p1")).reason is RefusalReason.UNDER_MINIMUM


def test_duplicate_ticket():
    table = craps_table("macau-2010")
    place(table, "field", 100)
    ticket = table.open_bets.bets[0].ticket
    assert refusal(table, Bet(ticket, "field", 100, "p2")).reason is RefusalReason.DUPLICATE_TICKET


def test_maximum_counts_the_owners_stakes_already_on_that_bet():
    table = craps_table("macau-2010", limits=Limits(100, 1000))
    place(table, "field", 800, owner="p1")
    assert refusal(table, Bet("x", "field", 300, "p1")).reason is RefusalReason.OVER_MAXIMUM
    place(table, "field", 300, owner="p2")  # another player has a maximum of their own


def test_per_bet_maximum_from_config():
    table = craps_table("macau-2010", limits=Limits(100, 100_000, {"aces": 500}))
    assert refusal(table, Bet("x", "aces", 600, "p1")).reason is RefusalReason.OVER_MAXIMUM


def test_odds_need_the_same_owners_line_bet():
    table = craps_table("macau-2010", odds_multiple=1)
    place(table, "pass", 1000, owner="alice")
    table.throw((2, 2))
    assert refusal(table, Bet("x", "odds", 500, "bob", 4)).reason is RefusalReason.NO_LINE_BET
    place(table, "odds", 500, owner="alice", number=4)


def test_odds_limit_2010_is_the_tables_multiple_of_the_line_win():
    table = craps_table("macau-2010", odds_multiple=6)  # a 3-4-5x table
    place(table, "pass", 1000)
    table.throw((3, 3))
    place(table, "odds", 5000, number=6)  # 5x on 6: wins 6000 = 6 x the line
    assert refusal(table, Bet("x", "odds", 100, "p1", 6)).reason is RefusalReason.ODDS_OVER_LIMIT


def test_odds_removal_allowed_line_removal_refused_after_point():
    table = craps_table("macau-2010", odds_multiple=2)
    line = place(table, "pass", 1000)
    table.throw((3, 3))
    odds = place(table, "odds", 1000, number=6)
    table.withdraw(odds.ticket)
    with pytest.raises(BetRefused) as refused:
        table.withdraw(line.ticket)
    assert refused.value.reason is RefusalReason.NOT_REMOVABLE


def test_void_throw_settles_nothing_and_returning_all_gives_every_stake_back():
    table = craps_table("macau-2010")
    bets = [place(table, b, 600) for b in ("pass", "field", "hard_6")]
    # A void throw never reaches the rules core: the table's bets and state are untouched.
    returned = table.return_all()
    assert sorted(o.returned for o in returned) == sorted(b.stake for b in bets)
    assert len(table.open_bets) == 0
