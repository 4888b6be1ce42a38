"""Running `tablehw run --simulate` as a real process against a test broker, and reading what it left."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLEHW = [sys.executable, "-c", "import sys; from firmware_host.cli import main; sys.exit(main())"]


# The seeds the service tests were written against (the sim configs carry none: a new seed each run).
SEEDS = {"craps": 1, "cussec": 2, "baccarat": 3, "roulette": 3, "banca_francesa": 4}


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(value)


def dump_toml(data: dict) -> str:
    lines = [f"{k} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for section, values in data.items():
        if isinstance(values, dict):
            lines.append(f"\n[{section}]")
            lines += [f"{k} = {toml_value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def table_config(tmp: Path, game: str, url: str, *, name: str = "table.toml", sections: dict | None = None,
                 **simulation) -> Path:
    """config/sim-<game>.toml with its storage in `tmp`, the test broker, and simulation overrides
    (`sections`: more keys per section, e.g. {"table": {"dealer_confirms": True}})."""
    data = tomllib.loads((ROOT / "config" / f"sim-{game}.toml").read_text())
    for section, values in (sections or {}).items():
        data.setdefault(section, {}).update(values)
    data["storage"]["path"] = str(tmp / "storage")
    data["mqtt"]["url"] = url
    data["simulation"].setdefault("seed", SEEDS.get(game, 1))  # the configs leave it out: every `make run` differs
    data["simulation"].update(simulation)
    path = tmp / name
    path.write_text(dump_toml(data))
    return path


def run_table(config: Path, rounds: int | None = None, timeout_s: float = 120, log_level: str = "INFO",
              extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    args = TABLEHW + ["run", "--config", str(config), "--simulate",
            "--log-level", log_level, *extra]
    if rounds:
        args += ["--rounds", str(rounds)]
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s, env=env)


def start_table(config: Path, rounds: int | None = None, log_level: str = "INFO") -> subprocess.Popen:
    """The table as a background process; its output goes to files beside the config (a pipe nobody
    reads would fill up and block the table's printing)."""
    args = TABLEHW + ["run", "--config", str(config), "--simulate", "--log-level", log_level]
    if rounds:
        args += ["--rounds", str(rounds)]
    out = open(config.parent / f"{config.stem}.stdout", "w")
    err = open(config.parent / f"{config.stem}.stderr", "w")
    process = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=err, text=True)
    process.output_files = (config.parent / f"{config.stem}.stdout", config.parent / f"{config.stem}.stderr")
    return process


def finish(process: subprocess.Popen, timeout_s: float = 120) -> tuple[str, str]:
    """Wait for a started table to end; returns what it printed (stdout, stderr)."""
    process.wait(timeout=timeout_s)
    return tuple(path.read_text() for path in process.output_files)


def stop_table(process: subprocess.Popen, timeout_s: float = 30) -> tuple[str, str]:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    return finish(process, timeout_s)


def journal_rows(storage: Path, kind: str) -> list[tuple[int, int | None, dict]]:
    conn = sqlite3.connect(storage / "journal.sqlite")
    try:
        rows = conn.execute("SELECT seq, round, body FROM records WHERE kind = ? ORDER BY seq", (kind,)).fetchall()
    finally:
        conn.close()
    return [(seq, rnd, json.loads(body)) for seq, rnd, body in rows]


def outbox_rows(storage: Path) -> list[tuple[int, str, dict, bool]]:
    conn = sqlite3.connect(storage / "journal.sqlite")
    try:
        rows = conn.execute("SELECT seq, topic, payload, sent_utc IS NOT NULL FROM outbox ORDER BY seq").fetchall()
    finally:
        conn.close()
    return [(seq, topic, json.loads(payload), bool(sent)) for seq, topic, payload, sent in rows]


def check_bets_settled_once(storage: Path) -> Counter:
    """Every accepted bet is decided at most once; one not decided is still on the layout (a staying
    craps bet) or was withdrawn. Returns the count of final results by kind."""
    accepted = {body["ticket"] for _, _, body in journal_rows(storage, "bet_accepted")}
    withdrawn = {body["ticket"] for _, _, body in journal_rows(storage, "bet_withdrawn")}
    settlements = journal_rows(storage, "settlement")
    rounds = Counter(rnd for _, rnd, _ in settlements)
    assert all(n == 1 for n in rounds.values()), f"a round was settled twice: {rounds.most_common(3)}"
    final: Counter = Counter()
    results: Counter = Counter()
    last_stays: set[str] = set()
    for _, _, body in settlements:
        last_stays = set()
        for line in body["bets"]:
            if line["result"] == "stay":
                last_stays.add(line["ticket"])
            else:
                final[line["ticket"]] += 1
                results[line["result"]] += 1
    twice = [t for t, n in final.items() if n > 1]
    assert not twice, f"bets decided twice: {twice[:5]}"
    named = {ticket.split("/")[0] for ticket in final}  # blackjack: the records a bet became (T/hand2, T/insurance)
    assert named <= accepted, "a settlement names a bet that was never accepted"
    open_now = accepted - set(final) - withdrawn
    last_round = max((rnd for _, rnd, _ in journal_rows(storage, "round_opened")), default=0)
    in_last = {body["ticket"] for _, rnd, body in journal_rows(storage, "bet_accepted") if rnd == last_round}
    assert open_now <= last_stays | in_last, f"accepted bets neither settled nor open: {sorted(open_now - last_stays - in_last)[:5]}"
    return results


def killed_in_round_2_and_restarted(tmp: Path, game: str, url: str, phase: str, **settings) -> tuple[set[str], dict]:
    """Kill -9 the table at `phase` of round 2 (seed 7, no voids drawn), start it again for two rounds;
    checks every bet is settled once and returns the tickets accepted in round 2 before the kill and round
    2's settlement (which must hold them all)."""
    storage = tmp / "storage"
    crash = table_config(tmp, game, url, name="crash.toml", seed=7, crash_at=f"{phase}:2", void_rate=0.0, **settings)
    first = run_table(crash, rounds=6, timeout_s=120)
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    accepted_before = {b["ticket"] for _, rnd, b in journal_rows(storage, "bet_accepted") if rnd == 2}
    again = table_config(tmp, game, url, name="again.toml", seed=7, void_rate=0.0, **settings)
    second = run_table(again, rounds=2, timeout_s=120)
    assert second.returncode == 0, second.stderr[-2000:]
    check_bets_settled_once(storage)
    (round2,) = [b for _, rnd, b in journal_rows(storage, "settlement") if rnd == 2]
    assert accepted_before <= {line["ticket"] for line in round2["bets"]}  # nothing accepted was lost
    return accepted_before, round2
