"""Typed device events: every one names its device and carries monotonic and UTC timestamps.

Events are msgspec structs tagged by `type`, so `msgspec.json.encode(event)` gives the JSON the CLI
prints and the service journals. `mono` is `time.monotonic()` when the bytes (or the GPIO edge)
reached this host — use it for durations and latency; `utc` is the wall-clock time of the same
instant, for records.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from enum import StrEnum

import msgspec


def now_stamp() -> tuple[float, datetime]:
    """(monotonic seconds, aware UTC datetime) of this instant."""
    return time.monotonic(), datetime.now(timezone.utc)


class DeviceEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every device event."""

    device: str
    mono: float
    utc: datetime


class Health(StrEnum):
    CONNECTED = "connected"
    DEGRADED = "degraded"
    LOST = "lost"


class DeviceHealth(DeviceEvent, frozen=True, kw_only=True, tag="device_health"):
    """The link to a device changed state; `reason` says why in words an operator can act on."""

    state: Health
    reason: str


class DeviceIdentified(DeviceEvent, frozen=True, kw_only=True, tag="device_identified"):
    """A board answered the handshake and was accepted."""

    device_type: str
    serial: str
    firmware: str
    protocol_version: int
    boot_id: int
    rebooted: bool  # a different boot than the last session: events not yet sent then are gone


class SensorFault(DeviceEvent, frozen=True, kw_only=True, tag="sensor_fault"):
    """A sensor reported a fault (active) or its recovery (not active)."""

    sensor: str
    fault: str
    active: bool


# --- roulette wheel (sensor board and commercial wheel alike) ---

class Direction(StrEnum):
    CLOCKWISE = "cw"
    COUNTERCLOCKWISE = "ccw"

    @property
    def opposite(self) -> Direction:
        return Direction.COUNTERCLOCKWISE if self is Direction.CLOCKWISE else Direction.CLOCKWISE


class WheelFault(StrEnum):
    """Why a spin's result may not stand (the round decides; 004 §X.15-16)."""

    NO_SPIN = "no_spin"                                   # too few ball revolutions, or a failed launch
    SAME_DIRECTION = "same_direction"                     # ball launched with the rotor (X.15)
    DIRECTION_NOT_ALTERNATED = "direction_not_alternated"  # same ball direction as the last spin (X.15)
    BALL_NOT_DETECTED = "ball_not_detected"               # ball removed or not sensed
    SENSOR_FAULT = "sensor_fault"                         # a sensor, motor or encoder fault during the spin


class WheelPhase(StrEnum):
    """Phases of a spin (the commercial wheel's states 1-6)."""

    GAME_START = "game_start"
    NEW_GAME = "new_game"              # rotor turning, bets open
    BALL_IN_TRACK = "ball_in_track"
    NO_MORE_BETS = "no_more_bets"
    WINNING_NUMBER = "winning_number"
    TABLE_CLOSED = "table_closed"


class WheelPhaseChanged(DeviceEvent, frozen=True, kw_only=True, tag="wheel_phase"):
    """The wheel entered a new phase; warnings present at that moment are carried here."""

    phase: WheelPhase
    spin: int | None
    rotor_rpm: float | None = None
    rotor_direction: Direction | None = None
    faults: tuple[WheelFault, ...] = ()


class WheelWarning(DeviceEvent, frozen=True, kw_only=True, tag="wheel_warning"):
    """Warnings changed without a phase change (e.g. the ball was removed while in the track)."""

    spin: int | None
    faults: tuple[WheelFault, ...]


class RotorMeasured(DeviceEvent, frozen=True, kw_only=True, tag="rotor"):
    """Rotor speed and direction changed noticeably."""

    rpm: float
    direction: Direction


class WheelResult(DeviceEvent, frozen=True, kw_only=True, tag="wheel_result"):
    """The ball settled (or was expected to): the winning number and everything that may void it."""

    spin: int | None
    number: int | None
    pocket: int | None = None
    ball_revolutions: int | None = None
    ball_direction: Direction | None = None
    rotor_direction: Direction | None = None
    rotor_rpm: float | None = None
    faults: tuple[WheelFault, ...] = ()

    @property
    def valid(self) -> bool:
        return self.number is not None and not self.faults


class SpinMissed(DeviceEvent, frozen=True, kw_only=True, tag="spin_missed"):
    """Spins whose result this host never saw: the link was down meanwhile, or the board rebooted mid-spin."""

    first: int
    last: int


class WheelBonus(DeviceEvent, frozen=True, kw_only=True, tag="wheel_bonus"):
    """A bonus win the commercial wheel announced (`*Y`): its type (1-6) and its 3-character value."""

    spin: int | None
    bonus_type: int
    value: str


class WheelError(DeviceEvent, frozen=True, kw_only=True, tag="wheel_error"):
    """An error message the commercial wheel printed during play (`*F`); the status flags judge the spin."""

    spin: int | None
    message: str


# --- card shoe ---

class Suit(StrEnum):
    CLUBS = "clubs"
    DIAMONDS = "diamonds"
    HEARTS = "hearts"
    SPADES = "spades"


class CardOut(DeviceEvent, frozen=True, kw_only=True, tag="card_out"):
    """A card left the shoe: rank 1 (ace) to 13 (king), suit, position in the shoe (first card = 1)."""

    rank: int
    suit: Suit
    seq: int


class CardUnreadable(DeviceEvent, frozen=True, kw_only=True, tag="card_unreadable"):
    """A card left the shoe but the scanner could not read it: the coup cannot be validated."""

    seq: int


class CardSequenceGap(DeviceEvent, frozen=True, kw_only=True, tag="card_sequence_gap"):
    """The shoe's card counter skipped or went back: cards left unseen or were counted twice."""

    expected: int
    got: int


class CutCardSeen(DeviceEvent, frozen=True, kw_only=True, tag="cut_card"):
    """The cut card came out after card `after_seq`: the current coup is the last of the shoe."""

    after_seq: int


class ShoeEmptied(DeviceEvent, frozen=True, kw_only=True, tag="shoe_emptied"):
    cards: int


class ShoeLoaded(DeviceEvent, frozen=True, kw_only=True, tag="shoe_loaded"):
    """A new shoe was loaded: card positions restart at 1."""


# --- cussec dome (GPIO) ---

class DomePhase(StrEnum):
    """Where the dome cycle stands (004 §VII.4-5, 11)."""

    IDLE = "idle"                  # round over: the dome may be covered
    COVERED = "covered"            # opaque dome on, clasps open
    FASTENED = "fastened"          # both clasps fastened
    SHAKING = "shaking"            # lever pressed once or twice
    BETS_OPEN = "bets_open"        # three presses: light panel on
    BETS_CLOSED = "bets_closed"    # bell rung: "nada mais"
    RELEASED = "released"          # both clasps released
    LIFTED = "lifted"              # dome lifted: the dice are visible
    RESULT_SHOWN = "result_shown"  # winning areas lit


class DomeAction(StrEnum):
    COVER = "cover"
    FASTEN_CLASP = "fasten_clasp"
    LEVER_PRESS = "lever_press"
    BELL = "bell"
    RELEASE_CLASP = "release_clasp"
    LIFT = "lift"
    SHOW_RESULT = "show_result"
    END_ROUND = "end_round"


class DomeStep(DeviceEvent, frozen=True, kw_only=True, tag="dome_step"):
    """An action in its expected place; `phase` is the phase it led to."""

    action: DomeAction
    phase: DomePhase
    presses: int
    detail: str = ""


class DomeOutOfOrder(DeviceEvent, frozen=True, kw_only=True, tag="dome_out_of_order"):
    """An action outside the procedure (e.g. lifting before the bell, fewer than three presses)."""

    action: DomeAction
    phase: DomePhase
    presses: int
    reason: str


# --- dealer console (GPIO) ---

class ConsoleButton(StrEnum):
    NO_MORE_BETS = "no_more_bets"
    CONFIRM = "confirm"
    VOID = "void"
    NEW_SHOOTER = "new_shooter"   # "new shoe" on card tables: same button
    SUPERVISOR_KEY = "supervisor_key"


class ButtonPressed(DeviceEvent, frozen=True, kw_only=True, tag="button"):
    button: ConsoleButton
    supervisor: bool  # the supervisor key was turned on at the moment of the press


class SupervisorKey(DeviceEvent, frozen=True, kw_only=True, tag="supervisor_key"):
    on: bool


def to_json(event: DeviceEvent) -> bytes:
    """One event as compact JSON (with its `type` tag)."""
    return msgspec.json.encode(event)
