"""Cammegh-style wheel adapter: parsing, one event per state change, warnings, and the reader over a pty.

Line format and flag meanings: /work/shared/oracles/PUBLISHED.md, "Roulette wheel reader".
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from drivers.cammegh import CammeghDecoder
from drivers.cammegh_lines import parse_status
from drivers.cammegh_reader import CammeghReader
from drivers.errors import ProtocolError
from drivers.events import (
    DeviceHealth, Direction, Health, SpinMissed, WheelFault, WheelPhase, WheelPhaseChanged, WheelResult, WheelWarning,
)
from drivers.sim.cammegh import CammeghSim
from drivers.transport import Backoff
from tests.link.harness import EventSink

UTC = datetime(2025, 1, 1, tzinfo=timezone.utc)


def test_published_example_line():
    # PUBLISHED.md: `*X;2;002;31;0;146;1` — rotor turning, spin 2, last number 31, no warning, 146, ccw.
    status = parse_status("*X;2;002;31;0;146;1\r\n")
    assert (status.state, status.spin, status.number, status.flags, status.rotor_rpm) == (2, 2, 31, 0, 146)
    assert status.rotor_direction is Direction.COUNTERCLOCKWISE


@pytest.mark.parametrize("line,reason", [
    ("*X;2;002;31;0;146", "not a status line"),
    ("*X;7;002;31;0;146;1", "not a status line"),
    ("*X;2;02;31;0;146;1", "not a status line"),
    ("*X;5;002;37;0;146;1", "not on a single-zero wheel"),
    ("*X;5;002;12;1F;146;1", "unknown warning flags"),
    ("garbage", "not a status line"),
])
def test_bad_lines_are_refused_with_a_reason(line, reason):
    with pytest.raises(ProtocolError, match=reason):
        parse_status(line)


def spin_lines(spin: int, number: int, last: int, repeat: int, flags: int = 0, direction: int = 1) -> list[str]:
    lines = []
    for state, shown, warn in ((2, last, 0), (3, last, flags), (4, last, flags), (5, number, flags)):
        for i in range(repeat):
            lines.append(f"*X;{state};{spin:03d};{shown:02d};{warn:X};{146 + i % 3:03d};{direction}")
    return lines


def feed_all(decoder, lines):
    out = []
    for i, line in enumerate(lines):
        out += decoder.feed(line, float(i), UTC)
    return out


def test_repeating_stream_gives_each_state_change_exactly_once():
    lines = spin_lines(1, 17, 0, repeat=7, direction=1) + spin_lines(2, 4, 17, repeat=5, direction=0)
    events = feed_all(CammeghDecoder(), lines)
    assert [(type(e).__name__, getattr(e, "phase", None)) for e in events] == [
        ("WheelPhaseChanged", WheelPhase.NEW_GAME), ("WheelPhaseChanged", WheelPhase.BALL_IN_TRACK),
        ("WheelPhaseChanged", WheelPhase.NO_MORE_BETS), ("WheelResult", None),
    ] * 2
    results = [e for e in events if isinstance(e, WheelResult)]
    assert [(r.spin, r.number, r.valid) for r in results] == [(1, 17, True), (2, 4, True)]
    assert results[0].rotor_direction is Direction.COUNTERCLOCKWISE and results[0].ball_direction is Direction.CLOCKWISE


def test_warning_arriving_with_a_state_change_belongs_to_that_event():
    lines = spin_lines(1, 17, 0, repeat=3, flags=2)
    events = feed_all(CammeghDecoder(), lines)
    assert not any(isinstance(e, WheelWarning) for e in events)
    in_track = [e for e in events if isinstance(e, WheelPhaseChanged) and e.phase is WheelPhase.BALL_IN_TRACK]
    assert in_track[0].faults == (WheelFault.SAME_DIRECTION,)
    (result,) = [e for e in events if isinstance(e, WheelResult)]
    assert WheelFault.SAME_DIRECTION in result.faults and not result.valid


@pytest.mark.parametrize("flags,faults,number", [
    (1, (WheelFault.BALL_NOT_DETECTED,), None),
    (2, (WheelFault.SAME_DIRECTION,), 17),
    (4, (WheelFault.SENSOR_FAULT,), 17),
    (8, (WheelFault.NO_SPIN,), 17),
    (0xC, (WheelFault.NO_SPIN, WheelFault.SENSOR_FAULT), 17),
])
def test_warning_flags_map_to_the_same_typed_faults_as_the_sensor_board(flags, faults, number):
    decoder = CammeghDecoder()
    (result,) = decoder.feed(f"*X;5;001;17;{flags:X};146;1", 0.0, UTC)
    assert result.faults == faults and result.number == number


def test_warning_without_a_state_change_is_its_own_event_once():
    decoder = CammeghDecoder()
    lines = ["*X;3;001;00;0;146;1"] * 2 + ["*X;3;001;00;1;146;1"] * 4 + ["*X;3;001;00;0;145;1"] * 2
    events = feed_all(decoder, lines)
    assert [type(e) for e in events] == [WheelPhaseChanged, WheelWarning, WheelWarning]
    assert events[1].faults == (WheelFault.BALL_NOT_DETECTED,) and events[2].faults == ()


def test_direction_not_alternated_across_spins():
    decoder = CammeghDecoder()
    events = feed_all(decoder, spin_lines(1, 3, 0, 1, direction=1) + spin_lines(2, 5, 3, 1, direction=1))
    results = [e for e in events if isinstance(e, WheelResult)]
    assert results[0].valid and results[1].faults == (WheelFault.DIRECTION_NOT_ALTERNATED,)


def test_missed_spins_are_reported():
    decoder = CammeghDecoder()
    events = feed_all(decoder, ["*X;3;004;00;0;146;1", "*X;2;007;12;0;146;0"])
    missed = [e for e in events if isinstance(e, SpinMissed)]
    assert [(m.first, m.last) for m in missed] == [(4, 6)]  # spin 4 launched without a result; 5, 6 unseen


def test_a_bad_line_leaves_the_state_alone():
    decoder = CammeghDecoder()
    decoder.feed("*X;3;001;00;0;146;1", 0.0, UTC)
    with pytest.raises(ProtocolError):
        decoder.feed("*X;3;001;0#;0;146;1", 1.0, UTC)
    assert decoder.feed("*X;3;001;00;0;146;1", 2.0, UTC) == [] and decoder.bad_lines == 1


@pytest.fixture
def wheel(tmp_path):
    sim = CammeghSim(path=tmp_path / "cammegh0", period=0.02)
    sim.start()
    sink = EventSink()
    reader = CammeghReader(sim.path, emit=sink, period_s=0.02, lost_after_s=0.3, backoff=Backoff(0.02, 0.1))
    reader.start()
    assert reader.wait_connected(5.0)
    yield sim, reader, sink
    reader.stop()
    sim.stop()


def results_of(sink, count, timeout=5.0):
    got = sink.take(WheelResult, count, timeout)
    sink.settle(0.15)
    return got


def test_reader_over_a_pty_emits_each_change_once(wheel):
    sim, reader, sink = wheel
    sim.play_spin(17, hold=0.1)
    sim.play_spin(25, hold=0.1)
    results = results_of(sink, 2)
    assert [(r.number, r.valid) for r in results] == [(17, True), (25, True)]
    phases = [e.phase for e in sink.of_type(WheelPhaseChanged)]
    assert phases.count(WheelPhase.BALL_IN_TRACK) == 2 and phases.count(WheelPhase.NO_MORE_BETS) == 2
    assert len(sink.of_type(WheelResult)) == 2
    assert sim.lines_sent > 20  # many repeats went by, each change emitted once
    assert sink.of_type(DeviceHealth)[0].state is Health.CONNECTED


def test_reader_with_repeated_and_garbled_lines(wheel):
    sim, reader, sink = wheel
    sim.faults.repeat = 50
    sim.faults.corrupt_crc = 3
    sim.faults.garbage = b"\x00\xff*X;9\r\n"
    sim.play_spin(8, hold=0.1)
    assert [r.number for r in results_of(sink, 1)] == [8]
    assert len(sink.of_type(WheelResult)) == 1 and reader.decoder.bad_lines >= 2


def test_reader_with_delayed_lines(wheel):
    sim, reader, sink = wheel
    sim.faults.delay = 0.005
    sim.play_spin(0, hold=0.1)
    assert [r.number for r in results_of(sink, 1)] == [0]


def test_reader_silent_wheel_is_degraded_then_lost_then_back(wheel):
    sim, reader, sink = wheel
    sim.go_silent(0.6)
    time.sleep(0.8)
    sim.play_spin(11, hold=0.1)
    assert [r.number for r in results_of(sink, 1)] == [11]
    states = [e.state for e in sink.of_type(DeviceHealth)]
    lost = states.index(Health.LOST)
    assert states[0] is Health.CONNECTED and Health.DEGRADED in states[:lost] and Health.CONNECTED in states[lost:]


def test_reader_unplug_and_replug_without_duplicates(wheel):
    sim, reader, sink = wheel
    sim.play_spin(30, hold=0.1)
    assert [r.number for r in results_of(sink, 1)] == [30]
    sim.unplug(0.3)  # the result line keeps repeating after the replug: it must not count again
    time.sleep(0.6)
    sim.play_spin(6, hold=0.1)
    results = results_of(sink, 1)
    assert [r.number for r in results] == [6] and len(sink.of_type(WheelResult)) == 2
    states = [e.state for e in sink.of_type(DeviceHealth)]
    assert Health.LOST in states and states[-1] is Health.CONNECTED


def test_reader_reports_a_spin_played_while_unplugged(wheel):
    sim, reader, sink = wheel
    sim.play_spin(30, hold=0.05)
    sink.take(WheelResult, 1)
    sim.unplug(0.5)
    sim.play_spin(1, hold=0.05)  # spin 2: entirely while unplugged
    sim.play_spin(2, hold=0.05)  # spin 3: its result is still showing after the replug
    (missed,) = sink.take(SpinMissed, 1)
    (result,) = sink.take(WheelResult, 1)
    assert (missed.first, missed.last) == (2, 2)
    assert (result.spin, result.number) == (3, 2)
