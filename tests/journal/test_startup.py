"""The real service against a real Mosquitto: the anchor check at start-up, keys, a deleted WAL, a new epoch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import paho.mqtt.client as mqtt

from ..service.broker import MosquittoBroker
from ..service.listener import Listener
from ..service.table_run import ROOT, TABLEHW, finish, run_table, start_table, table_config

FAST = {"action_seconds": 0.02, "betting_seconds": 0.05}
TABLE = "tablehw/tables/sim-craps"
ANCHOR = "tablehw/ledger/anchors/sim-craps"


def config(tmp_path, url, name="table.toml", **storage):
    return table_config(tmp_path, "craps", url, name=name, sections={"storage": storage} if storage else None, **FAST)


def retain(url: str, topic: str, payload: bytes) -> None:
    """Publish a retained message (QoS 1) and wait for the broker's PUBACK."""
    host, port = url.removeprefix("mqtt://").split(":")
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(host, int(port))
    client.loop_start()
    client.publish(topic, payload, qos=1, retain=True).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()


def locked_reason(url: str) -> dict:
    late = Listener(url, [f"{TABLE}/availability"])
    assert late.wait_for(lambda m: bool(m), 10)
    status = late.snapshot()[-1].json()
    late.close()
    return status


def assert_locked(done: subprocess.CompletedProcess, status: int, words: str) -> None:
    assert done.returncode == status, done.stderr[-3000:]
    assert "LOCKED OUT" in done.stderr and words in done.stderr, done.stderr[-3000:]
    assert "Traceback" not in done.stderr


def test_binary_and_hex_keys_work_and_a_wrong_key_locks_out(broker, tmp_path):
    key = tmp_path / "craps.key"
    key.write_bytes(os.urandom(32))  # exactly what `head -c 32 /dev/urandom` writes
    table = config(tmp_path, broker.url, journal_key_file=str(key))
    done = run_table(table, rounds=2)
    assert done.returncode == 0, done.stderr[-3000:]
    recall = subprocess.run([*TABLEHW, "recall", "--config", str(table), "--last", "2"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert recall.returncode == 0 and "round sim-craps-00000002" in recall.stdout, recall.stderr
    hex_key = tmp_path / "craps.hex"
    hex_key.write_text(key.read_bytes().hex() + "\n")  # `openssl rand -hex 32`, the same key as text
    assert run_table(config(tmp_path, broker.url, "hex.toml", journal_key_file=str(hex_key)), rounds=1).returncode == 0
    key.write_bytes(os.urandom(32))
    assert_locked(run_table(table, rounds=1, timeout_s=60), 78, "wrong journal key")
    assert "wrong journal key" in locked_reason(broker.url)["reason"]


def test_deleted_journal_is_refused_when_the_table_had_published(broker, tmp_path):
    table = config(tmp_path, broker.url)
    assert run_table(table, rounds=2).returncode == 0
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / "storage" / f"journal.sqlite{suffix}").unlink(missing_ok=True)
    listener = Listener(broker.url, [f"{TABLE}/result"])
    done = run_table(table, rounds=1, timeout_s=60)
    assert_locked(done, 78, "there was no journal at start, but the broker's retained state")
    assert not [m for m in listener.snapshot() if not m.retained]  # the fresh journal's round 1 never left
    listener.close()


def test_wal_deleted_after_kill_9_is_caught_by_the_anchor(broker, tmp_path):
    """Committed rounds live in the -wal file until a checkpoint: kill -9, delete it, and the journal is
    consistent but behind what the broker holds (undetectable locally: stated)."""
    table = config(tmp_path, broker.url)
    assert run_table(table, rounds=2).returncode == 0  # a clean stop folds the WAL into the file
    listener = Listener(broker.url, [f"{TABLE}/state"])
    process = start_table(table)
    try:
        assert listener.wait_for(lambda m: any(x.json()["round"] >= 5 for x in m), 90)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        finish(process, 30)
        listener.close()
    (tmp_path / "storage" / "journal.sqlite-wal").unlink()
    done = run_table(table, rounds=1, timeout_s=60)
    assert_locked(done, 78, "rolled back, truncated or lost committed writes")


def test_ledger_anchor_ahead_of_the_journal_locks_out(broker, tmp_path):
    table = config(tmp_path, broker.url)
    assert run_table(table, rounds=2).returncode == 0
    state = Listener(broker.url, [f"{TABLE}/state"])
    assert state.wait_for(lambda m: bool(m), 10)
    current = state.snapshot()[-1].json()
    state.close()
    anchor = {"schema": 1, "type": "anchor", "table": "sim-craps", "epoch": current["epoch"], "seq": current["seq"] + 40,
              "records": current["journal"]["records"] + 90, "head": "ab" * 32, "round": current["round"] + 3,
              "utc": current["utc"]}
    retain(broker.url, ANCHOR, json.dumps(anchor).encode())
    assert_locked(run_table(table, rounds=1, timeout_s=60), 78, "the ledger's anchor")


def test_new_epoch_reopens_and_continues_rounds_after_the_anchor(broker, tmp_path):
    """After a lock-out a supervisor starts a new epoch: journalled who/why; rounds go on after the highest
    round published, with a new epoch on every payload (consumers de-duplicate by table, epoch, seq)."""
    table = config(tmp_path, broker.url)
    assert run_table(table, rounds=3).returncode == 0
    storage = tmp_path / "storage"
    (storage / "journal.sqlite").write_bytes(b"")
    assert run_table(table, rounds=1, timeout_s=60).returncode == 78
    epoch = subprocess.run([*TABLEHW, "journal", "new-epoch", "--config", str(table), "--who", "sup-2",
                            "--why", "journal zeroed; inspector has the old file"], cwd=ROOT, capture_output=True,
                           text=True, timeout=60)
    assert epoch.returncode == 0, epoch.stderr
    assert "rounds continue after 3" in epoch.stdout  # the anchor's round
    listener = Listener(broker.url, [f"{TABLE}/result"])
    done = run_table(table, rounds=2)
    assert done.returncode == 0, done.stderr[-3000:]
    assert listener.wait_for(lambda m: any(not x.retained and x.json()["round"] == 5 for x in m), 20)
    results = [m.json() for m in listener.snapshot() if not m.retained]
    listener.close()
    assert {r["round"] for r in results} >= {4, 5} and min(r["round"] for r in results) == 4
    assert {r["epoch"] for r in results} == {epoch.stdout.split()[3].rstrip(";")}
    verify = subprocess.run([*TABLEHW, "journal", "verify", "--config", str(table)], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert verify.returncode == 0 and ": ok" in verify.stdout, verify.stderr
    assert list((storage / "superseded").iterdir())  # the zeroed file kept for the inspector


def wait_text(path, text: str, timeout_s: float = 90) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text():
            return True
        time.sleep(0.2)
    return False


def test_broker_down_at_start_plays_unchecked_then_checks_before_publishing(tmp_path):
    """A broker outage does not silence the table; nothing leaves before the anchor check has run, and a
    journal behind its anchor is then locked out before any of it is published."""
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        table = config(tmp_path, broker.url, anchor_wait_s=1.0)
        assert run_table(table, rounds=2).returncode == 0
        listener = Listener(broker.url, [f"{TABLE}/state"])
        assert listener.wait_for(lambda m: bool(m), 10)
        state = listener.snapshot()[-1].json()
        listener.close()
        anchor = {"schema": 1, "type": "anchor", "table": "sim-craps", "epoch": state["epoch"],
                  "seq": state["seq"] + 10_000, "records": state["journal"]["records"] + 10_000,
                  "head": "cd" * 32, "round": state["round"] + 100, "utc": state["utc"]}
        retain(broker.url, ANCHOR, json.dumps(anchor).encode())  # the ledger saw more than this journal holds
        broker.stop()  # graceful: the retained messages are persisted
        process = start_table(table, log_level="INFO")
        try:
            log = tmp_path / "table.stderr"
            assert wait_text(log, "anchor is unchecked") and wait_text(log, "round 5 settled"), log.read_text()[-3000:]
            assert process.poll() is None
            broker.start()
            listener = Listener(broker.url, [f"{TABLE}/result"])
            out, err = finish(process, 90)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 78, err[-3000:]
        assert "the ledger's anchor" in err and "Traceback" not in err
        assert not [m for m in listener.snapshot() if not m.retained]  # nothing played unchecked was published
        listener.close()
    finally:
        broker.kill()
