"""Simulated betting terminals: seeded players who bet over MQTT, as real terminals do.

Each round they send `bets_per_round` bet requests (MQTT 5, response topic + correlation data) to
`T/bets` and count the answers; the simulated dealer closes betting once every bet is answered.
A few bets are wrong on purpose (under the minimum, unknown bet, a bet not allowed now) and one
arrives after "no more bets", so the refusals show in the run.
"""

from __future__ import annotations

import logging
import random
import threading
import uuid
from collections import Counter
from typing import Callable

import msgspec
import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from ..mqtt.contract import BetRequest, BetResponse, Topics
from ..mqtt.link import Endpoint

log = logging.getLogger(__name__)

ROULETTE_SIMPLE = ("red", "black", "even", "odd", "low", "high")


def bet_maker(game: str, bet_ids: list[str], minimum: int, rng: random.Random) -> Callable[[str, str], BetRequest]:
    """A function (ticket, owner) -> a plausible bet for this game (about 3% deliberately wrong)."""

    def make(ticket: str, owner: str) -> BetRequest:
        stake = minimum * rng.choice((1, 1, 2, 3, 5))
        roll = rng.random()
        if roll < 0.01:
            return BetRequest(ticket, owner, "no_such_bet", stake)
        if roll < 0.03:
            return BetRequest(ticket, owner, bet_ids[0], max(1, minimum // 2) if minimum > 1 else 0)
        if game == "roulette":
            kind = rng.choice(("straight", "dozen", "split", *ROULETTE_SIMPLE, *ROULETTE_SIMPLE))
            if kind == "straight":
                return BetRequest(ticket, owner, kind, stake, number=rng.randint(0, 36))
            if kind == "dozen":
                return BetRequest(ticket, owner, kind, stake, number=rng.randint(1, 3))
            if kind == "split":
                n = rng.randint(1, 33)
                return BetRequest(ticket, owner, kind, stake, numbers=[n, n + 3])
            return BetRequest(ticket, owner, kind, stake)
        return BetRequest(ticket, owner, rng.choice(bet_ids), stake)

    return make


class SimulatedTerminals:
    """`count` terminals sharing one MQTT connection (each bet names its terminal as owner)."""

    def __init__(self, url: str, topics: Topics, make_bet: Callable[[str, str], BetRequest], *, count: int,
                 bets_per_round: int, seed: int = 1) -> None:
        self.topics = topics
        self.make_bet = make_bet
        self.count = count
        self.bets_per_round = bets_per_round
        self.rng = random.Random(seed)
        self.reply_topic = f"{topics.base.split('/tables/')[0]}/replies/sim-terminals-{uuid.uuid4().hex[:8]}/bets"
        self.answers: Counter = Counter()  # "accepted" or the refusal reason
        self._outstanding: set[bytes] = set()
        self._done: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._ready = threading.Event()
        endpoint = Endpoint.from_url(url)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"sim-terminals-{uuid.uuid4().hex[:8]}",
                                  protocol=mqtt.MQTTv5)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_disconnect = lambda *args: self._ready.clear()
        self.client.reconnect_delay_set(0.2, 2)  # type: ignore[arg-type]
        self.client.max_inflight_messages_set(1000)
        self.client.connect_async(endpoint.host, endpoint.port)
        self.client.loop_start()

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        client.subscribe(self.reply_topic, qos=1)
        self._ready.set()

    def _on_message(self, client, userdata, message) -> None:
        correlation = getattr(message.properties, "CorrelationData", None)
        try:
            answer = msgspec.json.decode(message.payload, type=BetResponse)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("terminal got an unreadable answer on %s", message.topic)
            return
        done = None
        with self._lock:
            self.answers["accepted" if answer.accepted else answer.reason or "refused"] += 1
            if correlation in self._outstanding:
                self._outstanding.discard(correlation)
                if not self._outstanding and self._done:
                    done, self._done = self._done, None
        if done:
            done()

    def wait_ready(self, timeout_s: float) -> bool:
        return self._ready.wait(timeout_s)

    def place_bets(self, round_no: int, done: Callable[[], None]) -> None:
        """Send this round's bets; `done()` once all are answered (at once if there are none)."""
        requests = []
        for i in range(self.bets_per_round):
            owner = f"term-{self.rng.randrange(self.count) + 1}"
            requests.append(self.make_bet(f"r{round_no}-{i}-{uuid.uuid4().hex[:6]}", owner))
        if not requests or not self._ready.is_set():
            done()
            return
        with self._lock:
            self._outstanding = {r.ticket.encode() for r in requests}
            self._done = done
        for request in requests:
            self._send(request)

    def late_bet(self, round_no: int) -> None:
        """One bet after "no more bets": the table must refuse it (betting_closed)."""
        self._send(self.make_bet(f"r{round_no}-late-{uuid.uuid4().hex[:6]}", "term-1"))

    def _send(self, request: BetRequest) -> None:
        props = Properties(PacketTypes.PUBLISH)
        props.ResponseTopic = self.reply_topic
        props.CorrelationData = request.ticket.encode()
        self.client.publish(self.topics.bets, msgspec.json.encode(request), qos=1, properties=props)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
