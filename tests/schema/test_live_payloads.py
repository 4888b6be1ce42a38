"""Every payload a simulated table of each game puts on a real Mosquitto conforms to docs/schema/."""

from __future__ import annotations

import tomllib
from collections import Counter

import pytest

from firmware_host.mqtt.contract import Topics
from firmware_host.schemas import OUTGOING
from tests.service.conftest import broker  # noqa: F401 (the real Mosquitto fixture)
from tests.service.listener import Listener, request
from tests.service.table_run import start_table, stop_table, table_config

from .payload_schemas import ROOT, payload_problems

# The games `tablehw run --simulate` plays: one config/sim-<game>.toml each.
SIMULATED = sorted(p.stem.removeprefix("sim-") for p in (ROOT / "config").glob("sim-*.toml"))


def settled(messages) -> int:
    return sum(m.topic.endswith("/settlement") for m in messages)


def void_seen(messages) -> bool:
    return any(m.topic.endswith("/result") and m.json().get("void") for m in messages)


@pytest.mark.slow
@pytest.mark.parametrize("game", SIMULATED)
def test_live_payloads_of_every_simulated_game_conform(broker, tmp_path, game):
    config = table_config(tmp_path, game, broker.url, action_seconds=0.05, betting_seconds=0.05, void_rate=0.5)
    data = tomllib.loads(config.read_text())
    topics = Topics(data["mqtt"]["prefix"], data["table"]["id"])
    listener = Listener(broker.url, ["#"])
    table = start_table(config)
    try:
        cards = data["game"]["name"] in {"punto_banco", "blackjack", "chemin_de_fer"}  # voids are misdeals: not every run has one
        assert listener.wait_for(lambda m: settled(m) >= 5 and (cards or void_seen(m)), 240), \
            f"the table did not play 5 rounds with a void: {table.output_files}"
        access = data["access"]  # requests come from users the config names, each on its own topic
        answers = [request(broker.url, topics.request("recall", access["back_office"][0]),
                           {"schema": 1, "type": "recall", "last": 3}, 30),
                   request(broker.url, topics.request("recall", access["back_office"][0]),
                           {"schema": 1, "type": "messages", "epoch": None, "after": 0, "limit": 20}, 30),
                   request(broker.url, topics.request("console", access["dealers"][0]),
                           {"schema": 1, "type": "console", "action": "open_betting", "who": "schema-test"}, 30)]
    finally:
        out, err = stop_table(table, 60)
    assert table.returncode == 0, err[-3000:]
    assert listener.wait_for(lambda m: any(x.topic == topics.availability and x.json()["state"] == "offline"
                                           for x in m), 30)
    listener.close()
    payloads = [m.json() for m in listener.snapshot()] + answers
    wrong = {f"{p.get('type')} seq {p.get('seq')}": problems for p in payloads if (problems := payload_problems(p))}
    assert not wrong, f"{len(wrong)} payloads off the schema, e.g. {list(wrong.items())[:3]}"
    seen = Counter(p["type"] for p in payloads)
    assert set(OUTGOING) <= set(seen) and seen["bet"] > 0, f"types seen: {dict(seen)}"
