"""Reading retained messages once: what the broker holds on a few topics (the table's anchors at start-up).

    payloads = read_retained(settings, ["tablehw/tables/craps-1/state", "tablehw/ledger/anchors/craps-1"], 5.0)
    # {topic: payload} for the topics that hold one; None when the broker could not be reached in time

A short-lived client of its own (`<client id>-anchor`, clean start) subscribes to the topics; the broker
sends their retained messages right after the SUBACK. A second SUBSCRIBE (retain handling 2: nothing
resent) marks the end: its SUBACK comes after them, so "no retained message" is known without guessing
a delay. Every wait is bounded by `wait_s`.
"""

from __future__ import annotations

import logging
import threading
import time

from paho.mqtt.subscribeoptions import SubscribeOptions

from .link import Endpoint, LinkSettings, new_client

log = logging.getLogger(__name__)


def read_retained(settings: LinkSettings, topics: list[str], wait_s: float) -> dict[str, bytes] | None:
    """The retained payload of each topic that has one (an empty payload counts as none); None when the
    broker did not answer within `wait_s`. A topic the broker refuses to let us read is logged and left out."""
    endpoint = Endpoint.from_url(settings.url)
    client = new_client(settings, f"{settings.client_id}-anchor")
    got: dict[str, bytes] = {}
    done = threading.Event()
    state = {"first": None}

    def on_connect(client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.error("broker refused the anchor check's connection: %s", reason_code)
            return
        state["first"] = client.subscribe([(t, SubscribeOptions(qos=1)) for t in topics])[1]

    def on_subscribe(client, userdata, mid, reason_codes, properties) -> None:
        if mid == state["first"]:
            for topic, code in zip(topics, reason_codes):
                if code.is_failure:
                    log.error("broker refused to let the anchor check read %s: %s", topic, code)
            client.subscribe([(topics[0], SubscribeOptions(qos=1, retainHandling=2))])
        else:
            done.set()

    def on_message(client, userdata, message) -> None:
        if message.retain and message.payload:
            got[message.topic] = bytes(message.payload)

    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, on_message
    deadline = time.monotonic() + wait_s
    try:
        client.connect_async(endpoint.host, endpoint.port, keepalive=max(5, int(wait_s) + 5), clean_start=True)
        client.loop_start()
        answered = done.wait(max(0.0, deadline - time.monotonic()))
    finally:
        client.disconnect()
        client.loop_stop()
    return dict(got) if answered else None
