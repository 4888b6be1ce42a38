"""Processes for the ledger's end-to-end tests: ledger instances (`tablehw ledger`), stand-in tables, and what
they left behind (the books, the journals), compared cent for cent."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from firmware_host.ledger.database import Database
from firmware_host.ledger.migrate import migrate

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def _spawn(args: list[str], log: Path) -> subprocess.Popen:
    out = open(log, "a")
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    process = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
    process.log = log
    return process


def start_ledger(books_url: str, broker_url: str, user: str, logs: Path, *extra: str) -> subprocess.Popen:
    """`tablehw ledger` as its own process (a real instance: killed with SIGKILL by the chaos test)."""
    return _spawn([PYTHON, "-c", "import sys; from firmware_host.cli import main; sys.exit(main())", "ledger",
                   "--db", books_url, "--mqtt", broker_url, "--user", user, "--gap-grace", "1", *extra],
                  logs / f"{user}.log")


def start_stand_in(table: str, broker_url: str, storage: Path, rounds: int, logs: Path, *extra: str) -> subprocess.Popen:
    return _spawn([PYTHON, "-m", "tests.ledger.stand_in_table", "--table", table, "--mqtt", broker_url, "--storage",
                   str(storage), "--rounds", str(rounds), *extra], logs / f"{table}.log")


def stop(process: subprocess.Popen, timeout_s: float = 30.0) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
    return process.returncode


def kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
        process.wait(10)


def wait_until(predicate, timeout_s: float, every_s: float = 0.25) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every_s)
    return bool(predicate())


def journal_settlements(*journals: Path) -> dict[tuple[str, int], dict]:
    """Every settlement record of these journals: (table, round) -> the payload."""
    out: dict[tuple[str, int], dict] = {}
    for path in journals:
        if not path.exists():
            continue  # the table has not started yet
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            try:
                rows = conn.execute("SELECT body FROM records WHERE kind = 'settlement' ORDER BY seq").fetchall()
            except sqlite3.OperationalError:
                continue  # the table is creating its journal right now
            for (body,) in rows:
                payload = json.loads(body)
                key = (payload["table"], payload["round"])
                assert key not in out, f"{key} settled twice in the journals"
                out[key] = payload
        finally:
            conn.close()
    return out


def prepare_books(books_url: str) -> str:
    """The books migrated (as the first instance would), so readers can look before an instance did."""
    database = Database.connect(books_url, name="test-setup")
    try:
        migrate(database)
    finally:
        database.close()
    return books_url


def booked_settlements(books_url: str) -> dict[tuple[str, int], dict]:
    """The books' rounds with their bet lines, in the settlement payload's shape."""
    database = Database.connect(books_url, name="test-reader")
    try:
        def read(session):
            rounds = session.all("SELECT table_id, round, epoch, seq, void, currency, staked, paid, returned, kept, "
                                 "breakage FROM rounds")
            lines: dict = {}
            for row in session.all("SELECT table_id, round, line, ticket, owner, bet, stake, result, paid, returned, "
                                   "kept, breakage FROM bets ORDER BY table_id, round, line"):
                lines.setdefault((row[0], row[1]), []).append(
                    dict(zip(("ticket", "owner", "bet", "stake", "result", "paid", "returned", "kept", "breakage"),
                             row[3:])))
            return rounds, lines
        rounds, lines = database.run(read)
    finally:
        database.close()
    return {(t, r): {"epoch": e, "seq": s, "void": bool(v), "currency": c,
                     "totals": {"staked": st, "paid": p, "returned": rt, "kept": k, "breakage": b},
                     "bets": lines.get((t, r), [])}
            for t, r, e, s, v, c, st, p, rt, k, b in rounds}


def same_books(journals: dict, books: dict) -> list[str]:
    """What differs between the journals' settlements and the books (empty: cent for cent the same)."""
    problems = []
    for key in sorted(set(journals) | set(books)):
        j, b = journals.get(key), books.get(key)
        if j is None:
            problems.append(f"{key} booked but in no journal")
        elif b is None:
            problems.append(f"{key} in a journal but not booked")
        else:
            lines = [{k: line[k] for k in ("ticket", "owner", "bet", "stake", "result", "paid", "returned", "kept",
                                            "breakage")} for line in j["bets"]]
            if (j["epoch"], j["seq"], j["void"], j["currency"], j["totals"], lines) != (
                    b["epoch"], b["seq"], b["void"], b["currency"], b["totals"], b["bets"]):
                problems.append(f"{key} differs: journal {j['totals']} books {b['totals']}")
    return problems


def books_value(books_url: str, sql: str, params=()):
    database = Database.connect(books_url, name="test-reader")
    try:
        return database.run(lambda s: s.all(sql, params))
    finally:
        database.close()


def wait_online(broker_url: str, user: str, timeout_s: float = 60.0) -> bool:
    """The instance said `online`: it is connected and its subscriptions are in place (they precede it)."""
    from tests.service.listener import Listener

    listener = Listener(broker_url, [f"tablehw/ledger/availability/{user}"])
    try:
        return listener.wait_for(lambda got: any(m.json().get("state") == "online" for m in got), timeout_s)
    finally:
        listener.close()
