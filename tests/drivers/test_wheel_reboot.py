"""A wheel sensor board that reboots: the cut spin is missed, nothing carries over, the next spin stands.

docs/firmware-protocol.md §6.3: a new `boot_id` means the board restarted (events not yet sent are lost)
and its clock (`device_ms`, ms since boot) starts again. 004 §X.15-16: a spin whose result never came is
void (spin again); alternation and "the wheel turning against the ball" are judged on what was measured
in the spin itself. Reproduced with the simulator's `reboot()` over a real pty.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from drivers.board_link import BoardEvent, clock_went_back
from drivers.events import (DeviceIdentified, Direction, RotorMeasured, SpinMissed, WheelFault, WheelPhase,
                            WheelPhaseChanged, WheelResult)
from drivers.protocol import DeviceType
from drivers.protocol.boards import WHEEL, pack_event
from drivers.sim.wheel import WheelBoardSim
from drivers.wheel import WheelBoard
from firmware_host.link import ExpectedDevice
from tests.link.harness import Collector, EventSink, make_session

CW, CCW = Direction.CLOCKWISE, Direction.COUNTERCLOCKWISE


@pytest.fixture
def wheel_rig(tmp_path):
    sim = WheelBoardSim(path=tmp_path / "wheel0")
    sim.start()
    sink = EventSink()
    session = make_session(sim.path, Collector(), ExpectedDevice(DeviceType.WHEEL_SENSOR))
    driver = WheelBoard(session, emit=sink, min_revolutions=3)
    session.connect(timeout=5.0)
    yield sim, driver, sink
    session.stop()
    sim.stop()


def cut_by_a_reboot(sim: WheelBoardSim, laps: int, revolutions: int, ball_direction: Direction) -> None:
    """The board plays `laps` ball laps of a spin, the host has them all, and the board power-cycles."""
    sim.spin(5, revolutions=revolutions, ball_direction=ball_direction, cut_after_laps=laps)
    assert sim.wait_delivered(5.0)
    sim.reboot()


@pytest.mark.parametrize("cut_laps,played", [(3, 8), (9, 14)])
def test_a_reboot_mid_spin_reports_it_missed_and_the_next_spin_counts_only_its_own(wheel_rig, cut_laps, played):
    sim, driver, sink = wheel_rig
    sim.spin(17, revolutions=8, ball_direction=CW)
    (first,) = sink.take(WheelResult)
    cut_by_a_reboot(sim, cut_laps, revolutions=12, ball_direction=CCW)
    sim.spin(32, revolutions=played, ball_direction=CW)  # the dealer alternates from the cut spin
    (missed,) = sink.take(SpinMissed, timeout=10)
    (result,) = sink.take(WheelResult, timeout=10)
    assert first.valid and (first.spin, first.number) == (1, 17)
    assert (missed.first, missed.last) == (2, 2)
    assert (result.spin, result.number, result.ball_revolutions) == (3, 32, played)  # nothing carried over
    assert result.valid, result.faults  # no false same_direction, no false direction_not_alternated
    assert (result.ball_direction, result.rotor_direction) == (CW, CCW)
    identified = sink.of_type(DeviceIdentified)
    assert identified[-1].rebooted and driver.restarts == 1
    order = [type(e) for e in sink.seen if isinstance(e, (SpinMissed, WheelResult, WheelPhaseChanged))]
    assert order[-3:] == [SpinMissed, WheelPhaseChanged, WheelResult]  # the missed spin comes first


def test_the_next_spin_must_still_go_the_other_way_from_the_cut_spin(wheel_rig):
    sim, _, sink = wheel_rig
    cut_by_a_reboot(sim, 4, revolutions=10, ball_direction=CCW)
    sim.spin(9, revolutions=8, ball_direction=CCW, rotor_direction=CW)
    sink.take(SpinMissed, timeout=10)
    (result,) = sink.take(WheelResult, timeout=10)
    assert result.faults == (WheelFault.DIRECTION_NOT_ALTERNATED,)  # X.15: the cut spin was launched ccw


def test_a_reboot_between_spins_restarts_the_rotor_measurement_and_misses_nothing(wheel_rig):
    sim, _, sink = wheel_rig
    sim.spin(4, revolutions=6, ball_direction=CW, rotor_rpm=30.0)
    sink.take(WheelResult)
    sim.reboot()
    sim.spin(21, revolutions=7, ball_direction=CCW, rotor_rpm=20.0)
    (result,) = sink.take(WheelResult, timeout=10)
    sink.settle(0.2)
    assert not sink.of_type(SpinMissed)
    assert result.valid and result.ball_revolutions == 7
    assert result.rotor_rpm == pytest.approx(20.0, rel=0.01) and result.rotor_direction is CW
    rotors = sink.of_type(RotorMeasured)
    assert all(r.rpm > 0 for r in rotors) and rotors[-1].rpm == pytest.approx(20.0, rel=0.01)


class StandInLink:
    """A BoardLink that hands the driver events directly (drivers/board_link.py allows it for unit tests)."""

    name = "wheel"

    def subscribe(self, on_event, on_status) -> None:
        self.on_event, self.on_status = on_event, on_status


def board_event(event_id: int, device_ms: int, name: str, **fields) -> BoardEvent:
    code, data = pack_event(WHEEL, name, **fields)
    return BoardEvent(event_id, code, data, device_ms, 0.0, datetime(2025, 1, 1, tzinfo=timezone.utc))


def test_a_board_clock_that_goes_back_is_taken_for_a_restart_even_without_a_handshake():
    link, sink = StandInLink(), EventSink()
    WheelBoard(link, emit=sink)
    link.on_event(board_event(1, 500_000, "ball_pass", sensor=0))
    link.on_event(board_event(2, 500_100, "ball_pass", sensor=1))
    link.on_event(board_event(1, 40, "ball_pass", sensor=0))  # ms since boot: the board restarted
    (missed,) = sink.take(SpinMissed, timeout=1)
    assert (missed.first, missed.last) == (1, 1)
    phases = sink.take(WheelPhaseChanged, 2, timeout=1)
    assert [(p.phase, p.spin) for p in phases] == [(WheelPhase.BALL_IN_TRACK, 1), (WheelPhase.BALL_IN_TRACK, 2)]


def test_the_board_clock_wrapping_after_49_days_is_not_a_restart():
    assert not clock_went_back(2**32 - 10, 5)
    assert clock_went_back(3_600_000, 12) and not clock_went_back(12, 3_600_000)
