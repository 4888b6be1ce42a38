"""American roulette end to end (004 §IX: the French rules of §X on a single-zero wheel with the
American numbering, IX.2): a simulated table with betting terminals on a real Mosquitto, its board
showing the configured wheel order, and kill -9 at every phase of a spin."""

from __future__ import annotations


import pytest

from firmware_host.rules.roulette import AMERICAN_NUMBERING_WHEEL

from .listener import Listener, firsts
from .table_run import (check_bets_settled_once, journal_rows, killed_in_round_2_and_restarted, run_table,
                        table_config)

GAME, TABLE = "roulette_american", "sim-roulette-american"
FAST = {"action_seconds": 0.01, "betting_seconds": 0.03}


def test_fifty_spins_with_terminals_settled_once_and_the_board_shows_the_american_numbering(broker, tmp_path):
    """IX.2: the wheel's numbers in the American numbering, single zero; every valid spin 0-36 with its
    colour and alternating direction (X.15), void spins spun again (X.16); the bets the terminals placed
    over MQTT are each settled once; the board carries the wheel order from the config."""
    listener = Listener(broker.url, [f"tablehw/tables/{TABLE}/#"])
    config = table_config(tmp_path, GAME, broker.url, seed=5, void_rate=0.05, **FAST)
    done = run_table(config, rounds=50, timeout_s=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len([l for l in done.stdout.splitlines() if l.startswith(f"{TABLE}-")]) == 50, done.stdout[-2000:]
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 50, 30)
    results = firsts(listener, "/result")
    valid = [r for r in results if not r["void"]]
    assert len({r["round"] for r in valid}) == 50
    assert all(0 <= r["number"] <= 36 and r["outcome"]["colour"] in ("red", "black", "green") for r in valid)
    settled = check_bets_settled_once(tmp_path / "storage")
    assert settled["win"] and settled["lose"]
    accepted = journal_rows(tmp_path / "storage", "bet_accepted")
    assert {b["owner"] for _, _, b in accepted} >= {"term-1", "term-2", "term-3"}  # bets from the terminals
    board = firsts(listener, "/board")[-1]["board"]
    assert board["game"] == "roulette" and board["wheel"] == "american_numbering"
    assert board["wheel_order"] == list(AMERICAN_NUMBERING_WHEEL)
    assert sorted(board["wheel_order"]) == list(range(37))  # one zero (IX.2)
    assert board["spins"] == len(valid)
    listener.close()


@pytest.mark.parametrize("phase, action", [
    ("betting", "resumed"), ("no_more_bets", "voided"), ("spinning", "voided"), ("settling", "resumed"),
    ("publishing", None),
])
def test_kill_9_at_each_phase_of_a_spin(broker, tmp_path, phase, action):
    """A kill -9 at every phase of round 2: the restart resumes the round or voids the spin (the ball went
    round while nobody watched: spun again, X.16) and every bet accepted before the kill is settled once."""
    storage = tmp_path / "storage"
    killed_in_round_2_and_restarted(tmp_path, GAME, broker.url, phase, **FAST)
    recovered = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "recovered"]
    if action is not None:
        assert recovered and recovered[0]["detail"]["action"] == action and recovered[0]["round"] == 2
    if action == "voided":
        assert any(b["reason"] == "service_restart" for _, rnd, b in journal_rows(storage, "result") if rnd == 2)
