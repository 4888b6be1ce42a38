"""Faults over a real pty: bad CRC, silence, busy, the 20 ms and 5 ms limits, NACKs, chirps, RAM clear."""

from __future__ import annotations

import time

import pytest

from drivers.sas import polls
from drivers.sas.crc import with_crc
from drivers.sas.errors import SasNoReply
from drivers.sas.replies import Ack, Busy, MeterReply
from drivers.sim.egm_machine import EgmProfile

from .rig import SasRig


@pytest.fixture
def rig():
    with SasRig([EgmProfile(address=1)]) as instance:
        instance.machine().play(50)
        yield instance


def test_bad_crc_is_retried_and_the_repeat_gets_the_data(rig):
    rig.faults().bad_crc = 1
    reply = rig.host.transact(polls.read_poll(1, 0x1C))
    assert isinstance(reply, MeterReply) and reply.meters["games_played"] == 50
    assert rig.host.stats.bad_frames == 1 and rig.host.stats.retries == 1
    assert rig.sim.responder(1).nacks_seen == 1  # the repeat was an implied NACK: same data re-sent


def test_bad_crc_every_time_gives_up_after_three_polls(rig):
    rig.faults().bad_crc = 3
    with pytest.raises(SasNoReply, match="after 3 attempts"):
        rig.host.transact(polls.read_poll(1, 0x19))
    assert rig.host.stats.bad_frames == 2  # the third identical poll is the final NACK: no answer
    assert rig.host.stats.timeouts == 1


def test_silence_is_retried_then_reported(rig):
    rig.faults().silent = 1
    assert rig.host.transact(polls.read_poll(1, 0x11)).meters["coin_in"] > 0
    assert rig.host.stats.timeouts == 1
    rig.faults().silent = 5
    with pytest.raises(SasNoReply):
        rig.host.transact(polls.read_poll(1, 0x12))


def test_busy_is_returned_for_a_later_retry(rig):
    rig.faults().busy = 1
    assert rig.host.transact(polls.read_poll(1, 0x1C)) == Busy(1)
    assert isinstance(rig.host.transact(polls.read_poll(1, 0x1C)), MeterReply)


def test_a_reply_starting_after_20_ms_is_a_timeout():
    with SasRig([EgmProfile(address=1)], response_timeout=0.020, retries=0) as rig:
        rig.faults().delay = 0.060  # the machine starts answering 60 ms after the poll
        with pytest.raises(SasNoReply, match="no reply within 20 ms"):
            rig.host.transact(polls.read_poll(1, 0x1A))
        rig.faults().delay = 0.0
        time.sleep(0.1)  # let the late answer arrive; the next poll drops it as stale
        assert rig.host.transact(polls.read_poll(1, 0x11)).meters == {"coin_in": 0}


def test_a_gap_over_5_ms_inside_a_reply_invalidates_it():
    with SasRig([EgmProfile(address=1)], retries=0) as rig:
        rig.faults().gap = 0.030
        with pytest.raises(SasNoReply, match="expected 36"):
            rig.host.transact(polls.read_poll(1, 0x1C))
        rig.faults().gap = 0.0
        time.sleep(0.05)
        assert isinstance(rig.host.transact(polls.read_poll(1, 0x1C)), MeterReply)


def test_a_poll_with_a_bad_crc_is_nacked(rig):
    frame = bytearray(polls.shutdown(1).message())
    frame[-1] ^= 0xFF
    rig.sync()
    rig.link.send(bytes(frame))
    answer = rig.link.next_byte(time.monotonic() + 1)
    assert answer.value == 0x81  # the address with bit 7 set
    assert rig.machine().enabled
    assert rig.host.transact(polls.shutdown(1)) == Ack(1)


def test_unsupported_long_poll_is_ignored(rig):
    rig.sync()
    rig.link.send(with_crc(bytes([1, 0x72, 0x00])))
    assert rig.link.next_byte(time.monotonic() + 0.1) is None


def test_machine_chirps_when_not_polled():
    with SasRig([EgmProfile(address=3), EgmProfile(address=4)], chirp_after=0.3, chirp_every=0.05) as rig:
        rig.host.listen(0.6)
        assert rig.host.stats.chirps.get(3, 0) >= 2 and rig.host.stats.chirps.get(4, 0) >= 2
        rig.host.transact(polls.general_poll(3))  # polled again: the chirping stops
        before = rig.sim.chirps_sent
        for _ in range(3):
            rig.host.transact(polls.read_poll(3, 0x1A))
            rig.host.transact(polls.general_poll(3))
            time.sleep(0.05)
        assert rig.sim.chirps_sent == before


def test_ram_clear_resets_every_meter_and_reports_0x3a(rig):
    assert rig.host.transact(polls.read_poll(1, 0x11)).meters["coin_in"] > 0
    rig.machine().ram_clear(report=True)
    assert rig.host.transact(polls.read_poll(1, 0x1C)).meters == dict.fromkeys(
        ("coin_in", "coin_out", "total_drop", "jackpot", "games_played", "games_won", "slot_door_opened",
         "power_resets"), 0)
    assert rig.host.transact(polls.general_poll(1)).code == 0x3A


def test_meters_roll_over_at_eight_digits(rig):
    machine = rig.machine()
    machine.set_meter("coin_in", 99_999_990)
    machine.play(20)
    value = rig.host.transact(polls.read_poll(1, 0x11)).meters["coin_in"]
    assert machine.meters["coin_in"] > 10 ** 8 and value == machine.meters["coin_in"] - 10 ** 8


def test_exception_queue_overflow_reports_0x70(rig):
    machine = rig.machine()
    for _ in range(25):
        machine.open_door()
    codes = [rig.host.transact(polls.general_poll(1)).code for _ in range(3)]
    assert codes[0] == 0x70  # the oldest were lost: buffer overflow first
