"""What the round engine is fed: phases, and the events devices, consoles and simulators enqueue.

Everything that is not the engine (paho callbacks, device readers, GPIO callbacks, simulators)
only builds one of these and puts it on the engine's inbox; the engine alone acts on them.
Device drivers (issue 5) report richer typed events (drivers/events.py); `device_input.py`
turns those into these.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from ..mqtt.identity import Reply


class Phase(enum.StrEnum):
    """The table's phase, published in `state` (docs/mqtt.md)."""

    PREPARING = "preparing"  # cussec: the dome is covered, fastened and shaken before bets open
    BETTING = "betting"
    NO_MORE_BETS = "no_more_bets"
    THROWING = "throwing"
    SPINNING = "spinning"
    DEALING = "dealing"
    REVEALING = "revealing"
    READING = "reading"
    CONFIRMING = "confirming"
    HELD = "held"
    SETTLING = "settling"
    CLOSED = "closed"


@dataclass(frozen=True)
class ConsoleCommand:
    """A dealer or supervisor action (GPIO console, the pit terminal over MQTT, or the simulator).
    `who`: the console device, or the broker user of an MQTT request; `display_name`: what that
    request called itself (recorded beside `who`, never instead of it)."""

    action: str
    who: str | None = None
    why: str | None = None
    result: dict[str, Any] | None = None  # override: {"faces": [...]} / {"number": n} / {"cards": {...}}
    source: str = "console"
    reply: Reply | None = None
    display_name: str | None = None
    tiles: dict[str, Any] | None = None  # P'ai Kao tile entry: seat, pairs, face_up (docs/mqtt.md, console)
    play: dict[str, Any] | None = None  # a play action's details (box, ticket, amount, fault ...): docs/mqtt.md


@dataclass(frozen=True)
class SupervisorKey:
    """The supervisor's key switch turned on or off."""

    on: bool
    who: str | None = None


@dataclass(frozen=True)
class Evidence:
    """A stored image or sensor log backing a reading: path relative to storage, and its SHA-256."""

    ref: str
    sha256: str


@dataclass(frozen=True)
class ThrowStarted:
    """The dice left the shooter's hand (or the dome was shaken): watch for them to come to rest."""

    round: int
    attempt: int


@dataclass(frozen=True)
class DiceSeen:
    """The camera's verdict once the dice are at rest: faces when valid, else the void reason."""

    round: int
    attempt: int
    faces: tuple[int, ...] | None
    void_reason: str | None
    evidence: Evidence | None = None
    detail: dict[str, Any] | None = None


@dataclass(frozen=True)
class SpinSeen:
    """The wheel's result: the number and ball direction, or why the spin is void."""

    number: int | None
    direction: str | None
    void_reason: str | None
    evidence: Evidence | None = None


@dataclass(frozen=True)
class CardSeen:
    """A card left the shoe (rank A 2-10 J Q K, suit S H D C), numbered in the shoe."""

    card: str
    position: int


@dataclass(frozen=True)
class CutCardSeen:
    after_position: int


@dataclass(frozen=True)
class ShoeLoaded:
    """A new shoe was put in the scanner."""


@dataclass(frozen=True)
class DomeStep:
    """One step of the cussec dome cycle (004 §VII.4-5): covered, fastened, shaken, bets_open, bell,
    released, lifted, result_shown, idle."""

    step: str
    detail: str = ""


@dataclass(frozen=True)
class DeviceHealthChanged:
    device: str
    health: str  # connected / degraded / lost
    message: str = ""


@dataclass(frozen=True)
class DeviceNotice:
    """Something a device reported that the round does not act on but the floor must know (a dome
    action out of order, a sensor fault, a gap in the shoe's card count): published on `events`. `routine`: a
    record, not a fault (what a camera reads with, told at every start), logged at info rather than warning."""

    device: str
    kind: str
    message: str
    detail: dict[str, Any]
    routine: bool = False


@dataclass(frozen=True)
class Stop:
    """Finish the current work and leave the loop (SIGTERM, --rounds reached)."""
