"""Broker users as the attack tests play them: MQTT 5 over TLS, requests on their own topics, replies recorded."""

from __future__ import annotations

import json
import ssl
import threading
import time
import uuid
from dataclasses import dataclass

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from .deployed_broker import DeployedBroker

TABLE = "craps-1"
T = f"tablehw/tables/{TABLE}"


@dataclass
class Got:
    topic: str
    payload: bytes
    correlation: bytes | None
    retained: bool
    monotonic: float
    wall: float  # time.time() at arrival (to compare with a payload's utc on this machine)

    def json(self):
        return json.loads(self.payload)


class BrokerUser:
    """One user's client; subscribes to its reply tree (and `topics`) in every on_connect.
    `user` None: anonymous. `client_id`: the id it asks for (the broker may replace it)."""

    def __init__(self, broker: DeployedBroker, user: str | None, *, topics: tuple[str, ...] = (),
                 client_id: str | None = None, persistent: bool = False, password: str | None = None,
                 cert: tuple | None = None, connect: bool = True) -> None:
        self.broker, self.user = broker, user
        self.got: list[Got] = []
        self.events: list[str] = []  # connect / disconnect reasons, in order
        self.acks: dict[int, int] = {}  # mid -> the broker's PUBACK reason code
        self.connected = threading.Event()
        self._lock = threading.Lock()
        self.topics = ([f"tablehw/replies/{user}/#"] if user else []) + list(topics)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=client_id or f"test-{uuid.uuid4().hex[:10]}")
        if user and not cert:
            self.client.username_pw_set(user, password or broker.password(user))
        self.client.tls_set(ca_certs=str(broker.ca.cert), certfile=cert and str(cert[0]), keyfile=cert and str(cert[1]),
                            cert_reqs=ssl.CERT_REQUIRED)
        self.client.max_inflight_messages_set(1000)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *args: self.connected.set()
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = lambda c, u, mid, reason, props: self.acks.__setitem__(mid, reason.value)
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(0.2, 2)  # type: ignore[arg-type]
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 3600 if persistent else 0
        self.client.connect_async("localhost", broker.port, clean_start=not persistent, properties=props)
        self.client.loop_start()
        if connect:
            assert self.connected.wait(20), f"{user} could not connect: {self.events}"

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        self.events.append(f"connect {reason_code}")
        if reason_code.is_failure:
            return
        if self.topics:
            client.subscribe([(topic, 1) for topic in self.topics])  # connected once the SUBACK is back
        else:
            self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.events.append(f"disconnect {reason_code}")
        self.connected.clear()

    def _on_message(self, client, userdata, message) -> None:
        props = message.properties
        with self._lock:
            self.got.append(Got(message.topic, bytes(message.payload), getattr(props, "CorrelationData", None),
                                bool(message.retain), time.monotonic(), time.time()))

    # --- sending -------------------------------------------------------------------------------
    def request_topic(self, kind: str, as_user: str | None = None) -> str:
        return f"{T}/{kind}/{as_user or self.user}"

    def puback(self, info: mqtt.MQTTMessageInfo, timeout_s: float = 20.0) -> int:
        """The broker's PUBACK reason code for a publish (0x87: not authorised)."""
        info.wait_for_publish(timeout_s)
        deadline = time.monotonic() + timeout_s
        while info.mid not in self.acks and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.acks[info.mid]

    def publish(self, topic: str, payload, *, response_topic: str | None = None, correlation: bytes | None = None,
                wait: bool = True) -> mqtt.MQTTMessageInfo:
        props = Properties(PacketTypes.PUBLISH)
        if response_topic:
            props.ResponseTopic = response_topic
        if correlation is not None:
            props.CorrelationData = correlation
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        info = self.client.publish(topic, data, qos=1, properties=props)
        if wait:
            info.wait_for_publish(20)
        return info

    def send(self, kind: str, body, *, response_topic: str | None = "", wait: bool = True) -> bytes:
        """A request on this user's own topic; returns its correlation data. `response_topic` "" means
        a fresh topic in its own reply tree, None none at all."""
        correlation = uuid.uuid4().bytes
        if response_topic == "":
            response_topic = f"tablehw/replies/{self.user}/test/{uuid.uuid4().hex[:8]}"
        self.publish(self.request_topic(kind), body, response_topic=response_topic, correlation=correlation, wait=wait)
        return correlation

    def answers(self) -> list[Got]:
        """What arrived in this user's reply tree."""
        return [g for g in self.snapshot() if g.topic.startswith(f"tablehw/replies/{self.user}/")]

    def answer(self, correlation: bytes, timeout_s: float = 30.0) -> Got:
        assert self.wait_for(lambda got: any(g.correlation == correlation for g in self.answers()), timeout_s), \
            f"{self.user}: no answer to {correlation.hex()}"
        return next(g for g in self.answers() if g.correlation == correlation)

    def ask(self, kind: str, body, **kwargs) -> dict:
        return self.answer(self.send(kind, body, **kwargs)).json()

    # --- receiving -----------------------------------------------------------------------------
    def snapshot(self, suffix: str | None = None) -> list[Got]:
        with self._lock:
            return [g for g in self.got if suffix is None or g.topic.endswith(suffix)]

    def wait_for(self, predicate, timeout_s: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if predicate(self.snapshot()):
                return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def bet(ticket: str, owner: str, bet_id: str = "field", stake: int = 5000, **more) -> dict:
    return {"schema": 1, "type": "bet", "ticket": ticket, "owner": owner, "bet": bet_id, "stake": stake, **more}


def withdraw(ticket: str, owner: str) -> dict:
    return {"schema": 1, "type": "withdraw", "ticket": ticket, "owner": owner}
