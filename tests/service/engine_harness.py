"""The round engine in-process on a real journal, with stand-in devices that only record what they are told."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from firmware_host.config import load_config
from firmware_host.journal import Journal
from firmware_host.mqtt.contract import Topics
from firmware_host.mqtt.identity import reply_to
from firmware_host.mqtt.link import Inbound
from firmware_host.rounds import recovery
from firmware_host.rounds.engine import RoundEngine
from firmware_host.rounds.gate import TableRequest
from firmware_host.rounds.requests import handle_batch
from firmware_host.rounds.setup import engine_settings, family_factory

ROOT = Path(__file__).resolve().parents[2]


class RecordingDevices:
    """Devices that do nothing but remember the engine's calls (the test plays the table by hand)."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def phase_changed(self, phase, round_no, attempt):
        self.calls.append(("phase", phase, round_no, attempt))

    def read_dice(self, round_no, attempt):
        self.calls.append(("read_dice", round_no, attempt))

    def show_result(self, fields):
        self.calls.append(("show", fields))

    def deal(self, round_no, attempt, places):
        self.calls.append(("deal", round_no, attempt, places))


def make_engine(path: Path, game: str = "craps", rules: dict | None = None, key: bytes | None = None,
                access: dict | None = None, **table) -> RoundEngine:
    """`rules`: [game] keys replaced in the sim config (e.g. {"odds_withdrawal": "until_decision"});
    `access`: [access] keys replaced (e.g. {"terminals": {"term-1": ["p1", "p2"]}})."""
    source = str(ROOT / "config" / f"sim-{game}.toml")
    config = load_config(source)
    config = msgspec.structs.replace(config, table=msgspec.structs.replace(config.table, **table),
                                     game=msgspec.structs.replace(config.game, **(rules or {})),
                                     access=msgspec.structs.replace(config.access, **(access or {})))
    journal = Journal.open(path, key=key)
    engine = RoundEngine(engine_settings(config), journal, Topics("tablehw", config.table.id),
                         family_factory(config, source), RecordingDevices())
    recovery.start(engine)
    return engine


def feed(engine: RoundEngine, *items) -> None:
    handle_batch(engine, list(items))


def request(engine: RoundEngine, kind: str, user: str, body: dict | bytes, response_topic: str | None,
            correlation: bytes) -> TableRequest:
    """A request as the gate hands it to the engine: from broker user `user`, answered as the gate decides."""
    topics = engine.topics
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    message = Inbound(topics.request(kind, user), payload, response_topic, correlation)
    return TableRequest(kind, user, message, reply_to(topics.reply_prefix(user), topics.default_reply(kind, user),
                                                      response_topic, correlation))


def bet(engine: RoundEngine, ticket: str, bet_id: str, stake: int, response_topic: str = "tablehw/replies/term-1/t",
        user: str = "term-1", owner: str = "term-1", **more) -> TableRequest:
    body = {"schema": 1, "type": "bet", "ticket": ticket, "owner": owner, "bet": bet_id, "stake": stake, **more}
    return request(engine, "bets", user, body, response_topic, ticket.encode())


def console(engine: RoundEngine, action: str, user: str = "sup-1", **more) -> TableRequest:
    body = {"schema": 1, "type": "console", "action": action, **more}
    return request(engine, "console", user, body, f"tablehw/replies/{user}/pit", action.encode())


def sent(engine: RoundEngine, suffix: str = "") -> list[tuple[str, dict]]:
    return [(m.topic, json.loads(m.payload)) for m in engine.journal.messages() if m.topic.endswith(suffix)]


def records(engine: RoundEngine, kind: str) -> list[dict]:
    return [r.data() for r in engine.journal.records(kind=kind)]
