"""What a board driver needs from a firmware-link session, so drivers never import the service.

The session itself (handshake, acks, retransmission, heartbeats, health) lives in
`firmware_host.link.session.LinkSession`; it satisfies `BoardLink`. A driver is handed a
`BoardLink` (or, in tests, anything with the same methods) and never builds one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Protocol

from .errors import ProtocolError
from .events import DeviceEvent, DeviceIdentified
from .protocol.boards import unpack_event

log = logging.getLogger(__name__)


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


class BoardDriver:
    """Common part of the drivers fed by a firmware board: each event is decoded by the board's
    vocabulary and handed to the subclass's `_on_<event name>(event, **fields)`; an event that does
    not decode is counted and logged, never half-parsed. Subclasses call `_subscribe()` last in
    their constructor, once they are ready for events.

    A board that restarts loses what it was measuring and its clock starts again at zero. The driver
    sees it as a new boot id in the handshake (`device_identified`), or, should that be missed, as the
    board's clock going back; either way `_board_restarted` runs before anything from the new boot."""

    vocabulary = None  # the board's event table from drivers.protocol.boards (SHOE, WHEEL, ...)

    def __init__(self, link: BoardLink, emit: Callable[[DeviceEvent], None], name: str) -> None:
        self.link = link
        self.emit = emit
        self.name = name
        self.bad_events = 0
        self.restarts = 0
        self._boot_id: int | None = None
        self._last_device_ms: int | None = None

    def _subscribe(self) -> None:
        self.link.subscribe(self.on_board_event, self.on_link_status)

    def on_link_status(self, event: DeviceEvent) -> None:
        """Link status (health, identity) goes on to `emit`, after a reboot's consequences."""
        if isinstance(event, DeviceIdentified):
            if self._boot_id is not None and event.boot_id != self._boot_id:
                self._restarted({"device": self.name, "mono": event.mono, "utc": event.utc},
                                f"board rebooted (boot {self._boot_id:08x} -> {event.boot_id:08x})")
            self._boot_id = event.boot_id
        self.emit(event)

    def on_board_event(self, event: BoardEvent) -> None:
        if self._last_device_ms is not None and clock_went_back(self._last_device_ms, event.device_ms):
            self._restarted(self._stamp(event), f"board clock went back from {self._last_device_ms} to "
                                                f"{event.device_ms} ms")
        self._last_device_ms = event.device_ms
        try:
            name, fields = unpack_event(self.vocabulary, event.code, event.data)
        except ProtocolError as exc:
            self.bad_events += 1
            log.error("%s: %s", self.name, exc)
            return
        getattr(self, f"_on_{name}")(event, **fields)

    def _restarted(self, stamp: dict, reason: str) -> None:
        self.restarts += 1
        self._last_device_ms = None
        log.warning("%s: %s: nothing measured before it carries over", self.name, reason)
        self._board_restarted(stamp)

    def _board_restarted(self, stamp: dict) -> None:
        """What a restart means for this board's measurements; `stamp` dates the events it emits."""

    def _stamp(self, event: BoardEvent) -> dict:
        return {"device": self.name, "mono": event.mono, "utc": event.utc}


def clock_went_back(last_ms: int, now_ms: int) -> bool:
    """The board clock (ms since boot, 32 bits: it wraps after 49.7 days) ran backwards: it restarted."""
    return (now_ms - last_ms) % 2**32 >= 2**31
