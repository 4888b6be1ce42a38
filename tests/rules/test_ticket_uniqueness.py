"""A ticket names one bet in a table's life (bets.py's contract; MQTT contract: "ticket is unique per table").

The audit's case: a field bet under ticket t1 lost on one throw; t1 was then accepted again for the
next throw, and the back office received two outcomes under one ticket. The bet book now refuses a
ticket it has accepted before, across throws, coups and spins, whether that bet was decided,
withdrawn or is still open.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.errors import BetRefused, RefusalReason
from firmware_host.rules.layout import Layout
from firmware_host.rules.roulette import Roulette
from firmware_host.rules.stakes import Limits

from .tables import banca_table, craps_table, cussec_table

LIMITS = Limits(100, 1_000_000)


def test_the_audit_case_a_decided_tickets_id_is_refused_on_the_next_throw():
    table = craps_table("macau-2010")
    table.place(Bet("t1", "field", 600, "a"))
    assert table.throw((3, 4)).outcomes()[0].result is Result.LOSE
    with pytest.raises(BetRefused) as refused:
        table.place(Bet("t1", "field", 600, "a"))
    assert refused.value.reason is RefusalReason.DUPLICATE_TICKET


def test_a_withdrawn_tickets_id_is_not_accepted_again_and_a_refused_one_may_be_retried():
    table = craps_table("macau-2010")
    table.place(Bet("t1", "field", 600, "a"))
    table.withdraw("t1")
    with pytest.raises(BetRefused):
        table.place(Bet("t1", "field", 600, "a"))
    with pytest.raises(BetRefused) as refused:
        table.place(Bet("t2", "field", 650, "a"))  # not a multiple of the minimum: nothing accepted
    assert refused.value.reason is RefusalReason.NOT_MULTIPLE_OF_MINIMUM
    table.place(Bet("t2", "field", 700, "a"))


def test_the_records_a_bet_becomes_cannot_be_named_by_a_ticket():
    with pytest.raises(BetRefused) as refused:
        craps_table("macau-2010").place(Bet("t1/insurance", "field", 600, "a"))
    assert refused.value.reason is RefusalReason.MALFORMED


def test_a_registry_shared_with_the_engine_survives_a_new_table():
    seen: set[str] = set()
    craps_table("macau-2010").place(Bet("t1", "field", 600, "a"))  # another table: its own registry
    first = Layout(Roulette("portugal-1995", "french", LIMITS), tickets_seen=seen)
    first.place(Bet("t1", "red", 600, "a"))
    again = Layout(Roulette("portugal-1995", "french", LIMITS), tickets_seen=seen)  # rebuilt after a restart
    with pytest.raises(BetRefused):
        again.place(Bet("t1", "black", 600, "a"))


DICE = {"craps": lambda: craps_table("macau-2010", limits=LIMITS), "cussec": lambda: cussec_table(limits=LIMITS),
        "banca": lambda: banca_table(limits=LIMITS)}
BETS = {"craps": ["field", "any_seven", "place_6", "hard_8", "pass", "come"], "cussec": ["small", "big", "single_3"],
        "banca": ["small", "big", "aces"]}


@st.composite
def lives(draw):
    """A table's life: rounds of bets with tickets drawn from a small pool (so ids come back), a few
    withdrawals, and the throw or spin that ends the round."""
    game = draw(st.sampled_from(["craps", "cussec", "banca", "roulette"]))
    rounds = []
    for _ in range(draw(st.integers(2, 10))):
        bets = [(draw(st.sampled_from([f"t{i}" for i in range(12)])), draw(st.sampled_from(BETS.get(game, ["red", "black", "odd"]))),
                 100 * draw(st.integers(1, 6))) for _ in range(draw(st.integers(0, 6)))]
        withdraw = draw(st.lists(st.sampled_from([f"t{i}" for i in range(12)]), max_size=2))
        n = 2 if game == "craps" else 3
        result = draw(st.integers(0, 36)) if game == "roulette" else tuple(draw(st.lists(st.integers(1, 6), min_size=n, max_size=n)))
        rounds.append((bets, withdraw, result))
    return game, rounds


@settings(max_examples=150)
@given(lives())
def test_a_ticket_is_accepted_once_in_a_tables_life_and_has_one_final_outcome(life):
    game, rounds = life
    dice = game in DICE
    table = DICE[game]() if dice else Layout(Roulette("portugal-1995", "french", LIMITS))
    accepted, final = [], []
    for bets, withdraw, result in rounds:
        for ticket, kind, stake in bets:
            seen_before = ticket in accepted
            try:
                table.place(Bet(ticket, kind, stake, "a"))
                accepted.append(ticket)
            except BetRefused as refused:
                if seen_before:
                    assert refused.reason is RefusalReason.DUPLICATE_TICKET
            assert not (seen_before and accepted.count(ticket) > 1)
        for ticket in withdraw:
            try:
                final.append(table.withdraw(ticket))
            except BetRefused:
                pass
        outcomes = table.throw(result).outcomes() if dice else table.game.settle(result, table.bets)
        if not dice:
            table.bets = []
        final.extend(o for o in outcomes if o.result is not Result.STAY)
    assert len(accepted) == len(set(accepted))
    tickets = [o.bet.ticket for o in final]
    assert len(tickets) == len(set(tickets)) and set(tickets) <= set(accepted)
