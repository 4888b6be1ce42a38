"""Dealer console and supervisor actions, bets against the phase, in-process on a real journal."""

from __future__ import annotations

from firmware_host.rounds.inputs import ConsoleCommand, DiceSeen, DomeStep, Phase, SupervisorKey, ThrowStarted

from .engine_harness import bet, console, feed, make_engine, records, sent


def throw(engine, faces):
    feed(engine, ConsoleCommand("no_more_bets", who="dealer-1"), ThrowStarted(engine.round, engine.attempt),
         DiceSeen(engine.round, engine.attempt, faces, None))


def test_dealer_confirms_before_anything_is_settled(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite", dealer_confirms=True)
    feed(engine, bet(engine, "a", "field", 5000))
    throw(engine, (1, 2))
    assert engine.phase is Phase.CONFIRMING and not records(engine, "settlement")
    feed(engine, console(engine, "confirm", user="pit-1", who="Ana (dealer 1)"))
    (settlement,) = records(engine, "settlement")
    assert settlement["bets"][0]["result"] == "win" and engine.phase is Phase.BETTING and engine.round == 2
    action = [e for e in records(engine, "event") if e["kind"] == "dealer_action"][-1]
    assert (action["who"], action["detail"]["action"]) == ("pit-1", "confirm") and action["utc"]
    assert action["detail"]["display_name"] == "Ana (dealer 1)"  # the payload's who only adds a display name


def test_void_needs_a_reason_and_is_logged_with_who_and_why(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite", dealer_confirms=True)
    feed(engine, bet(engine, "a", "pass", 5000))
    throw(engine, (3, 4))
    feed(engine, console(engine, "void", user="pit-1"))
    refused = [r for r in records(engine, "console_action") if not r["accepted"]]
    assert refused[-1]["reason"] == "malformed"
    reply = [b for t, b in sent(engine) if t == "tablehw/replies/pit-1/pit"][-1]
    assert reply["accepted"] is False and "reason" in reply["message"]
    feed(engine, console(engine, "void", user="pit-1", why="die hit the chip rack"))
    void = [r for _, r in sent(engine, "/result") if r["void"]][-1]
    assert void["reason"] == "dealer_void" and void["faces"] is None
    event = [e for e in records(engine, "event") if e["kind"] == "void"][-1]
    assert (event["who"], event["why"]) == ("pit-1", "die hit the chip rack")
    assert engine.phase is Phase.NO_MORE_BETS and engine.attempt == 2  # re-throw, the bet stays
    assert not records(engine, "settlement") and len(engine.book) == 1


def test_supervisor_override_needs_the_key_and_records_who_when_what_why(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite", dealer_confirms=True)
    feed(engine, bet(engine, "a", "any_seven", 5000))
    throw(engine, (2, 2))  # the camera read 2-2; the supervisor sees 3-4
    override = console(engine, "override", user="sup-1", why="camera fogged", result={"faces": [3, 4]})
    feed(engine, override)
    assert [r for r in records(engine, "console_action") if not r["accepted"]][-1]["message"].startswith(
        "a result override needs the supervisor key")
    assert engine.phase is Phase.CONFIRMING
    feed(engine, console(engine, "override", user="pit-1", why="I saw a 7", result={"faces": [3, 4]}))
    assert [r for r in records(engine, "console_action") if not r["accepted"]][-1]["reason"] == "not_authorised"
    feed(engine, SupervisorKey(True, who="key-switch"), override)
    (record,) = records(engine, "supervisor_override")
    assert (record["who"], record["why"], record["result"]) == ("sup-1", "camera fogged", {"faces": [3, 4]})
    event = [e for e in records(engine, "event") if e["kind"] == "supervisor_override"][-1]
    assert (event["who"], event["why"]) == ("sup-1", "camera fogged") and event["utc"].endswith("Z")
    result = [r for _, r in sent(engine, "/result") if not r["void"]][-1]
    assert result["faces"] == [3, 4] and result["manual"] == {"who": "sup-1", "why": "camera fogged"}
    (settlement,) = records(engine, "settlement")
    assert settlement["bets"][0]["result"] == "win"  # settled on the supervisor's 7, not the camera's 4


def test_bets_refused_outside_betting_and_response_topics_kept_out_of_table_topics(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite", dealer_confirms=True)
    feed(engine, ConsoleCommand("no_more_bets", who="dealer-1"))
    feed(engine, bet(engine, "late", "field", 5000))
    feed(engine, bet(engine, "sneaky", "field", 5000, response_topic="tablehw/tables/sim-craps/result"))
    answers = {b["ticket"]: (t, b) for t, b in sent(engine) if b["type"] == "bet_response"}
    assert answers["late"][1]["reason"] == "betting_closed" and answers["late"][0] == "tablehw/replies/term-1/t"
    assert answers["sneaky"][0] == "tablehw/replies/term-1/tables/sim-craps/bets"  # not the result topic
    assert not records(engine, "bet_accepted")


def test_close_table_returns_stakes_and_stays_closed(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite")
    feed(engine, bet(engine, "a", "field", 5000), bet(engine, "b", "pass", 10000))
    feed(engine, console(engine, "close_table", why="end of session"))
    (settlement,) = records(engine, "settlement")
    assert settlement["void"] and {b["result"] for b in settlement["bets"]} == {"returned"}
    assert settlement["totals"]["returned"] == 15000
    assert engine.phase is Phase.CLOSED and engine.round == 1
    again = make_engine(tmp_path / "j.sqlite")  # a restart keeps the table closed
    assert again.phase is Phase.CLOSED and again.round == 1
    feed(again, console(again, "open_betting"))
    assert again.phase is Phase.BETTING and again.round == 2


def test_new_shooter_is_journalled_and_survives_a_restart(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite")
    feed(engine, console(engine, "new_shooter", why="shooter left"))
    assert engine.family.state_view()["shooter"] == 2
    again = make_engine(tmp_path / "j.sqlite")
    assert again.family.state_view()["shooter"] == 2


def test_cussec_override_waits_for_the_lift(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite", game="cussec")
    assert engine.phase is Phase.PREPARING
    feed(engine, DomeStep("bets_open"), DomeStep("bell"), SupervisorKey(True, who="sup-1"))
    feed(engine, console(engine, "override", why="test", result={"faces": [1, 2, 3]}))
    assert "no result to enter" in records(engine, "console_action")[-1]["message"]
    assert not any(c[0] == "read_dice" for c in engine.devices.calls)  # the camera was never asked
    feed(engine, DomeStep("released"), DomeStep("lifted"))
    assert engine.devices.calls[-1] == ("read_dice", 1, 1) and engine.phase is Phase.READING
