"""The MQTT link: one paho-mqtt 2.x client (MQTT 5, persistent session) whose callbacks only enqueue.

    link = MqttLink(settings, will=Will(topic, offline_payload, online_payload),
                    subscriptions=[(topic, 1)], on_message=engine_queue.put, on_delivery=sender.deliver)
    link.start()                  # connect_async + loop_start: works while the broker is down
    link.publish(topic, payload, qos=1, retain=False, properties=...)  -> paho MQTTMessageInfo
    link.stop()                   # publishes the offline availability, disconnects

What the callbacks do (they run on paho's network thread and never block nor take our locks):
- on_connect: renew every subscription (MQTT 5 Retain Handling 2: a request someone published retained
  is never replayed at a subscription: a retained "no more bets" would close betting at every
  reconnect) and republish the retained "online" availability (so a
  stale Last Will "offline" is replaced after a broker restart); note the broker's Maximum Packet
  Size (the outbox never hands it a larger message); hand `Connected` to the sinks. A refused
  connection (not authorised, bad password) is a `ConnectFailed` with its cause.
- on_connect_fail: the TCP/TLS connection failed; the exception paho is handling names the cause
  (refused, TLS verification, DNS, timeout): hand `ConnectFailed(cause)` to the sinks.
- on_disconnect: hand `Disconnected` to the sinks (paho reconnects by itself, with backoff).
- on_publish: hand `Acked(mid, reason)` to the delivery sink (the outbox marks the row sent).
- on_message: hand `Inbound(topic, payload, response_topic, correlation_data)` to `on_message`.

Every failure is logged with its cause by `BrokerWatch` (mqtt/broker_watch.py): the first time and
whenever the cause changes at ERROR, repeats at DEBUG, the recovery at INFO.

The link does not ask the broker for an MQTT 5 Maximum Packet Size: Mosquitto 2.0.11 drops the
larger messages but keeps them in the client's in-flight window, and after 20 of them the client
receives nothing more. Requests' size is checked by the request gate before decoding instead.
"""

from __future__ import annotations

import logging
import socket
import ssl
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from ..errors import ConfigError
from .broker_watch import BrokerWatch, connack_cause, failure_cause

log = logging.getLogger(__name__)
# paho's own messages (errors in callbacks, protocol errors) go here; its DEBUG lines trace every
# packet, requesters' correlation data included, and are kept out of even a DEBUG log.
PAHO_LOG = logging.getLogger(f"{__name__}.paho")
PAHO_LOG.setLevel(logging.INFO)
# paho 2.2 also logs "Client is not connected" at ERROR when its thread is stopped before it ever
# connected: that is not a failure (BrokerWatch logs the real ones, with their cause).
PAHO_LOG.addFilter(lambda record: not record.getMessage().startswith("Client is not connected"))

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


class Connected(NamedTuple):
    session_present: bool


class Disconnected(NamedTuple):
    reason: str


class ConnectFailed(NamedTuple):
    """A connection attempt failed: `cause` says why in words (refused, TLS, DNS, timeout, not authorised)."""

    cause: str


class Acked(NamedTuple):
    mid: int
    reason_code: int  # MQTT 5 PUBACK reason: < 0x80 is success (0x10 "no matching subscribers" too)


class Inbound(NamedTuple):
    topic: str
    payload: bytes
    response_topic: str | None
    correlation_data: bytes | None
    mid: int = 0  # with `manual_ack`, hand it back to `MqttLink.ack` once the message is safe
    qos: int = 0
    retain: bool = False


@dataclass(frozen=True)
class Endpoint:
    """Where the broker is: from a URL `mqtt://host:port` or `mqtts://host:port`."""

    host: str
    port: int
    tls: bool

    @classmethod
    def from_url(cls, url: str) -> Endpoint:
        parts = urlsplit(url)
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise ConfigError(f"broker URL {url!r}: expected mqtt://host[:port] or mqtts://host[:port]")
        try:
            port = parts.port or DEFAULT_PORTS[parts.scheme]
        except ValueError:
            raise ConfigError(f"broker URL {url!r}: bad port") from None
        return cls(parts.hostname, port, parts.scheme == "mqtts")


@dataclass(frozen=True)
class LinkSettings:
    """Connection settings (from the config's [mqtt] section)."""

    url: str
    client_id: str
    username: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    keepalive_s: int = 30
    session_expiry_s: int = 86_400
    reconnect_min_s: float = 0.5
    reconnect_max_s: float = 30.0
    receive_maximum: int | None = None  # MQTT 5: at most this many unacknowledged messages sent to us


@dataclass(frozen=True)
class Will:
    """The availability topic: the Last Will payload and the payload republished on every connect."""

    topic: str
    offline: bytes
    online: bytes


def message_properties(response_topic: str | None = None, correlation_data: bytes | None = None,
                       expiry_s: int | None = None, user: list[tuple[str, str]] | None = None) -> Properties:
    """MQTT 5 PUBLISH properties for a JSON payload."""
    props = Properties(PacketTypes.PUBLISH)
    props.PayloadFormatIndicator = 1
    props.ContentType = "application/json"
    if response_topic:
        props.ResponseTopic = response_topic
    if correlation_data is not None:
        props.CorrelationData = correlation_data
    if expiry_s:
        props.MessageExpiryInterval = expiry_s
    if user:
        props.UserProperty = list(user)
    return props


def new_client(settings: LinkSettings, client_id: str) -> mqtt.Client:
    """A paho MQTT 5 client with the settings' login and TLS (callbacks and Will are the caller's)."""
    endpoint = Endpoint.from_url(settings.url)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    client.enable_logger(PAHO_LOG)
    if settings.username:
        client.username_pw_set(settings.username, settings.password)
    if endpoint.tls or settings.tls_ca:
        for name in ("tls_ca", "tls_cert", "tls_key"):
            value = getattr(settings, name)
            if value and not Path(value).is_file():
                raise ConfigError(f"mqtt.{name}: {value} is not a readable file")
        client.tls_set(ca_certs=settings.tls_ca, certfile=settings.tls_cert, keyfile=settings.tls_key,
                       cert_reqs=ssl.CERT_REQUIRED)
    return client


@dataclass
class MqttLink:
    """A paho client configured for the contract in docs/mqtt.md."""

    settings: LinkSettings
    will: Will
    subscriptions: list[tuple[str, int]] = field(default_factory=list)
    on_message: Callable[[Inbound], Any] | None = None
    on_delivery: Callable[[Any], Any] | None = None  # gets Connected, Disconnected, ConnectFailed and Acked
    on_status: Callable[[Any], Any] | None = None  # gets Connected, Disconnected and ConnectFailed
    manual_ack: bool = False  # acknowledge QoS 1 messages only when `ack` is called (after they are stored)

    def __post_init__(self) -> None:
        self.endpoint = Endpoint.from_url(self.settings.url)
        for name in ("tls_ca", "tls_cert", "tls_key"):
            value = getattr(self.settings, name)
            if value and not Path(value).is_file():
                raise ConfigError(f"mqtt.{name}: {value} is not a readable file")
        self.watch = BrokerWatch(self.settings.url)
        self.broker_max_packet: int | None = None  # from CONNACK: the broker refuses larger packets
        self.client = self._make_client()
        self.connected = False

    def _make_client(self) -> mqtt.Client:
        client = new_client(self.settings, self.settings.client_id)
        client.will_set(self.will.topic, self.will.offline, qos=1, retain=True,
                        properties=message_properties())
        client.reconnect_delay_set(self.settings.reconnect_min_s, self.settings.reconnect_max_s)  # type: ignore[arg-type]
        client.max_queued_messages_set(0)
        client.max_inflight_messages_set(100)  # paho's default 20 throttles 1,000 bet answers a round
        client.manual_ack_set(self.manual_ack)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        return client

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Connect in the background; paho keeps reconnecting until `stop`."""
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = self.settings.session_expiry_s
        if self.settings.receive_maximum:
            props.ReceiveMaximum = self.settings.receive_maximum
        self.client.connect_async(self.endpoint.host, self.endpoint.port, keepalive=self.settings.keepalive_s,
                                  clean_start=False, properties=props)
        self.client.loop_start()

    def stop(self, offline: bytes | None = None, timeout_s: float = 2.0) -> None:
        """Say offline (a clean disconnect does not fire the Will), then disconnect and stop."""
        if self.connected:
            info = self.client.publish(self.will.topic, offline or self.will.offline, qos=1, retain=True,
                                       properties=message_properties())
            try:
                info.wait_for_publish(timeout_s)
            except (RuntimeError, ValueError):
                log.warning("offline availability not acknowledged before disconnecting")
        self._close()

    def _close(self) -> None:
        if self.connected:
            self.connected = False  # first: the disconnect this causes is ours, not a lost connection
            self.client.disconnect()
        self.client.loop_stop()  # also ends paho's reconnect attempts
        self.connected = False

    def restart(self) -> None:
        """Drop paho's in-memory state (its unacknowledged messages, which it would re-send first on
        every reconnect) and connect afresh; the outbox hands everything unacknowledged again."""
        log.warning("restarting the MQTT client for %s: its unacknowledged messages are dropped and re-sent "
                    "from the journal", self.endpoint.host)
        self._close()
        self.client = self._make_client()
        self.start()

    # --- publishing --------------------------------------------------------------------------
    def publish(self, topic: str, payload: bytes, qos: int = 1, retain: bool = False,
                properties: Properties | None = None) -> mqtt.MQTTMessageInfo:
        """Hand one message to paho (QoS 1 messages queue in paho while disconnected)."""
        return self.client.publish(topic, payload, qos=qos, retain=retain,
                                   properties=properties or message_properties())

    def ack(self, mid: int, qos: int) -> None:
        """With `manual_ack`: acknowledge one received message (PUBACK) now that it is safe."""
        if qos:
            self.client.ack(mid, qos)

    # --- callbacks (paho's thread: enqueue only) ----------------------------------------------
    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._failed(connack_cause(reason_code))
            return
        self.connected = True
        sock = client.socket()
        if sock is not None:  # results are small messages: no Nagle delay (~40 ms with delayed ACKs)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.broker_max_packet = getattr(properties, "MaximumPacketSize", None) if properties else None
        self.watch.connected()
        for topic, qos in self.subscriptions:  # requests only: a retained one must never be replayed to us
            options = SubscribeOptions(qos=qos, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND)
            client.subscribe(topic, options=options)
        client.publish(self.will.topic, self.will.online, qos=1, retain=True, properties=message_properties())
        self._tell(Connected(bool(flags.session_present)))

    def _on_connect_fail(self, client, userdata) -> None:
        # paho calls this inside its `except OSError:` block: the exception being handled is the cause
        self._failed(failure_cause(sys.exc_info()[1], self.endpoint.host))

    def _failed(self, cause: str) -> None:
        self.connected = False
        self.watch.failed(cause)
        self._tell(ConnectFailed(cause))

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        was_connected, self.connected = self.connected, False
        if was_connected:
            self.watch.lost(reason_code)
        self._tell(Disconnected(str(reason_code)))

    def _tell(self, event: Any) -> None:
        for sink in (self.on_delivery, self.on_status):
            if sink:
                sink(event)

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        if self.on_delivery:
            self.on_delivery(Acked(mid, int(reason_code.value)))

    def _on_message(self, client, userdata, message) -> None:
        if not self.on_message:
            return
        props = message.properties
        response_topic = getattr(props, "ResponseTopic", None) if props else None
        correlation = getattr(props, "CorrelationData", None) if props else None
        self.on_message(Inbound(message.topic, bytes(message.payload), response_topic, correlation, message.mid,
                                message.qos, bool(message.retain)))
