"""Whether the broker is reachable, and why not: every connection failure named and logged once per cause.

    watch = BrokerWatch("mqtts://broker.floor.local:8883")
    watch.failed(failure_cause(exc, host))   # ERROR the first time and when the cause changes, else DEBUG
    watch.connected()                        # INFO: reachable (again, after how long)
    watch.lost(reason_code)                  # WARNING: an established connection dropped (ERROR: taken over)
    watch.view()                             # {"reachable": ..., "since": ..., "cause": ...} for `state`

Causes are plain words an operator can act on: connection refused (nothing listening), TLS
verification failed (with OpenSSL's reason: host name mismatch, unknown CA, expired), TLS handshake
failed, host name not found (DNS), timed out, not authorised / bad user name or password (the
broker's CONNACK), session taken over (another client connected with this client id).
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from datetime import UTC, datetime

log = logging.getLogger("firmware_host.mqtt.link")

TAKEN_OVER = 0x8E  # MQTT 5 DISCONNECT "Session taken over"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def failure_cause(exc: BaseException | None, host: str) -> str:
    """A connection attempt's exception in words."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS verification failed: {exc.verify_message or exc.reason}"
    if isinstance(exc, ssl.CertificateError):
        return f"TLS verification failed: {exc}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS handshake failed: {exc.reason or exc}"
    if isinstance(exc, socket.gaierror):
        return f"host name {host!r} not found (DNS: {exc.strerror})"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (no broker listening there)"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, ConnectionResetError):
        return "connection reset by the broker (a TLS listener needing a client certificate?)"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return str(exc) if exc else "unknown failure"


def connack_cause(reason_code) -> str:
    """A refused CONNACK in words (paho's ReasonCode)."""
    value = getattr(reason_code, "value", reason_code)
    names = {0x86: "bad user name or password", 0x87: "not authorised", 0x85: "client id not valid",
             0x8A: "banned", 0x8C: "bad authentication method", 0x9F: "connection rate exceeded"}
    return f"the broker refused the connection: {names.get(value, str(reason_code))} (0x{value:02x})"


class BrokerWatch:
    """Reachability of one broker; logs transitions, not every retry. Thread-safe."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.reachable = False
        self.cause: str | None = "not connected yet"
        self.since = utc_now()
        self.failures = 0  # failed attempts since the last connection
        self._down_since = time.monotonic()
        self._lock = threading.Lock()

    def failed(self, cause: str) -> None:
        with self._lock:
            repeated = cause == self.cause and not self.reachable
            self.failures += 1
            if self.reachable or cause != self.cause:
                self.since = utc_now()
            if self.reachable:
                self._down_since = time.monotonic()
            self.reachable, self.cause = False, cause
        if repeated:
            log.debug("broker %s still unreachable: %s (attempt %d)", self.url, cause, self.failures)
        else:
            log.error("broker %s unreachable: %s; retrying (the table plays on, messages wait in the journal)",
                      self.url, cause)

    def connected(self) -> None:
        with self._lock:
            down_s, failures = time.monotonic() - self._down_since, self.failures
            was_down_with = self.cause if failures else None
            self.reachable, self.cause, self.since, self.failures = True, None, utc_now(), 0
        if was_down_with:
            log.info("broker %s reachable again after %.0f s (%d failed attempts; last: %s)", self.url, down_s,
                     failures, was_down_with)
        else:
            log.info("connected to broker %s", self.url)

    def lost(self, reason_code) -> None:
        value = getattr(reason_code, "value", None)
        if value == TAKEN_OVER:
            cause = ("session taken over: another client connected with this client id (the broker must "
                     "set use_username_as_clientid, docs/deploy.md)")
            level = logging.ERROR
        else:
            cause = f"connection lost: {reason_code}"
            level = logging.WARNING
        with self._lock:
            self.reachable, self.cause, self.since = False, cause, utc_now()
            self._down_since = time.monotonic()
        log.log(level, "broker %s: %s; reconnecting", self.url, cause)

    def view(self) -> dict:
        """For `state`: {"reachable", "since", "cause"}."""
        with self._lock:
            return {"reachable": self.reachable, "since": self.since, "cause": self.cause}
