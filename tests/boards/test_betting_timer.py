"""What a board needs to count down: `state` says when the betting timer closes betting (UTC) and the
table's betting time, from the round engine's own timer (a stepped clock here: no waiting)."""

from __future__ import annotations

import msgspec

from firmware_host.clock import utc_after, utc_text
from firmware_host.config import load_config
from firmware_host.journal import Journal
from firmware_host.mqtt.contract import Topics
from firmware_host.rounds import recovery
from firmware_host.rounds.engine import RoundEngine
from firmware_host.rounds.inputs import ConsoleCommand, DomeStep, Phase
from firmware_host.rounds.setup import engine_settings, family_factory
from tests.service.engine_harness import ROOT, RecordingDevices, feed, sent

START = 1_767_225_600.0  # 2026-01-01T00:00:00Z


class SteppedClock:
    """UTC and monotonic time that move only when told to, together."""

    def __init__(self) -> None:
        self.elapsed = 0.0

    def utc(self) -> str:
        return utc_text(START + self.elapsed)

    def monotonic(self) -> float:
        return 1000.0 + self.elapsed


def engine_on(tmp_path, game: str, clock: SteppedClock, **table) -> RoundEngine:
    source = str(ROOT / "config" / f"sim-{game}.toml")
    config = load_config(source)
    config = msgspec.structs.replace(config, table=msgspec.structs.replace(config.table, **table))
    journal = Journal.open(tmp_path / "journal.sqlite", clock=clock)
    engine = RoundEngine(engine_settings(config), journal, Topics("tablehw", config.table.id),
                         family_factory(config, source), RecordingDevices())
    recovery.start(engine)
    return engine


def states(engine: RoundEngine) -> list[dict]:
    return [s for _, s in sent(engine, "/state")]


def test_utc_after():
    assert utc_after("2025-05-01T20:14:03.120Z", 20) == "2025-05-01T20:14:23.120Z"
    assert utc_after("2025-12-31T23:59:59.900Z", 0.25) == "2026-01-01T00:00:00.150Z"


def test_state_says_when_the_timer_closes_betting_and_the_betting_time(tmp_path):
    clock = SteppedClock()
    engine = engine_on(tmp_path, "roulette", clock, betting_seconds=20.0)
    opened = states(engine)[-1]
    assert (opened["phase"], opened["betting_open"], opened["betting_seconds"]) == ("betting", True, 20.0)
    assert opened["betting_closes"] == utc_after(opened["utc"], 20) == "2026-01-01T00:00:20.000Z"
    clock.elapsed = 7.5  # another state in the same betting time names the same moment
    with engine.journal.transaction() as txn:
        engine.publish_state(txn)
    assert states(engine)[-1]["betting_closes"] == "2026-01-01T00:00:20.000Z"
    clock.elapsed = 20.0
    engine._timers()  # the engine's loop: the deadline passed, the timer closes betting
    closed = states(engine)
    assert [s["phase"] for s in closed[-2:]] == ["no_more_bets", "spinning"]
    assert all(s["betting_closes"] is None and s["betting_open"] is False for s in closed[-2:])


def test_no_countdown_when_only_the_dealer_closes_betting(tmp_path):
    clock = SteppedClock()
    engine = engine_on(tmp_path, "craps", clock, betting_seconds=0.0)
    opened = states(engine)[-1]
    assert (opened["phase"], opened["betting_closes"], opened["betting_seconds"]) == ("betting", None, 0.0)
    feed(engine, ConsoleCommand("no_more_bets", who="dealer-1"))
    assert engine.phase is not Phase.BETTING


def test_cussec_betting_is_closed_by_the_bell_not_a_timer(tmp_path):
    clock = SteppedClock()
    engine = engine_on(tmp_path, "cussec", clock, betting_seconds=20.0)
    feed(engine, DomeStep("bets_open"))  # the dome is covered and shaken: bets open until the bell
    opened = states(engine)[-1]
    assert (opened["phase"], opened["betting_open"]) == ("betting", True)
    assert (opened["betting_closes"], opened["betting_seconds"]) == (None, 0.0)


def test_a_restart_in_betting_counts_down_again_from_the_full_time(tmp_path):
    clock = SteppedClock()
    engine = engine_on(tmp_path, "roulette", clock, betting_seconds=20.0)
    engine.journal.close()
    clock.elapsed = 100.0
    again = engine_on(tmp_path, "roulette", clock, betting_seconds=20.0)
    resumed = states(again)[-1]
    assert resumed["phase"] == "betting"
    assert resumed["betting_closes"] == utc_after(resumed["utc"], 20) == "2026-01-01T00:02:00.000Z"
