"""End to end: `tablehw run --simulate` against a real Mosquitto, seen by a subscriber on '#'."""

from __future__ import annotations

import json
import subprocess

import pytest

from .listener import Listener, request
from .table_run import ROOT, TABLEHW, check_bets_settled_once, journal_rows, run_table, table_config


def table_messages(listener, table):
    """First arrival of every message the table published through its outbox (it carries `seq`)."""
    seen, out = set(), []
    for m in listener.snapshot():
        if not m.topic.startswith(f"tablehw/tables/{table}/") and "/replies/" not in m.topic:
            continue
        body = m.json()
        if body.get("table") != table or "seq" not in body or body["seq"] in seen:
            continue
        seen.add(body["seq"])
        out.append((m.topic, body))
    return out


def check_run(listener, table, rounds):
    got = table_messages(listener, table)
    seqs = [body["seq"] for _, body in got]
    assert seqs == list(range(1, len(seqs) + 1)), "messages missing or out of order"
    results = [b for t, b in got if t.endswith("/result")]
    settlements = [b for t, b in got if t.endswith("/settlement")]
    valid = [r for r in results if not r["void"]]
    assert [s["round"] for s in settlements] == list(range(1, rounds + 1))
    assert [r["round"] for r in valid] == [s["round"] for s in settlements if not s["void"]]
    for s in settlements:  # money is conserved on every bet and the totals add up
        assert s["totals"]["staked"] == sum(b["stake"] for b in s["bets"])
        for b in s["bets"]:
            if b["result"] == "stay":
                assert b["paid"] == b["returned"] == b["kept"] == 0
            else:
                assert b["returned"] + b["kept"] <= b["stake"] and b["paid"] >= 0
    answers = [b for t, b in got if b.get("type") == "bet_response"]
    refused = {b["reason"] for b in answers if not b["accepted"]}
    assert any(b["accepted"] for b in answers)
    assert "betting_closed" in refused  # the late bet after "no more bets"
    return got


GAMES = {  # game -> (table id, what every valid result must show)
    "craps": ("sim-craps", lambda r: len(r["faces"]) == 2 and r["total"] == sum(r["faces"])
              and "point_after" in r["outcome"]),
    "cussec": ("sim-cussec", lambda r: len(r["faces"]) == 3 and r["total"] == sum(r["faces"])),
    "banca_francesa": ("sim-banca-francesa", lambda r: len(r["faces"]) == 3 and r["total"] == sum(r["faces"])
                       and "chance" in r["outcome"]),
    "roulette": ("sim-roulette", lambda r: 0 <= r["number"] <= 36 and r["outcome"]["colour"] in ("red", "black", "green")
                 and r["outcome"]["direction"] in ("cw", "ccw")),
    "baccarat": ("sim-baccarat", lambda r: 2 <= len(r["cards"]["player"]) <= 3 and 2 <= len(r["cards"]["banker"]) <= 3
                 and r["outcome"]["winner"] in ("banker", "player", "tie")),
}


@pytest.mark.parametrize("game", list(GAMES))
def test_rounds_end_to_end(broker, tmp_path, game):
    """N rounds: every result in sequence with its settlement, refusals with reasons, boards, recall."""
    table, result_ok = GAMES[game]
    listener = Listener(broker.url, ["#"])
    config = table_config(tmp_path, game, broker.url, action_seconds=0.1, betting_seconds=0.05)
    done = run_table(config, rounds=8, timeout_s=90)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [l for l in done.stdout.splitlines() if l.startswith(f"{table}-")]
    assert len(lines) == 8, done.stdout
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 8, 20)
    got = check_run(listener, table, 8)
    phases = {b["phase"] for t, b in got if t.endswith("/state")}
    assert {"betting", "no_more_bets", "reading"} <= phases
    valid = [b for t, b in got if t.endswith("/result") and not b["void"]]
    assert valid and all(result_ok(r) for r in valid)
    assert all(r["evidence"]["ref"].startswith("evidence/") for r in valid)
    check_bets_settled_once(tmp_path / "storage")
    board = [m for m in listener.snapshot() if m.topic.endswith("/board")]
    assert board and json.loads(board[-1].payload)["board"]["game"] == {"baccarat": "baccarat"}.get(game, game)
    avail = [m for m in listener.snapshot() if m.topic.endswith("/availability")]
    assert [json.loads(m.payload)["state"] for m in avail][-1] == "offline"  # a clean stop says so itself
    listener.close()
    recalled = subprocess.run([*TABLEHW, "recall", "--config", str(config), "--last", "5", "--json"],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert recalled.returncode == 0, recalled.stderr
    rounds = json.loads(recalled.stdout)
    assert [r["round"] for r in rounds] == [8, 7, 6, 5, 4]
    assert all(r["settlement"]["round"] == r["round"] and r["results"] for r in rounds)


def test_bets_and_recall_over_mqtt_while_running(broker, tmp_path):
    """A terminal's own bets are answered on its response topic; recall answers over MQTT."""
    import subprocess as sp
    import time

    from .table_run import start_table, stop_table

    config = table_config(tmp_path, "craps", broker.url, action_seconds=0.3, betting_seconds=2.0, bets_per_round=0)
    process = start_table(config)
    try:
        watcher = Listener(broker.url, ["tablehw/tables/sim-craps/state"])
        assert watcher.wait_for(lambda m: any(x.json()["phase"] == "betting" for x in m), 30)
        bets = "tablehw/tables/sim-craps/bets/term-4"
        ok = request(broker.url, bets, {"schema": 1, "type": "bet", "ticket": "own-1", "owner": "term-4-guest",
                                        "bet": "field", "stake": 5000})
        assert ok["accepted"] is True and ok["ticket"] == "own-1"
        again = request(broker.url, bets, {"schema": 1, "type": "bet", "ticket": "own-1", "owner": "term-4-guest",
                                           "bet": "field", "stake": 5000})
        assert again["accepted"] is True and again["repeated"] is True  # idempotent re-send
        low = request(broker.url, bets, {"schema": 1, "type": "bet", "ticket": "own-2", "owner": "term-4",
                                         "bet": "field", "stake": 100})
        assert (low["accepted"], low["reason"]) == (False, "under_minimum")
        junk = request(broker.url, bets, {"type": "bet", "ticket": "x"})
        assert (junk["accepted"], junk["reason"]) == (False, "bad_request")
        assert watcher.wait_for(lambda m: any(x.json()["round"] >= 2 for x in m), 30)
        recall = request(broker.url, "tablehw/tables/sim-craps/recall/backoffice",
                         {"schema": 1, "type": "recall", "last": 3})
        assert recall["type"] == "recall_response" and recall["rounds"][0]["round"] >= 1
        first = [r for r in recall["rounds"] if r["round"] == 1][0]
        assert any(b["ticket"] == "own-1" for b in first["settlement"]["bets"])
        watcher.close()
    finally:
        stop_table(process)
    assert process.returncode == 0


def test_back_office_instances_split_settlements_with_a_shared_subscription(broker, tmp_path):
    """Two back-office instances in one `$share` group: each gets part, together every settlement once."""
    group = "$share/backoffice/tablehw/tables/+/settlement"
    first, second = Listener(broker.url, [group]), Listener(broker.url, [group])
    config = table_config(tmp_path, "craps", broker.url, action_seconds=0.02, betting_seconds=0.05)
    done = run_table(config, rounds=10, timeout_s=90)
    assert done.returncode == 0, done.stderr[-2000:]
    assert first.wait_for(lambda m: len(m) + len(second.snapshot()) >= 10, 20)
    rounds_a = {m.json()["round"] for m in first.snapshot()}
    rounds_b = {m.json()["round"] for m in second.snapshot()}
    assert rounds_a and rounds_b and not rounds_a & rounds_b
    assert rounds_a | rounds_b == set(range(1, 11))
    first.close(), second.close()
