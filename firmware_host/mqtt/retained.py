"""Reading retained messages once: what the broker holds on a few topics (the table's anchors).

    payloads = read_retained(client, ["tablehw/tables/craps-1/state", "tablehw/ledger/anchors/craps-1"], 5.0)
    # {topic: payload} for the topics that hold one; None when the broker did not answer in time

On a connected paho client (the table's own link: one connection per controller, as brokers that
use the user name as client id require) it subscribes to the topics with callbacks of their own; the
broker sends their retained messages right after the SUBACK. A second SUBSCRIBE (retain handling 2:
nothing resent) marks the end: its SUBACK comes after them, so "no retained message" is known without
guessing a delay. Then it unsubscribes. `read_retained_once` does the same on a short-lived client of
its own (for `tablehw journal new-epoch`, run while the table is stopped). Every wait is bounded.
"""

from __future__ import annotations

import logging
import queue
import threading
import time

import paho.mqtt.client as mqtt
from paho.mqtt.subscribeoptions import SubscribeOptions

from .link import Endpoint, LinkSettings, new_client

log = logging.getLogger(__name__)


def read_retained(client: mqtt.Client, topics: list[str], wait_s: float) -> dict[str, bytes] | None:
    """The retained payload of each topic that has one (an empty payload counts as none), read on `client`
    (connected, its network loop running); None when the broker did not answer within `wait_s`."""
    got: dict[str, bytes] = {}
    acks: queue.Queue = queue.Queue()

    def on_message(c, userdata, message) -> None:
        if message.retain and message.payload:
            got[message.topic] = bytes(message.payload)

    def on_subscribe(c, userdata, mid, reason_codes, properties) -> None:
        acks.put((mid, reason_codes))

    for topic in topics:
        client.message_callback_add(topic, on_message)
    previous, client.on_subscribe = client.on_subscribe, on_subscribe
    deadline = time.monotonic() + wait_s
    try:
        result, first = client.subscribe([(t, SubscribeOptions(qos=1)) for t in topics])
        if result != mqtt.MQTT_ERR_SUCCESS or not _acked(acks, first, deadline, topics):
            return None
        result, end = client.subscribe([(topics[0], SubscribeOptions(qos=1, retainHandling=2))])
        if result != mqtt.MQTT_ERR_SUCCESS or not _acked(acks, end, deadline, None):
            return None
        return dict(got)
    finally:
        client.unsubscribe(topics)
        for topic in topics:
            client.message_callback_remove(topic)
        client.on_subscribe = previous


def _acked(acks: queue.Queue, mid: int, deadline: float, topics: list[str] | None) -> bool:
    while True:
        try:
            got, codes = acks.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return False
        if got == mid:
            for topic, code in zip(topics or [], codes):
                if code.is_failure:
                    log.error("broker refused to let the anchor check read %s: %s", topic, code)
            return True


def read_retained_once(settings: LinkSettings, topics: list[str], wait_s: float) -> dict[str, bytes] | None:
    """`read_retained` on a short-lived client of its own (`<client id>-anchor`, clean start)."""
    endpoint = Endpoint.from_url(settings.url)
    client = new_client(settings, f"{settings.client_id}-anchor")
    connected = threading.Event()
    client.on_connect = lambda c, u, flags, reason_code, p: reason_code.is_failure or connected.set()
    deadline = time.monotonic() + wait_s
    try:
        client.connect_async(endpoint.host, endpoint.port, keepalive=max(5, int(wait_s) + 5), clean_start=True)
        client.loop_start()
        if not connected.wait(wait_s):
            return None
        return read_retained(client, topics, max(0.5, deadline - time.monotonic()))
    finally:
        client.disconnect()
        client.loop_stop()
