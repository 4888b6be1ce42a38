"""systemd's notify protocol (sd_notify), over the NOTIFY_SOCKET datagram socket: READY, WATCHDOG, STATUS.

A few lines instead of a dependency: send "KEY=VALUE" lines as one datagram to the socket named
in $NOTIFY_SOCKET (a path, or an abstract socket when it starts with '@'). Without the variable
(not under systemd) every call does nothing.
"""

from __future__ import annotations

import os
import socket
import time


class Notifier:
    """Talks to systemd when run as a Type=notify service; silent otherwise."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        enabled = usec.isdigit() and (not pid or pid == str(os.getpid()))
        self.watchdog_interval = int(usec) / 1e6 / 2 if enabled else None  # ping twice per timeout
        self._last_ping = 0.0

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def send(self, *fields: str) -> bool:
        if not self.address:
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            try:
                sock.sendto("\n".join(fields).encode(), self.address)
            except OSError:
                return False
        return True

    def ready(self, status: str = "") -> None:
        self.send("READY=1", *( [f"STATUS={status}"] if status else []))

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def watchdog(self) -> None:
        """Called from the main loop each turn: pings at half the watchdog timeout."""
        if self.watchdog_interval is None:
            return
        now = time.monotonic()
        if now - self._last_ping >= self.watchdog_interval:
            self._last_ping = now
            self.send("WATCHDOG=1")
