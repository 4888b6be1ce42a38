"""Cussec embargo (004 §VII.4-5, 11): the dice are revealed nowhere — no MQTT topic, no log line at any
level — before the dome is lifted after the bell. A subscriber on '#' and the service's DEBUG log prove it."""

from __future__ import annotations

import itertools
import json
import re

from .listener import Listener
from .table_run import run_table, table_config


def patterns(faces):
    """Every way the dice could be written: JSON arrays, Python tuples/lists, a-b-c, in any order."""
    out = set()
    for perm in set(itertools.permutations(faces)):
        out |= {json.dumps(list(perm), separators=(",", ":")), json.dumps(list(perm)), str(list(perm)),
                str(tuple(perm)), "-".join(map(str, perm))}
    return out


def test_no_topic_and_no_log_line_reveals_the_dice_before_the_lift(broker, tmp_path):
    listener = Listener(broker.url, ["#"])
    config = table_config(tmp_path, "cussec", broker.url, action_seconds=0.02, betting_seconds=0.05, void_rate=0.2)
    done = run_table(config, rounds=8, timeout_s=90, log_level="DEBUG")
    assert done.returncode == 0, done.stderr[-3000:]
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 8, 20)
    messages = [(m.topic, m.payload.decode()) for m in listener.snapshot()]
    bodies = [(topic, text, json.loads(text)) for topic, text in messages]
    table = [(t, text, b) for t, text, b in bodies if b.get("table") == "sim-cussec" and "seq" in b]
    results = [b for _, _, b in table if b["type"] == "result" and not b["void"]]
    lifts = {(b["round"], b["seq"]) for _, _, b in table
             if b["type"] == "event" and b["kind"] == "dome" and b["detail"].get("step") == "lifted"}
    assert len(results) == 8
    checked = 0
    for result in results:
        rnd, faces = result["round"], result["faces"]
        lift = max(seq for r, seq in lifts if r == rnd and seq < result["seq"])  # the lift that revealed them
        bells = [b["seq"] for _, _, b in table if b["type"] == "state" and b["round"] == rnd
                 and b["phase"] == "no_more_bets"]
        assert bells and min(bells) < lift, "the dome was lifted before the bell"
        opened = min(b["seq"] for _, _, b in table if b["type"] == "event" and b["round"] == rnd
                     and b["kind"] == "bets_open")
        before = [(t, text) for t, text, b in bodies if b.get("seq", 0) < lift and b.get("table") == "sim-cussec"
                  and b.get("seq", 0) >= opened]
        before += [(t, text) for t, text, b in bodies if "seq" not in b or b.get("table") != "sim-cussec"]
        leaks = [(t, text) for t, text in before if any(p in text for p in patterns(faces))
                 and '"type":"bet' not in text]
        assert not leaks, f"round {rnd}: {faces} visible before the lift: {leaks[:2]}"
        assert not any(b["type"] == "result" and b["round"] == rnd and b["seq"] < lift for _, _, b in table)
        checked += 1
    # The log: within each round, nothing before the "dome lifted" line mentions the dice.
    log = done.stderr.splitlines()
    lifted_lines = [i for i, line in enumerate(log) if "dome lifted after the bell" in line]
    settled = {int(m.group(1)): i for i, line in enumerate(log) if (m := re.search(r"round (\d+) settled: ", line))}
    assert len(settled) == 8
    for result in results:
        rnd = result["round"]
        end = settled[rnd]
        lift = max(i for i in lifted_lines if i < end)
        start = max([i for r, i in settled.items() if r < rnd], default=-1)
        window = log[start + 1:lift]
        assert not [line for line in window if any(p in line for p in patterns(result["faces"]))], \
            f"round {rnd}: the log shows the dice before the lift"
        assert any(p in log[end] for p in patterns(result["faces"]))  # and after the lift it does say them
    assert checked == 8
    listener.close()
