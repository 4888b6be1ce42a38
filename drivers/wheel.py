"""Wheel sensor board driver: rotor index pulses, rim sensor passes and the pocket reader -> typed events.

The board reports raw sensor edges stamped with its own clock (ms). Two rotor index sensors sit
a few degrees apart (B clockwise of A), as do two rim sensors (rim 2 clockwise of rim 1): which
one fires shortly after the other gives the direction; the period between passes of one sensor
gives the speed, counted in board time so host latency never distorts it. A spin starts with the
first ball pass after a result and ends with the pocket reading.

A board reboot (new boot id, its clock back at zero) ends every measurement: rotor pulses, ball
passes and sensor faults of the old boot are dropped, and a spin it cut is reported `spin_missed`
(the round voids that attempt) rather than merged into the next one.
"""

from __future__ import annotations

import logging
from typing import Callable

from .board_link import BoardDriver, BoardEvent, BoardLink
from .events import (
    DeviceEvent, Direction, RotorMeasured, SensorFault, SpinMissed, WheelPhase, WheelPhaseChanged, WheelResult,
)
from .protocol.boards import FAULTS, NO_BALL, WHEEL
from .wheel_layout import SpinChecks, wheel_order

log = logging.getLogger(__name__)

ROTOR_A, ROTOR_B, RIM_1, RIM_2 = 0, 1, 0, 1
POCKET_READER = 4


def direction_from_passes(passes: list[tuple[int, int]]) -> Direction | None:
    """Direction from (sensor, ms) passes of a pair of sensors, the second a little clockwise of the first.

    Going clockwise, sensor 1 fires shortly after sensor 0 and long before the next sensor 0; so the
    mean gap 0 -> 1 is the short one. Counter-clockwise it is the other way round.
    """
    forward, backward = [], []
    for (s0, t0), (s1, t1) in zip(passes, passes[1:]):
        if s0 == 0 and s1 == 1:
            forward.append(t1 - t0)
        elif s0 == 1 and s1 == 0:
            backward.append(t1 - t0)
    if forward and backward:
        return Direction.CLOCKWISE if sum(forward) / len(forward) < sum(backward) / len(backward) \
            else Direction.COUNTERCLOCKWISE
    if forward or backward:  # a single transition: assume it was the close pair
        return Direction.CLOCKWISE if forward else Direction.COUNTERCLOCKWISE
    return None


class WheelBoard(BoardDriver):
    """Turns a wheel sensor board's events into RotorMeasured, WheelPhaseChanged, WheelResult, SensorFault."""

    vocabulary = WHEEL

    def __init__(self, link: BoardLink, *, emit: Callable[[DeviceEvent], None], name: str = "wheel",
                 order: str = "french", min_revolutions: int = 3, rotor_rpm_step: float = 1.0) -> None:
        super().__init__(link, emit, name)
        self.order = wheel_order(order)
        self.checks = SpinChecks(min_revolutions)
        self.rotor_rpm_step = rotor_rpm_step
        self.spin = 0
        self.in_spin = False
        self.ball_passes: list[tuple[int, int]] = []
        self.rotor_pulses: list[tuple[int, int]] = []
        self.rotor_rpm: float | None = None
        self.rotor_direction: Direction | None = None
        self._reported_rotor: tuple[float, Direction] | None = None
        self.active_faults: set[str] = set()
        self._fault_in_spin = False
        self._subscribe()

    def _on_rotor_index(self, event: BoardEvent, sensor: int) -> None:
        self.rotor_pulses.append((sensor, event.device_ms))
        a_pulses = [t for s, t in self.rotor_pulses if s == ROTOR_A]
        if len(a_pulses) < 2 or sensor != ROTOR_A:
            return
        period = a_pulses[-1] - a_pulses[-2]
        self.rotor_pulses = [(s, t) for s, t in self.rotor_pulses if t >= a_pulses[-2]]
        if period <= 0:
            return
        self.rotor_rpm = round(60_000 / period, 2)
        self.rotor_direction = direction_from_passes(self.rotor_pulses) or self.rotor_direction
        if self.rotor_direction is None:
            return
        last = self._reported_rotor
        if last is None or last[1] is not self.rotor_direction or abs(last[0] - self.rotor_rpm) >= self.rotor_rpm_step:
            self._reported_rotor = (self.rotor_rpm, self.rotor_direction)
            self.emit(RotorMeasured(**self._stamp(event), rpm=self.rotor_rpm, direction=self.rotor_direction))

    def _on_ball_pass(self, event: BoardEvent, sensor: int) -> None:
        if not self.in_spin:
            self._begin_spin()
            self.emit(WheelPhaseChanged(**self._stamp(event), phase=WheelPhase.BALL_IN_TRACK, spin=self.spin,
                                        rotor_rpm=self.rotor_rpm, rotor_direction=self.rotor_direction))
        self.ball_passes.append((sensor, event.device_ms))

    def _begin_spin(self) -> None:
        self.spin += 1
        self.in_spin = True
        self.ball_passes = []
        self._fault_in_spin = bool(self.active_faults)

    def _on_ball_in_pocket(self, event: BoardEvent, pocket: int) -> None:
        if not self.in_spin:
            self._begin_spin()  # a reading with no ball in the track: counted as a spin of 0 revolutions
        detected = pocket != NO_BALL
        bad_pocket = detected and pocket >= len(self.order)
        if bad_pocket:
            log.error("%s: pocket reader gave %d, the wheel has %d pockets", self.name, pocket, len(self.order))
        rim = RIM_1 if "rim_1" not in self.active_faults else RIM_2
        revolutions = sum(1 for s, _ in self.ball_passes if s == rim)
        ball_direction = direction_from_passes(self.ball_passes)
        faults = self.checks.evaluate(
            revolutions=revolutions, ball_direction=ball_direction, rotor_direction=self.rotor_direction,
            ball_detected=detected, sensor_fault=self._fault_in_spin or bool(self.active_faults) or bad_pocket)
        number = self.order[pocket] if detected and not bad_pocket else None
        self.emit(WheelResult(
            **self._stamp(event), spin=self.spin, number=number, pocket=pocket if detected else None,
            ball_revolutions=revolutions, ball_direction=ball_direction, rotor_direction=self.rotor_direction,
            rotor_rpm=self.rotor_rpm, faults=faults))
        self.in_spin = False
        self.ball_passes = []

    def _on_sensor_fault(self, event: BoardEvent, sensor: int, fault: int) -> None:
        sensor_name = WHEEL.sensors[sensor] if sensor < len(WHEEL.sensors) else f"sensor_{sensor}"
        self.active_faults.add(sensor_name)
        self._fault_in_spin = self._fault_in_spin or self.in_spin
        self.emit(SensorFault(**self._stamp(event), sensor=sensor_name, fault=FAULTS.get(fault, f"code_{fault}"),
                              active=True))

    def _on_sensor_ok(self, event: BoardEvent, sensor: int) -> None:
        sensor_name = WHEEL.sensors[sensor] if sensor < len(WHEEL.sensors) else f"sensor_{sensor}"
        self.active_faults.discard(sensor_name)
        self.emit(SensorFault(**self._stamp(event), sensor=sensor_name, fault="cleared", active=False))

    def _board_restarted(self, stamp: dict) -> None:
        if self.in_spin:
            cut_direction = direction_from_passes(self.ball_passes)
            log.error("%s: the board restarted during spin %d (%d ball passes seen): the spin is missed",
                      self.name, self.spin, len(self.ball_passes))
            self.emit(SpinMissed(**stamp, first=self.spin, last=self.spin))
            self.checks.spin_missed(cut_direction)
        if self.active_faults:
            log.warning("%s: sensor faults of the old boot dropped: %s", self.name, sorted(self.active_faults))
        self.in_spin = False
        self.ball_passes = []
        self.rotor_pulses = []
        self.rotor_rpm = None
        self.rotor_direction = None
        self._reported_rotor = None
        self.active_faults = set()
        self._fault_in_spin = False

    def set_lamp(self, on: bool, hold_s: float = 5.0) -> None:
        """The wheel's "no more bets" lamp; it goes dark by itself `hold_s` after the link goes quiet."""
        if on:
            self.link.hold_output("wheel_lamp", 1, hold_s)
        else:
            self.link.release_output("wheel_lamp")
