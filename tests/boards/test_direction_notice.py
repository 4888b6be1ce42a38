"""Ball direction (004 §X.15, X.16) is a supervisor matter: a valid spin after a relaunch that went the
same way as the last result is a notice on `events`, and the players' board carries no verdict on it.

The round engine on a real journal (tests/service/engine_harness.py), spins fed as the wheel reports them.
"""

from __future__ import annotations

import msgspec

from firmware_host.boards.keeper import BoardKeeper
from firmware_host.rounds.inputs import ConsoleCommand, Phase, SpinSeen
from tests.service.engine_harness import feed, make_engine, sent


def spin(engine, *spins: SpinSeen) -> None:
    feed(engine, ConsoleCommand("no_more_bets", who="dealer-1"))
    assert engine.phase is Phase.SPINNING
    feed(engine, *spins)


def notices(engine) -> list[dict]:
    return [e for _, e in sent(engine, "/events") if e["kind"] == "direction_not_alternated"]


def test_a_valid_relaunch_is_a_supervisor_notice_not_a_player_message(tmp_path):
    engine = make_engine(tmp_path / "journal.sqlite", game="roulette")
    spin(engine, SpinSeen(17, "cw", None))
    spin(engine, SpinSeen(None, "ccw", "no_spin"), SpinSeen(32, "cw", None))  # the relaunch went ccw, then cw: valid
    results = [r for _, r in sent(engine, "/result")]
    assert [(r["void"], r["number"], r["reason"]) for r in results] == [
        (False, 17, None), (True, None, "no_spin"), (False, 32, None)]
    (notice,) = notices(engine)
    assert notice["round_id"] == results[-1]["round_id"]
    assert notice["detail"] == {"direction": "cw", "attempt": 2}
    keeper = BoardKeeper("roulette", "sim-roulette")  # the board the service keeps from the same payloads
    for topic, payload in sent(engine):
        if topic.endswith(("/result", "/events")):
            keeper.apply(payload["type"], payload)
    board = msgspec.to_builtins(keeper.message("now").board)
    assert [s["direction"] for s in board["last"]] == ["cw", "cw"]
    assert "directions_alternate" not in board  # no verdict for the players' board


def test_alternating_spins_give_no_notice_and_a_true_repeat_is_a_void_spin(tmp_path):
    engine = make_engine(tmp_path / "journal.sqlite", game="roulette")
    spin(engine, SpinSeen(5, "cw", None))
    spin(engine, SpinSeen(6, "ccw", None))
    assert notices(engine) == []
    spin(engine, SpinSeen(7, "ccw", None), SpinSeen(8, "cw", None))  # launched the same way as the last spin: void (X.15)
    results = [(r["void"], r["reason"], r["number"]) for _, r in sent(engine, "/result")]
    assert results[-2:] == [(True, "direction_not_alternated", None), (False, None, 8)]
    assert notices(engine) == []


def test_the_last_result_direction_survives_a_restart(tmp_path):
    engine = make_engine(tmp_path / "journal.sqlite", game="roulette")
    spin(engine, SpinSeen(17, "cw", None))
    engine.journal.close()
    again = make_engine(tmp_path / "journal.sqlite", game="roulette")
    spin(again, SpinSeen(None, "ccw", "no_spin"), SpinSeen(3, "cw", None))
    assert [n["detail"]["direction"] for n in notices(again)] == ["cw"]
