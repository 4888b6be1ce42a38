"""A disk that fills up under a running table (a real tmpfs): lock-out, no traceback, nothing lost after reopening.

The storage folder is a small tmpfs mounted for the test (the tests run as root here); a ballast file
leaves a few hundred kB, the table plays until SQLite's write fails with SQLITE_FULL.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ..service.listener import Listener
from ..service.table_run import ROOT, TABLEHW, check_bets_settled_once, run_table, table_config

FAST = {"action_seconds": 0.02, "betting_seconds": 0.05}


@pytest.fixture
def small_disk(tmp_path):
    folder = tmp_path / "storage"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder, leave_bytes: int):
    """A ballast file taking all but `leave_bytes` of the file system."""
    stat = os.statvfs(folder)
    free = stat.f_bavail * stat.f_frsize
    ballast = folder / "ballast"
    with open(ballast, "wb") as handle:
        handle.write(b"\0" * max(0, free - leave_bytes))
    return ballast


def test_disk_full_locks_out_and_nothing_is_lost_after_reopening(broker, tmp_path, small_disk):
    config = table_config(tmp_path, "craps", broker.url, sections={"storage": {"disk_minimum_mb": 0,
                                                                                "disk_warning_mb": 100}}, **FAST)
    assert run_table(config, rounds=2).returncode == 0
    listener = Listener(broker.url, ["tablehw/#"], persistent=True)
    ballast = fill(small_disk, 400_000)
    full = run_table(config, timeout_s=240)
    assert full.returncode == 74, full.stderr[-3000:]
    assert "LOCKED OUT" in full.stderr and "disk is full" in full.stderr, full.stderr[-3000:]
    assert "Traceback" not in full.stderr, full.stderr[-5000:]
    assert listener.wait_for(lambda m: any(x.topic.endswith("/availability") and x.json()["state"] == "locked"
                                           for x in m), 20)
    states = [m.json() for m in listener.snapshot("/state")]
    assert states and states[-1]["disk"]["warning"] is True  # the warning was in `state` before it filled
    seen = {(m.json()["epoch"], m.json()["seq"]): m.payload for m in listener.snapshot() if "seq" in m.json()}

    ballast.unlink()  # the supervisor frees space, then reopens (systemctl start)
    verify = subprocess.run([*TABLEHW, "journal", "verify", "--config", str(config)], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert verify.returncode == 0, verify.stderr
    again = run_table(config, rounds=2)
    assert again.returncode == 0, again.stderr[-3000:]
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 1, 20)
    listener.close()
    journal = subprocess.run(["sqlite3", "-json", str(small_disk / "journal.sqlite"),
                              "SELECT seq, hex(payload) AS payload FROM outbox"], capture_output=True, text=True)
    stored = {row["seq"]: bytes.fromhex(row["payload"]) for row in json.loads(journal.stdout)}
    for (epoch, seq), payload in seen.items():
        assert stored.get(seq) == payload, f"message {seq} published but not in the journal as sent"
    accepted = {m.json()["ticket"] for m in listener.snapshot() if m.json().get("type") == "bet_response"
                and m.json()["accepted"]}
    bets = subprocess.run(["sqlite3", str(small_disk / "journal.sqlite"),
                           "SELECT json_extract(body, '$.ticket') FROM records WHERE kind = 'bet_accepted'"],
                          capture_output=True, text=True).stdout.split()
    assert accepted <= set(bets)  # every bet answered "accepted" is on record
    check_bets_settled_once(small_disk)


def test_below_the_minimum_free_space_the_table_does_not_open(broker, tmp_path):
    config = table_config(tmp_path, "craps", broker.url, sections={"storage": {"disk_minimum_mb": 1_000_000}},
                          **FAST)
    done = run_table(config, rounds=1, timeout_s=60)
    assert done.returncode == 74, done.stderr[-3000:]
    assert "below the minimum of 1000000 MB" in done.stderr and "Traceback" not in done.stderr


def test_read_only_disk_locks_out_and_reopens_when_writable(broker, tmp_path, small_disk):
    config = table_config(tmp_path, "craps", broker.url, sections={"storage": {"disk_minimum_mb": 0}}, **FAST)
    assert run_table(config, rounds=1).returncode == 0
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    done = run_table(config, rounds=1, timeout_s=60)
    assert done.returncode == 74, done.stderr[-3000:]
    assert "LOCKED OUT" in done.stderr and "Read-only file system" in done.stderr and "Traceback" not in done.stderr
    subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
    assert run_table(config, rounds=1).returncode == 0
