"""P'ai Kao as a table end to end (seed 002, Macau 1985): a simulated bowl and dealer with betting terminals
on a real Mosquitto; the four dice pick the first seat (Art. 1.2-1.4), a bad bowl is shaken again
(Art. 1.5), every seat's tiles are entered at the console and checked (Art. 1.1, 1.4, 2.2-2.3), every seat
bet is settled once against the banker with the commission (Art. 4.2); kill -9 at every phase."""

from __future__ import annotations

from collections import Counter

import pytest

from firmware_host.rules.paikao_tiles import SET

from .listener import Listener, firsts
from .table_run import (check_bets_settled_once, journal_rows, killed_in_round_2_and_restarted, run_table,
                        table_config)

GAME, TABLE = "paikao", "sim-paikao"
FAST = {"action_seconds": 0.01, "betting_seconds": 0.03}


def test_fifty_deals_with_terminals_every_seat_settled_once_against_the_banker(broker, tmp_path):
    listener = Listener(broker.url, [f"tablehw/tables/{TABLE}/#"])
    config = table_config(tmp_path, GAME, broker.url, seed=4, void_rate=0.15, **FAST)
    done = run_table(config, rounds=50, timeout_s=400)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len([l for l in done.stdout.splitlines() if l.startswith(f"{TABLE}-")]) == 50, done.stdout[-2000:]
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 50, 30)
    storage = tmp_path / "storage"
    results = firsts(listener, "/result")
    valid = [r for r in results if not r["void"]]
    assert len({r["round"] for r in valid}) == 50
    for r in valid:
        faces, outcome = r["faces"], r["outcome"]
        assert len(faces) == 4 and all(1 <= f <= 6 for f in faces) and r["total"] == sum(faces)
        assert outcome["first_seat"] == (sum(faces) - 1) % 8  # Art. 1.2: the banker counts as one
        assert outcome["order"] == [(outcome["first_seat"] + i) % 8 for i in range(8)]
        seats = outcome["seats"]
        assert sorted(seats) == [str(s) for s in range(8)] and all(len(v["tiles"]) == 4 for v in seats.values())
        dealt = Counter(t for v in seats.values() for t in v["tiles"])
        assert dealt == Counter({str(t): n for t, n in SET.items()})  # Art. 1.1: each of the 32 once
        beat_banker = {int(s) for s, v in seats.items() if v.get("against_banker") == "player"}
        assert set(outcome["winning_seats"]) == beat_banker
    shaken_again = [r for r in results if r["void"]]
    assert shaken_again and {r["reason"] for r in shaken_again} <= {"overlapping", "off_table"}  # Art. 1.5
    assert any(r["outcome"]["seats_out"] for r in valid)  # Art. 2.3: two tiles face up put a seat out
    refused = [b for _, _, b in journal_rows(storage, "console_action") if not b["accepted"]]
    assert refused and all(b["action"] == "tiles" and "6-7" in b["message"] for b in refused)
    settled = check_bets_settled_once(storage)
    assert settled["win"] and settled["lose"]
    settlements = [s["bets"] for _, _, s in journal_rows(storage, "settlement")]
    banked = [lines for lines in settlements if any(line["bet"] == "banker" for line in lines)]
    assert banked and len(banked) < len(settlements)  # some deals with a player's capital in the bank (Art. 4.4)
    for lines in settlements:
        for w in (line for line in lines if line["bet"] == "seat" and line["result"] == "win"):
            # 19:20 (Art. 4.2); with a player's capital the bank pays while it lasts (Art. 4.5)
            assert w["paid"] == w["stake"] * 95 // 100 if lines not in banked else w["paid"] <= w["stake"] * 95 // 100
    board = firsts(listener, "/board")[-1]["board"]
    assert board["game"] == "paikao" and board["rounds"] == 50
    listener.close()


@pytest.mark.parametrize("phase, action", [
    ("betting", "resumed"), ("no_more_bets", "voided"), ("throwing", "voided"), ("dealing", "voided"),
    ("card", "voided"), ("settling", "resumed"), ("publishing", None),
])
def test_kill_9_at_each_phase_of_a_deal(broker, tmp_path, phase, action):
    """A kill -9 at every phase of round 2: betting resumes with its bets; a bowl or deal interrupted is void
    with every stake returned (dice and tiles that moved while the controller was down cannot be vouched
    for); a journalled reading is settled once; nothing accepted before the kill is lost."""
    storage = tmp_path / "storage"
    _, round2 = killed_in_round_2_and_restarted(tmp_path, GAME, broker.url, phase, **FAST)
    recovered = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "recovered"]
    if action is not None:
        assert recovered and recovered[0]["detail"]["action"] == action and recovered[0]["round"] == 2
    if action == "voided":
        assert round2["void"] and all(line["result"] == "returned" for line in round2["bets"])
