"""A test subscriber: records every message it gets (topic, payload, retained flag, arrival order)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties


@dataclass
class Received:
    topic: str
    payload: bytes
    retained: bool
    monotonic: float
    correlation: bytes | None = None

    def json(self):
        return json.loads(self.payload)


@dataclass
class Listener:
    """Subscribes (in every on_connect) to `topics`; `persistent` keeps its session across restarts."""

    url: str
    topics: list[str]
    persistent: bool = False
    client_id: str = field(default_factory=lambda: f"listener-{uuid.uuid4().hex[:8]}")
    messages: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._connected = threading.Event()
        host, port = self.url.removeprefix("mqtt://").split(":")
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.client_id, protocol=mqtt.MQTTv5)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_disconnect = lambda *a: self._connected.clear()
        self.client.reconnect_delay_set(0.2, 1)  # type: ignore[arg-type]
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 3600 if self.persistent else 0
        self.client.connect_async(host, int(port), clean_start=not self.persistent, properties=props)
        self.client.loop_start()
        if not self._connected.wait(10):
            raise RuntimeError(f"listener could not connect to {self.url}")

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        for topic in self.topics:
            client.subscribe(topic, qos=1)
        self._connected.set()

    def _on_message(self, client, userdata, message):
        props = message.properties
        with self._lock:
            self.messages.append(Received(message.topic, bytes(message.payload), bool(message.retain),
                                          time.monotonic(), getattr(props, "CorrelationData", None) if props else None))

    def wait_connected(self, timeout_s: float = 20) -> bool:
        return self._connected.wait(timeout_s)

    def snapshot(self, suffix: str | None = None) -> list[Received]:
        with self._lock:
            return [m for m in self.messages if suffix is None or m.topic.endswith(suffix)]

    def wait_for(self, predicate, timeout_s: float = 20.0) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if predicate(self.snapshot()):
                return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def firsts(listener: Listener, suffix: str) -> list[dict]:
    """The payloads on topics ending in `suffix`, each seq once (a redelivered copy left out), in arrival order."""
    seen, out = set(), []
    for m in listener.snapshot(suffix):
        body = m.json()
        if body["seq"] not in seen:
            seen.add(body["seq"])
            out.append(body)
    return out


def reply_tree(topic: str) -> str:
    """The requester's own reply tree for a request topic `<prefix>/tables/<t>/<kind>/<user>` or
    `<prefix>/slots|jackpots/<id>/request/<user>`: `<prefix>/replies/<user>`."""
    user = topic.rsplit("/", 1)[1]
    for marker in ("/tables/", "/slots/", "/jackpots/"):
        if marker in topic:
            return f"{topic.split(marker)[0]}/replies/{user}"
    raise ValueError(f"not a request topic: {topic}")


def request(url: str, topic: str, payload: dict, timeout_s: float = 10.0, reply_topic: str | None = None) -> dict:
    """Send one MQTT 5 request with a response topic (by default in the requester's own reply tree)
    and correlation data; return the decoded response."""
    host, port = url.removeprefix("mqtt://").split(":")
    reply_topic = reply_topic or f"{reply_tree(topic)}/test/{uuid.uuid4().hex}"
    correlation = uuid.uuid4().bytes
    got: list[bytes] = []
    ready, done = threading.Event(), threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)

    def on_connect(c, u, f, rc, p):
        c.subscribe(reply_topic, qos=1)

    def on_subscribe(c, u, mid, rcs, p):
        ready.set()

    def on_message(c, u, m):
        if getattr(m.properties, "CorrelationData", None) == correlation:
            got.append(bytes(m.payload))
            done.set()

    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, on_message
    client.connect(host, int(port))
    client.loop_start()
    try:
        if not ready.wait(timeout_s):
            raise TimeoutError("could not subscribe to the reply topic")
        props = Properties(PacketTypes.PUBLISH)
        props.ResponseTopic = reply_topic
        props.CorrelationData = correlation
        client.publish(topic, json.dumps(payload), qos=1, properties=props)
        if not done.wait(timeout_s):
            raise TimeoutError(f"no response on {reply_topic} to {payload}")
        return json.loads(got[0])
    finally:
        client.disconnect()
        client.loop_stop()
