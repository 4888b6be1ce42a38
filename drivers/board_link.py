"""What a board driver needs from a firmware-link session, so drivers never import the service.

The session itself (handshake, acks, retransmission, heartbeats, health) lives in
`firmware_host.link.session.LinkSession`; it satisfies `BoardLink`. A driver is handed a
`BoardLink` (or, in tests, anything with the same methods) and never builds one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Protocol

from .events import DeviceEvent


@dataclass(frozen=True, slots=True)
class BoardEvent:
    """One event from a board, delivered exactly once and in order: raw code and data bytes."""

    event_id: int
    code: int
    data: bytes
    device_ms: int   # the board's clock (ms since its boot), for durations measured on the board
    mono: float      # host monotonic time the frame arrived
    utc: datetime    # host UTC time of the same instant


class BoardLink(Protocol):
    """A live link to one board."""

    name: str

    def subscribe(self, on_event: Callable[[BoardEvent], None],
                  on_status: Callable[[DeviceEvent], None]) -> None:
        """Receive board events and link status (DeviceHealth, DeviceIdentified); callbacks must not block."""

    def command(self, code: int, args: bytes = b"", *, deadline_s: float | None = None,
                timeout: float | None = None) -> bytes:
        """Run a board command and return its result data; raises CommandFailed / LinkError."""

    def hold_output(self, name: str, value: int, hold_s: float) -> None:
        """Drive an output for at most `hold_s` per command, renewed while the link is up."""

    def release_output(self, name: str) -> None:
        """Return an output to its safe value and stop renewing it."""
