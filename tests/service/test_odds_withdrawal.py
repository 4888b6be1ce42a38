"""Odds come down any time before the decision (Portugal 1995 VI.11.1), through the round engine.

The audit's case: the engine refused every withdrawal outside betting, so odds could not come down
after "no more bets" while the dice were still in the stickman's bowl. The engine now passes a
withdrawal in that phase to the rules core, which allows odds (where the rule book says so) and
refuses every other bet; once the dice are thrown nothing comes down.
"""

from __future__ import annotations

from firmware_host.rounds.inputs import ConsoleCommand, DiceSeen, Phase, ThrowStarted

from .engine_harness import bet, feed, make_engine, request, sent

REPLIES = "tablehw/replies/term-1/t"


def withdraw(engine, ticket: str):
    body = {"schema": 1, "type": "withdraw", "ticket": ticket, "owner": "term-1"}
    return request(engine, "bets", "term-1", body, REPLIES, f"w-{ticket}".encode())


def reply(engine, ticket: str) -> dict:
    return [b for t, b in sent(engine, REPLIES) if b["ticket"] == ticket][-1]


def test_vi_11_1_odds_come_down_after_no_more_bets_other_bets_do_not(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite", rules={"odds_withdrawal": "until_decision"})
    feed(engine, bet(engine, "L", "pass", 5000))
    feed(engine, ConsoleCommand("no_more_bets", who="dealer-1"), ThrowStarted(engine.round, engine.attempt),
         DiceSeen(engine.round, engine.attempt, (2, 2), None))  # point 4
    feed(engine, bet(engine, "O", "odds", 5000, number=4), bet(engine, "P", "place_6", 10_000))
    feed(engine, ConsoleCommand("no_more_bets", who="dealer-1"))
    assert engine.phase is Phase.NO_MORE_BETS
    feed(engine, withdraw(engine, "O"), withdraw(engine, "P"), bet(engine, "X", "field", 5000))
    assert reply(engine, "O")["accepted"] is True
    assert (reply(engine, "P")["accepted"], reply(engine, "P")["reason"]) == (False, "betting_closed")
    assert reply(engine, "X")["reason"] == "betting_closed"
    feed(engine, ThrowStarted(engine.round, engine.attempt), withdraw(engine, "P"))
    assert engine.phase is Phase.THROWING and reply(engine, "P")["reason"] == "betting_closed"
