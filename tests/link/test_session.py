"""Host session against the device-side simulator over a real pty: handshake, events, commands, every fault."""

from __future__ import annotations

import time

import pytest

from drivers.errors import CommandFailed, HandshakeRefused
from drivers.events import DeviceIdentified, Health
from drivers.protocol import DeviceType, Status
from drivers.protocol.boards import SHOE, WHEEL
from drivers.sim.board import BoardSim
from firmware_host.link import ExpectedDevice

from .harness import make_session


def ids(events) -> list[int]:
    return [e.event_id for e in events]


def test_handshake_reads_identity_and_reports_connected(linked):
    board, session, collector = linked
    assert session.identity.serial == "WSB-0001" and session.identity.firmware == "sim-1.0.0"
    assert session.identity.device_type == DeviceType.WHEEL_SENSOR
    identified = collector.status.get(timeout=1)
    assert isinstance(identified, DeviceIdentified) and not identified.rebooted
    assert session.health is Health.CONNECTED


def test_events_arrive_in_order_with_timestamps(linked):
    board, session, collector = linked
    sent = [board.emit("ball_pass", sensor=i % 2) for i in range(50)]
    got = collector.take_events(50)
    assert ids(got) == sent
    assert all(e.mono > 0 and e.utc.tzinfo is not None for e in got)
    assert board.wait_delivered(2.0)


def test_ping_round_trip(linked):
    _, session, _ = linked
    assert session.ping(b"hello") == b"hello"


@pytest.mark.parametrize("device_type,serial,firmware,version,reason", [
    (DeviceType.SHOE_SCANNER, "WSB-0001", "sim-1.0.0", 1, "SHOE_SCANNER, configured as a WHEEL_SENSOR"),
    (DeviceType.WHEEL_SENSOR, "WSB-9999", "sim-1.0.0", 1, "serial number 'WSB-9999'"),
    (DeviceType.WHEEL_SENSOR, "WSB-0001", "sim-0.9.0", 1, "firmware build 'sim-0.9.0'"),
    (DeviceType.WHEEL_SENSOR, "WSB-0001", "sim-1.0.0", 2, "protocol version 2"),
])
def test_handshake_refuses_a_mismatch_with_a_logged_reason(tmp_path, collector, caplog, device_type, serial,
                                                           firmware, version, reason):
    sim = BoardSim(WHEEL, serial=serial, firmware=firmware, protocol_version=version, device_type=device_type,
                   path=tmp_path / "dev")
    sim.start()
    expect = ExpectedDevice(DeviceType.WHEEL_SENSOR, serial="WSB-0001", firmware=("sim-1.0.0",))
    session = make_session(sim.path, collector, expect)
    try:
        with pytest.raises(HandshakeRefused, match=reason):
            session.connect(timeout=1.0)
        assert reason in caplog.text
        assert collector.wait_health(Health.LOST, 1.0).reason.startswith("refused")
        sim.emit("ball_pass", sensor=0)
        assert collector.take_events(1, timeout=0.3) == []  # nothing from a refused board reaches the service
    finally:
        session.stop()
        sim.stop()


def test_actuator_without_deadline_is_refused_by_the_board(linked):
    board, session, _ = linked
    with pytest.raises(CommandFailed) as caught:
        session.command(0x02, bytes((0, 1)))  # SET_OUTPUT wheel_lamp on, no deadline
    assert caught.value.status == Status.DEADLINE_REQUIRED
    assert board.output("wheel_lamp") == 0


def test_actuator_returns_to_safe_state_by_itself_when_the_host_goes_silent(linked):
    board, session, _ = linked
    session.hold_output("wheel_lamp", 1, hold_s=0.3)
    time.sleep(0.5)  # renewed while the host is alive
    assert board.output("wheel_lamp") == 1
    session.stop()  # the host goes silent: no renewals, no heartbeats
    end = time.monotonic() + 2
    while board.output("wheel_lamp") != 0 and time.monotonic() < end:
        time.sleep(0.01)
    assert board.output("wheel_lamp") == 0
    assert board.output_log[-1][2:] in ((0, "deadline"), (0, "host silent"))


def test_single_command_deadline_expires_on_the_board(linked):
    board, session, _ = linked
    session.command(0x02, bytes((0, 1)), deadline_s=0.1)
    assert board.output("wheel_lamp") == 1
    time.sleep(0.3)
    assert board.output("wheel_lamp") == 0 and board.output_log[-1][3] == "deadline"


def test_dropped_acks_are_recovered_without_duplicates(linked):
    board, session, collector = linked
    board.faults.drop_acks = 3
    results = [session.ping(bytes([i])) for i in range(5)]
    assert results == [bytes([i]) for i in range(5)]
    assert len(board.commands) == 5  # retransmitted commands were not executed twice


def test_ignored_acks_make_the_board_resend_and_the_host_drops_copies(linked):
    board, session, collector = linked
    board.faults.ignore_acks = 10_000
    sent = [board.emit("ball_pass", sensor=0) for _ in range(6)]  # within the window of 8
    assert ids(collector.take_events(6)) == sent
    end = time.monotonic() + 3
    while board.channel.stats.retransmitted == 0 and time.monotonic() < end:
        time.sleep(0.01)
    assert board.channel.stats.retransmitted > 0
    board.faults.ignore_acks = 0
    assert board.wait_delivered(3.0)
    assert collector.take_events(1, timeout=0.2) == []
    assert session.duplicates_dropped == 0  # same session: the channel itself recognised the copies
    assert session.channel.stats.duplicates > 0


def test_corrupted_crc_frames_are_dropped_and_resent(linked):
    board, session, collector = linked
    board.faults.corrupt_crc = 4
    sent = [board.emit("rotor_index", sensor=i % 2) for i in range(8)]
    assert ids(collector.take_events(8)) == sent
    assert session.transport.decoder.errors >= 1


def test_repeated_frames_are_delivered_once(linked):
    board, session, collector = linked
    board.faults.repeat = 6
    sent = [board.emit("rotor_index", sensor=0) for _ in range(6)]
    assert ids(collector.take_events(6)) == sent
    assert collector.take_events(1, timeout=0.2) == []


def test_garbage_on_the_line_is_skipped(linked):
    board, session, collector = linked
    board.faults.garbage = b"\xde\xad\xbe\xef" * 20
    sent = [board.emit("rotor_index", sensor=1) for _ in range(3)]
    assert ids(collector.take_events(3)) == sent


def test_delay_on_the_line_still_delivers(linked):
    board, session, collector = linked
    board.faults.delay = 0.02
    sent = [board.emit("rotor_index", sensor=1) for _ in range(3)]
    assert ids(collector.take_events(3)) == sent
    board.faults.delay = 0.0


def test_silent_board_goes_degraded_then_lost_then_recovers(linked):
    board, session, collector = linked
    board.go_silent(1.0)
    assert collector.wait_health(Health.DEGRADED, 2.0).reason.startswith("no frame")
    assert collector.wait_health(Health.LOST, 2.0)
    sent = [board.emit("ball_pass", sensor=1) for _ in range(3)]  # raised while silent
    assert collector.wait_health(Health.CONNECTED, 3.0)
    assert ids(collector.take_events(3)) == sent


def test_unplug_and_replug_loses_and_duplicates_nothing(linked):
    board, session, collector = linked
    before = [board.emit("ball_pass", sensor=0) for _ in range(5)]
    assert ids(collector.take_events(5)) == before
    assert board.wait_delivered(2.0)
    board.faults.ignore_acks = 10_000  # the board never hears the acks for what follows: it resends after relink
    in_flight = [board.emit("ball_pass", sensor=1) for _ in range(4)]
    got = collector.take_events(4)
    assert ids(got) == in_flight  # delivered (and acked, though the board did not hear)
    board.unplug(0.3)
    board.faults.ignore_acks = 0
    during = [board.emit("rotor_index", sensor=0) for _ in range(3)]  # raised while unplugged
    assert collector.wait_health(Health.LOST, 2.0).reason.startswith("port closed")
    assert collector.wait_health(Health.CONNECTED, 5.0)
    assert ids(collector.take_events(3)) == during
    assert board.wait_delivered(3.0)
    assert collector.take_events(1, timeout=0.3) == []  # the 4 resent copies were dropped
    assert session.duplicates_dropped >= 4


def test_board_reboot_is_reported(linked):
    board, session, collector = linked
    board.reboot()  # its next HELLO answer carries a new boot id
    board.go_silent(0.8)
    statuses = []
    end = time.monotonic() + 5
    while time.monotonic() < end:
        event = collector.status.get(timeout=5)
        statuses.append(event)
        if isinstance(event, DeviceIdentified) and event.rebooted:
            break
    assert any(isinstance(e, DeviceIdentified) and e.rebooted for e in statuses)
    first = board.emit("ball_pass", sensor=0)
    assert first == 1 and ids(collector.take_events(1)) == [1]  # event ids restart with the boot


def test_port_missing_at_start_is_lost_then_connects_when_it_appears(tmp_path, collector):
    sim = BoardSim(SHOE, serial="SHOE-1", path=tmp_path / "shoe0")
    session = make_session(str(tmp_path / "shoe0"), collector, ExpectedDevice(DeviceType.SHOE_SCANNER))
    session.start()
    try:
        assert collector.wait_health(Health.LOST, 2.0).reason.startswith("cannot open port")
        sim.start()
        assert collector.wait_health(Health.CONNECTED, 5.0)
    finally:
        session.stop()
        sim.stop()


def test_loop_url_opens_and_is_lost_without_a_board(collector):
    session = make_session("loop://", collector)
    session.start()
    try:
        # loop:// echoes our HELLO back, which is not an IDENTITY: the handshake never completes.
        assert collector.wait_health(Health.LOST, 3.0).reason == "no answer to the handshake"
    finally:
        session.stop()


def test_device_identified_once_when_hellos_queued_in_the_pty_before_the_board_reads(tmp_path, collector):
    # The host opens its end of the pty pair and says HELLO again every hello_retry_s while the board is
    # not yet reading: the board then reads them all at once and answers each with IDENTITY.
    sim = BoardSim(WHEEL, serial="WSB-0002", path=tmp_path / "pair")
    sim.endpoint.plug()  # the pty pair exists; the board's firmware is not running yet
    session = make_session(sim.path, collector)
    hellos_written = []
    send = session.transport.send
    session.transport.send = lambda wire: (hellos_written.append(wire), send(wire))  # count, then write
    session.start()
    try:
        deadline = time.monotonic() + 5
        while len(hellos_written) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        sim.start()
        assert session.wait_connected(5.0)
        assert sim.wait_delivered(1.0)
        time.sleep(0.3)  # every queued HELLO has been answered by now
        sent = [sim.emit("ball_pass", sensor=0) for _ in range(5)]
        assert ids(collector.take_events(5)) == sent
        statuses = list(collector.status.queue)
        assert sim.hellos >= 3
        assert sum(isinstance(e, DeviceIdentified) for e in statuses) == 1
        assert [e.state for e in collector.health_log] == [Health.CONNECTED]
    finally:
        session.stop()
        sim.stop()
