"""Faults end to end: kill -9 at each phase, an external kill -9, a broker outage, a corrupted journal."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time

import pytest

from .broker import MosquittoBroker
from .listener import Listener
from .table_run import (check_bets_settled_once, finish, journal_rows, outbox_rows, run_table, start_table,
                        table_config)

FAST = {"action_seconds": 0.02, "betting_seconds": 0.05}
TABLE = "tablehw/tables/sim-craps"


def first_arrivals(listener, suffix=None):
    seen, out = set(), []
    for m in listener.snapshot(suffix):
        body = m.json()
        if "seq" in body and body["seq"] not in seen:
            seen.add(body["seq"])
            out.append(body)
    return out


def check_delivery(listener, storage, table=TABLE):
    """The subscriber got every message of the outbox, first arrivals in seq order; every round's settlement once."""
    rows = outbox_rows(storage)
    assert all(sent for *_, sent in rows), "messages left unsent in the outbox"
    table_rows = [seq for seq, topic, _, _ in rows if topic.startswith(table + "/")]
    assert listener.wait_for(lambda m: len({x.json().get("seq") for x in m if "seq" in x.json()}) >= len(table_rows), 20)
    got = [b["seq"] for b in first_arrivals(listener)]
    assert got == table_rows
    settlements = first_arrivals(listener, "/settlement")
    rounds = [s["round"] for s in settlements]
    assert rounds == sorted(set(rounds)), f"a round settled twice or out of order: {rounds}"
    return settlements


EXPECTED = {  # what the restart does after a kill -9 at each phase of round 3
    "betting": ("resumed", "betting"),
    "throwing": ("voided", "throwing"),
    "reading": ("resumed", "reading"),
    "settling": ("resumed", "reading"),  # the settlement had not committed: the journalled reading is settled
    "publishing": ("between_rounds", None),
}


@pytest.mark.parametrize("phase", list(EXPECTED))
def test_kill_9_at_each_phase_settles_every_bet_once(broker, tmp_path, phase):
    listener = Listener(broker.url, [f"{TABLE}/#"], persistent=True)
    storage = tmp_path / "storage"
    crash = table_config(tmp_path, "craps", broker.url, name="crash.toml", crash_at=f"{phase}:3", **FAST)
    first = run_table(crash, rounds=10, timeout_s=90)
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    accepted_before = {b["ticket"] for _, rnd, b in journal_rows(storage, "bet_accepted") if rnd == 3}
    settled_before = {rnd for _, rnd, _ in journal_rows(storage, "settlement")}
    assert 3 not in settled_before or phase == "publishing"
    again = table_config(tmp_path, "craps", broker.url, name="again.toml", **FAST)
    second = run_table(again, rounds=3, timeout_s=90)
    assert second.returncode == 0, second.stderr[-2000:]
    results = check_bets_settled_once(storage)
    assert results["win"] + results["lose"] > 0
    action, at = EXPECTED[phase]
    recovered = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "recovered"]
    assert recovered and recovered[0]["detail"]["action"] == action
    if at:
        assert recovered[0]["detail"]["phase"] == at and recovered[0]["round"] == 3
    round3 = [b for _, rnd, b in journal_rows(storage, "settlement") if rnd == 3]
    assert len(round3) == 1
    assert accepted_before <= {line["ticket"] for line in round3[0]["bets"]}  # nothing accepted was lost
    if phase == "throwing":
        voids = [b for _, rnd, b in journal_rows(storage, "result") if rnd == 3 and b["void"]]
        assert any(v["reason"] == "service_restart" for v in voids)
    check_delivery(listener, storage)
    listener.close()


@pytest.mark.parametrize("game, phase, action", [
    ("cussec", "betting", "resumed"), ("cussec", "revealing", "resumed"), ("cussec", "reading", "resumed"),
    ("roulette", "spinning", "voided"), ("roulette", "settling", "resumed"),
])
def test_kill_9_in_other_families(broker, tmp_path, game, phase, action):
    """Cussec resumes its dome (the dice under it have not moved); an interrupted roulette spin is void and
    spun again; a journalled reading is settled once."""
    table = f"tablehw/tables/sim-{game}"
    listener = Listener(broker.url, [f"{table}/#"], persistent=True)
    storage = tmp_path / "storage"
    crash = table_config(tmp_path, game, broker.url, name="crash.toml", crash_at=f"{phase}:2", **FAST)
    first = run_table(crash, rounds=10, timeout_s=90)
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    accepted_before = {b["ticket"] for _, rnd, b in journal_rows(storage, "bet_accepted") if rnd == 2}
    again = table_config(tmp_path, game, broker.url, name="again.toml", **FAST)
    second = run_table(again, rounds=2, timeout_s=90)
    assert second.returncode == 0, second.stderr[-2000:]
    check_bets_settled_once(storage)
    recovered = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "recovered"]
    assert recovered[0]["detail"]["action"] == action and recovered[0]["round"] == 2
    (round2,) = [b for _, rnd, b in journal_rows(storage, "settlement") if rnd == 2]
    assert accepted_before <= {line["ticket"] for line in round2["bets"]}
    if action == "voided":
        assert any(b["reason"] == "service_restart" for _, rnd, b in journal_rows(storage, "result") if rnd == 2)
    check_delivery(listener, storage, table)
    listener.close()


def test_external_kill_9_mid_run(broker, tmp_path):
    """A kill -9 from outside at an arbitrary moment (whatever phase it lands in)."""
    listener = Listener(broker.url, [f"{TABLE}/#"], persistent=True)
    storage = tmp_path / "storage"
    config = table_config(tmp_path, "craps", broker.url, **FAST)
    process = start_table(config)
    try:
        assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 4, 60)
        time.sleep(0.037)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        finish(process, 30)
    second = run_table(config, rounds=3, timeout_s=90)
    assert second.returncode == 0, second.stderr[-2000:]
    check_bets_settled_once(storage)
    check_delivery(listener, storage)
    listener.close()


def test_broker_outage_mid_run_loses_nothing(tmp_path):
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        listener = Listener(broker.url, [f"{TABLE}/#"], persistent=True)
        storage = tmp_path / "storage"
        config = table_config(tmp_path, "craps", broker.url, action_seconds=0.05, betting_seconds=0.1)
        process = start_table(config, rounds=30)
        assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 3, 60)
        broker.stop()
        time.sleep(2.5)  # the table keeps playing: results pile up in the outbox
        broker.start()
        out, err = finish(process, 120)
        assert process.returncode == 0, err[-2000:]
        settlements = check_delivery(listener, storage)
        assert [s["round"] for s in settlements] == list(range(1, 31))
        raw = [m.json()["seq"] for m in listener.snapshot() if "seq" in m.json()]
        print(f"\nbroker outage: {len(set(raw))} messages, {len(raw) - len(set(raw))} raw duplicates "
              "(same seq, dropped by consumers)")
        listener.close()
    finally:
        broker.kill()


def test_corrupted_journal_locks_the_table_out(broker, tmp_path):
    storage = tmp_path / "storage"
    config = table_config(tmp_path, "craps", broker.url, **FAST)
    assert run_table(config, rounds=3, timeout_s=90).returncode == 0
    conn = sqlite3.connect(storage / "journal.sqlite")
    seq, body = conn.execute("SELECT seq, body FROM records WHERE kind = 'bet_accepted' LIMIT 1").fetchone()
    bet = json.loads(body)
    bet["stake"] *= 100  # someone "fixes" a stake in the journal
    conn.execute("UPDATE records SET body = ? WHERE seq = ?", (json.dumps(bet).encode(), seq))
    conn.commit()
    conn.close()
    before = len(outbox_rows(storage))
    locked = run_table(config, rounds=3, timeout_s=60)
    assert locked.returncode == 78
    assert "LOCKED OUT" in locked.stderr and f"record {seq}" in locked.stderr
    assert len(outbox_rows(storage)) == before  # it played nothing
    late = Listener(broker.url, [f"{TABLE}/availability"])
    assert late.wait_for(lambda m: bool(m), 10)
    status = late.snapshot()[-1].json()
    assert status["state"] == "locked" and "fails its checksum" in status["reason"]
    late.close()
