"""Wheel sensor board driver against its simulator over a real pty (004 §X.15: alternation, rotor against ball)."""

from __future__ import annotations

import pytest

from drivers.events import (
    DeviceHealth, Direction, Health, RotorMeasured, SensorFault, WheelFault, WheelPhase, WheelPhaseChanged,
    WheelResult,
)
from drivers.protocol import DeviceType
from drivers.sim.wheel import WheelBoardSim
from drivers.wheel import WheelBoard, direction_from_passes
from drivers.wheel_layout import AMERICAN_NUMBERING, FRENCH, SpinChecks
from firmware_host.link import ExpectedDevice
from tests.link.harness import Collector, EventSink, make_session

CW, CCW = Direction.CLOCKWISE, Direction.COUNTERCLOCKWISE


@pytest.fixture
def wheel_rig(tmp_path, request):
    order_name = getattr(request, "param", "french")
    order = FRENCH if order_name == "french" else AMERICAN_NUMBERING
    sim = WheelBoardSim(order=order, path=tmp_path / "wheel0")
    sim.start()
    sink = EventSink()
    session = make_session(sim.path, Collector(), ExpectedDevice(DeviceType.WHEEL_SENSOR))
    driver = WheelBoard(session, emit=sink, order=order_name, min_revolutions=3)
    session.connect(timeout=5.0)
    yield sim, driver, sink, session
    session.stop()
    sim.stop()


def test_wheel_orders_are_permutations_of_the_37_numbers():
    for order in (FRENCH, AMERICAN_NUMBERING):
        assert sorted(order) == list(range(37))
    assert FRENCH[:4] == (0, 32, 15, 19) and AMERICAN_NUMBERING[-1] == 0


def test_direction_from_sensor_pairs():
    assert direction_from_passes([(0, 0), (1, 10), (0, 600), (1, 612)]) is CW
    assert direction_from_passes([(1, 0), (0, 10), (1, 600), (0, 612)]) is CCW
    assert direction_from_passes([(0, 0)]) is None


def test_spin_checks_follow_article_x15():
    checks = SpinChecks(min_revolutions=3)
    assert checks.evaluate(revolutions=8, ball_direction=CW, rotor_direction=CCW) == ()
    assert checks.evaluate(revolutions=8, ball_direction=CW, rotor_direction=CCW) == (
        WheelFault.DIRECTION_NOT_ALTERNATED,)
    assert checks.evaluate(revolutions=2, ball_direction=CW, rotor_direction=CW) == (
        WheelFault.NO_SPIN, WheelFault.SAME_DIRECTION)
    # the no-spin did not count: the next ccw spin alternates with the last real one (cw)
    assert checks.evaluate(revolutions=9, ball_direction=CCW, rotor_direction=CW) == ()


@pytest.mark.parametrize("wheel_rig", ["french", "american_numbering"], indirect=True)
def test_a_clean_spin_gives_the_number_through_the_configured_order(wheel_rig):
    sim, driver, sink, _ = wheel_rig
    sim.spin(17, revolutions=8, rotor_rpm=24.0)
    (phase,) = sink.take(WheelPhaseChanged)
    (result,) = sink.take(WheelResult)
    assert phase.phase is WheelPhase.BALL_IN_TRACK and phase.spin == 1
    assert result.number == 17 and result.valid
    assert result.pocket == sim.order.index(17)
    assert result.ball_revolutions == 8
    assert result.ball_direction is CW and result.rotor_direction is CCW
    assert result.rotor_rpm == pytest.approx(24.0, rel=0.01)
    assert sink.of_type(RotorMeasured)[-1].direction is CCW
    assert result.mono > 0 and result.utc.tzinfo is not None


def test_every_number_of_the_french_wheel(wheel_rig):
    sim, driver, sink, _ = wheel_rig
    for number in FRENCH:
        sim.spin(number, revolutions=4)
    results = sink.take(WheelResult, 37, timeout=20)
    assert [r.number for r in results] == list(FRENCH)
    assert all(r.valid for r in results)


def test_no_spin_below_the_minimum_revolutions(wheel_rig):
    sim, _, sink, _ = wheel_rig
    sim.spin(5, revolutions=2)
    (result,) = sink.take(WheelResult)
    assert result.faults == (WheelFault.NO_SPIN,) and not result.valid and result.ball_revolutions == 2


def test_same_direction_as_the_rotor(wheel_rig):
    sim, _, sink, _ = wheel_rig
    sim.spin(5, ball_direction=CW, rotor_direction=CW)
    (result,) = sink.take(WheelResult)
    assert WheelFault.SAME_DIRECTION in result.faults


def test_direction_not_alternated(wheel_rig):
    sim, _, sink, _ = wheel_rig
    sim.spin(5, ball_direction=CW)
    sim.spin(6, ball_direction=CW)
    first, second = sink.take(WheelResult, 2)
    assert first.valid and second.faults == (WheelFault.DIRECTION_NOT_ALTERNATED,)


def test_ball_not_detected(wheel_rig):
    sim, _, sink, _ = wheel_rig
    sim.spin(None)
    (result,) = sink.take(WheelResult)
    assert result.number is None and WheelFault.BALL_NOT_DETECTED in result.faults


def test_sensor_fault_during_a_spin(wheel_rig):
    sim, _, sink, _ = wheel_rig
    sim.spin(9, fault_sensor=3)  # rim 2 loses its signal mid-spin
    (fault,) = sink.take(SensorFault)
    (result,) = sink.take(WheelResult)
    assert fault.sensor == "rim_2" and fault.fault == "no_signal" and fault.active
    assert WheelFault.SENSOR_FAULT in result.faults and result.number == 9
    sim.emit("sensor_ok", sensor=3)
    (cleared,) = sink.take(SensorFault)
    assert not cleared.active


@pytest.mark.parametrize("fault", ["drop_acks", "ignore_acks", "corrupt_crc", "repeat"])
def test_link_faults_during_a_spin_give_exactly_one_result(wheel_rig, fault):
    sim, _, sink, _ = wheel_rig
    setattr(sim.faults, fault, 10)
    sim.spin(23)
    sim.spin(8)
    results = sink.take(WheelResult, 2)
    sink.settle(0.3)
    assert [r.number for r in results] == [23, 8] and len(sink.of_type(WheelResult)) == 2


def test_garbage_and_delay_during_a_spin(wheel_rig):
    sim, _, sink, _ = wheel_rig
    sim.faults.garbage = b"\x01\x02\x03\xff" * 30
    sim.faults.delay = 0.001
    sim.spin(31)
    (result,) = sink.take(WheelResult)
    assert result.number == 31 and result.valid


def test_unplug_mid_spin_recovers_without_loss_or_duplicate(wheel_rig):
    sim, _, sink, _ = wheel_rig
    sim.spin(14)
    sim.unplug(0.3)
    sim.spin(27)  # played while unplugged: waits on the board until the host relinks
    results = sink.take(WheelResult, 2, timeout=6)
    sink.settle(0.3)
    assert [r.number for r in results] == [14, 27] and len(sink.of_type(WheelResult)) == 2
    health = [e.state for e in sink.of_type(DeviceHealth)]
    assert Health.LOST in health and health[-1] is Health.CONNECTED


def test_board_silent_mid_spin_recovers(wheel_rig):
    sim, _, sink, _ = wheel_rig
    sim.go_silent(0.9)
    sim.spin(2)
    results = sink.take(WheelResult, 1, timeout=6)
    sink.settle(0.3)
    assert [r.number for r in results] == [2] and len(sink.of_type(WheelResult)) == 1
    assert any(e.state is Health.LOST for e in sink.of_type(DeviceHealth))


def test_wheel_lamp_holds_then_drops_by_deadline(wheel_rig):
    sim, driver, sink, session = wheel_rig
    driver.set_lamp(True, hold_s=0.3)
    assert sim.output("wheel_lamp") == 1
    driver.set_lamp(False)
    assert sim.output("wheel_lamp") == 0
