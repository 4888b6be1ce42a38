"""The rule books that have no `make run` config of their own run as tables too: craps Macau 1985 (seed
000), craps Portugal 1995 (004 §VI) and punto banco Macau (004 §III) — each the simulated table of its
game with the `[game]`, `[money]` and `[limits]` of its example config, a few rounds with betting
terminals on a real Mosquitto, every accepted bet settled once."""

from __future__ import annotations

import tomllib

import pytest

from .listener import Listener
from .table_run import ROOT, check_bets_settled_once, dump_toml, run_table, table_config


@pytest.mark.parametrize("sim, book", [("craps", "craps-macau-1985"), ("craps", "craps-portugal-1995"),
                                       ("baccarat", "punto-banco-macau")])
def test_the_rule_book_plays_as_a_table(broker, tmp_path, sim, book):
    config = table_config(tmp_path, sim, broker.url, action_seconds=0.01, betting_seconds=0.03)
    data = tomllib.loads(config.read_text())
    example = tomllib.loads((ROOT / "config" / f"{book}.toml").read_text())
    for section in ("game", "money", "limits"):
        data[section] = example[section]
    config.write_text(dump_toml(data))
    table = data["table"]["id"]
    listener = Listener(broker.url, [f"tablehw/tables/{table}/#"])
    done = run_table(config, rounds=8, timeout_s=180)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len([l for l in done.stdout.splitlines() if l.startswith(f"{table}-")]) == 8, done.stdout[-2000:]
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 8, 30)
    states = [m.json() for m in listener.snapshot("/state")]
    assert states and all(s["rulebook"] == example["game"]["rulebook"] for s in states)
    settled = check_bets_settled_once(tmp_path / "storage")
    assert sum(settled.values()) > 0
    listener.close()
