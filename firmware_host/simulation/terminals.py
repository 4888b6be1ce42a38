"""Simulated betting terminals: seeded players who bet over MQTT, as real terminals do.

Each round they send `bets_per_round` bet requests (MQTT 5, response topic + correlation data) as
the betting terminals of the config's `[access] terminals` — each on its own topic `T/bets/<user>`,
for an owner it may bet for, with replies in its own tree `<prefix>/replies/<user>/sim-terminal` —
and count the answers; the simulated dealer closes betting once every bet is answered. (They share
one MQTT connection: the loopback broker of a simulation has no accounts.)
A few bets are wrong on purpose (under the minimum, unknown bet, a bet not allowed now) and one
arrives after "no more bets", so the refusals show in the run. At chemin de fer a round may be a
banco (`place_banco`): one punter covers the whole bank, at the capital the table's `state` shows for
that round (the terminals read `state`, as a real terminal shows it).
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
        if game == "blackjack":  # a box (V.2), the minimum or a multiple of it (V.14)
            return BetRequest(ticket, owner, "box", stake, number=rng.randint(1, 7))
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
        if game == "paikao":  # a seat's hand against the banker's; now and then the bank's capital (002 Art. 4.4)
            if roll < 0.08:
                return BetRequest(ticket, owner, "banker", stake * 10)
            return BetRequest(ticket, owner, "seat", stake, number=rng.randint(1, 7))
        return BetRequest(ticket, owner, rng.choice(bet_ids), stake)

    return make


REPLY_LEAF = "sim-terminal"


class SimulatedTerminals:
    """The terminals `terminals` (broker user -> owners it may bet for), sharing one MQTT connection."""

    def __init__(self, url: str, topics: Topics, make_bet: Callable[[str, str], BetRequest], *,
                 terminals: dict[str, list[str]], bets_per_round: int, seed: int = 1) -> None:
        self.topics = topics
        self.make_bet = make_bet
        self.terminals = {user: list(owners) for user, owners in terminals.items() if owners}
        self.users = sorted(self.terminals)
        self.bets_per_round = bets_per_round
        self.rng = random.Random(seed)
        self.answers: Counter = Counter()  # "accepted" or the refusal reason
        self.state: dict = {}  # the table's last `state`
        self._banco: tuple[int, str | None, Callable[[], None]] | None = None  # (round, owner, done) waiting
        self._bancos: dict[bytes, tuple[int, str]] = {}  # banco tickets sent: (round, owner)
        self.bancos: dict[int, str] = {}  # round -> the owner whose banco bet was accepted
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
        client.subscribe(f"{self.topics.replies}+/{REPLY_LEAF}", qos=1)
        client.subscribe(self.topics.state, qos=1)
        self._ready.set()

    def _on_message(self, client, userdata, message) -> None:
        if message.topic == self.topics.state:
            self._on_state(message.payload)
            return
        correlation = getattr(message.properties, "CorrelationData", None)
        try:
            answer = msgspec.json.decode(message.payload, type=BetResponse)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("terminal got an unreadable answer on %s", message.topic)
            return
        done = None
        with self._lock:
            self.answers["accepted" if answer.accepted else answer.reason or "refused"] += 1
            if answer.accepted and correlation in self._bancos:
                round_no, owner = self._bancos[correlation]
                self.bancos[round_no] = owner
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
        for i in range(self.bets_per_round if self.users else 0):
            user = self.rng.choice(self.users)
            owner = self.rng.choice(self.terminals[user])
            requests.append((user, self.make_bet(f"r{round_no}-{i}-{uuid.uuid4().hex[:6]}", owner)))
        if not requests or not self._ready.is_set():
            done()
            return
        with self._lock:
            self._outstanding = {r.ticket.encode() for _, r in requests}
            self._done = done
        for user, request in requests:
            self._send(user, request)

    def place_banco(self, round_no: int, done: Callable[[], None], owner: str | None = None) -> None:
        """Chemin de fer: one punter (`owner`, else one at random) bets the whole bank as soon as this
        round's `state` shows it (I.45); `done()` once answered."""
        with self._lock:
            self._banco = (round_no, owner, done)
        self._on_state(None)

    def banco_answer(self, round_no: int) -> str | None:
        """The owner whose banco bet was accepted in this round, if one was."""
        with self._lock:
            return self.bancos.get(round_no)

    def _on_state(self, payload: bytes | None) -> None:
        with self._lock:
            if payload is not None:
                try:
                    self.state = msgspec.json.decode(payload)
                except msgspec.DecodeError:
                    return
            waiting, state = self._banco, self.state
            bank = (state.get("game_state") or {}).get("bank") or {}
            if waiting is None or state.get("round") != waiting[0] or state.get("phase") != "betting" \
                    or not bank.get("holder"):
                return
            self._banco = None
            round_no, owner, done = waiting
            owners = [o for owners in self.terminals.values() for o in owners if o != bank["holder"]]
            owner = owner if owner in owners else self.rng.choice(owners) if owners else None
            if owner is None:
                done()
                return
            request = BetRequest(f"r{round_no}-banco-{uuid.uuid4().hex[:6]}", owner, "player", bank["capital"])
            self._bancos[request.ticket.encode()] = (round_no, owner)
            self._outstanding = {request.ticket.encode()}
            self._done = done
        self._send(next(user for user, owned in self.terminals.items() if owner in owned), request)

    def late_bet(self, round_no: int) -> None:
        """One bet after "no more bets": the table must refuse it (betting_closed)."""
        if self.users:
            user = self.users[0]
            self._send(user, self.make_bet(f"r{round_no}-late-{uuid.uuid4().hex[:6]}", self.terminals[user][0]))

    def _send(self, user: str, request: BetRequest) -> None:
        props = Properties(PacketTypes.PUBLISH)
        props.ResponseTopic = f"{self.topics.reply_prefix(user)}{REPLY_LEAF}"
        props.CorrelationData = request.ticket.encode()
        self.client.publish(self.topics.request("bets", user), msgspec.json.encode(request), qos=1, properties=props)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
