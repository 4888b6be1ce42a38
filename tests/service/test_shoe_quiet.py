"""Punto banco: the shoe goes quiet mid-coup → the table is held; the dealer's confirm resumes the coup
(it used to crash the engine), and a void returns every stake (004 §II: a coup that cannot be corrected is void)."""

from __future__ import annotations

from firmware_host.rounds.inputs import ConsoleCommand, Phase

from .engine_harness import bet, console, feed, make_engine, records


def quiet_shoe(engine) -> None:
    """Bets closed, dealing started, then no card within the reading timeout."""
    feed(engine, bet(engine, "a", "banker", 1000), ConsoleCommand("no_more_bets", who="dealer-1"))
    assert engine.phase is Phase.DEALING and engine.deadline is not None
    engine.deadline = engine.clock.monotonic() - 1  # the reading timeout has passed
    engine._timers()
    assert engine.phase is Phase.HELD


def test_confirm_on_a_quiet_shoe_resumes_dealing(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite", "baccarat")
    quiet_shoe(engine)
    feed(engine, console(engine, "confirm", who="dealer-1"))
    assert engine.phase is Phase.DEALING and engine.deadline is not None  # waiting for cards, timer re-armed
    assert [e for e in records(engine, "event") if e["kind"] == "dealing_resumed"]
    assert not records(engine, "settlement")


def test_void_on_a_quiet_shoe_returns_every_stake(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite", "baccarat")
    quiet_shoe(engine)
    feed(engine, console(engine, "void", who="dealer-1", why="scanner dead"))
    (settlement,) = records(engine, "settlement")
    assert all(b["result"] == "returned" for b in settlement["bets"]) and settlement["bets"]
