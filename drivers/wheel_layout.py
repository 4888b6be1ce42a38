"""Roulette wheel orders and the spin checks both wheel readers share (004 §X.15)."""

from __future__ import annotations

from types import MappingProxyType

from .errors import DeviceConfigError
from .events import Direction, WheelFault

# Clockwise from zero, as printed in the rules digest (004 §IX-X).
FRENCH = (0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1, 20, 14, 31, 9, 22,
          18, 29, 7, 28, 12, 35, 3, 26)
# "American numbering" on a single-zero wheel (004 §IX): the digest's order, starting from 2.
AMERICAN_NUMBERING = (2, 14, 35, 23, 4, 16, 33, 21, 6, 18, 31, 19, 8, 12, 29, 25, 10, 27, 1, 13, 36, 24, 3, 15, 34,
                      22, 5, 17, 32, 20, 7, 11, 30, 26, 9, 28, 0)

WHEEL_ORDERS = MappingProxyType({"french": FRENCH, "american_numbering": AMERICAN_NUMBERING})


def wheel_order(name: str) -> tuple[int, ...]:
    """The pocket order (pocket index -> number) configured by name."""
    try:
        return WHEEL_ORDERS[name]
    except KeyError:
        raise DeviceConfigError(f"unknown wheel order {name!r}; known: {sorted(WHEEL_ORDERS)}") from None


class SpinChecks:
    """The faults a spin's result carries; remembers the last ball direction for the alternation rule."""

    def __init__(self, min_revolutions: int = 3) -> None:
        if min_revolutions < 1:
            raise DeviceConfigError(f"min_revolutions {min_revolutions} must be at least 1")
        self.min_revolutions = min_revolutions
        self.last_ball_direction: Direction | None = None

    def evaluate(self, *, revolutions: int | None, ball_direction: Direction | None,
                 rotor_direction: Direction | None, ball_detected: bool = True, sensor_fault: bool = False,
                 failed_launch: bool = False) -> tuple[WheelFault, ...]:
        """Faults of one spin, in a fixed order. A spin that never launched does not count for alternation."""
        faults = []
        no_spin = failed_launch or (revolutions is not None and revolutions < self.min_revolutions)
        if no_spin:
            faults.append(WheelFault.NO_SPIN)
        if ball_direction is not None and rotor_direction is not None and ball_direction is rotor_direction:
            faults.append(WheelFault.SAME_DIRECTION)  # X.15: "the wheel turning against the ball"
        if (ball_direction is not None and not no_spin and self.last_ball_direction is not None
                and ball_direction is self.last_ball_direction):
            faults.append(WheelFault.DIRECTION_NOT_ALTERNATED)  # X.15: launched alternately cw and ccw
        if not ball_detected:
            faults.append(WheelFault.BALL_NOT_DETECTED)
        if sensor_fault:
            faults.append(WheelFault.SENSOR_FAULT)
        if ball_direction is not None and not no_spin:
            self.last_ball_direction = ball_direction
        return tuple(faults)

    def spin_missed(self, ball_direction: Direction | None) -> None:
        """A spin without a result (cut by a board reboot): the next spin must go the other way from it
        when its direction was seen, and is not checked for alternation when it was not."""
        self.last_ball_direction = ball_direction
