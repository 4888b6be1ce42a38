"""Card shoe scanner driver against its simulator over a real pty, with link faults and an unplug."""

from __future__ import annotations

import time

import pytest

from drivers.errors import DeviceConfigError
from drivers.events import (
    CardOut, CardSequenceGap, CardUnreadable, CutCardSeen, DeviceHealth, Health, SensorFault, ShoeEmptied, ShoeLoaded,
    Suit,
)
from drivers.protocol import DeviceType
from drivers.shoe import ShoeBoard
from drivers.sim.shoe import ShoeSim, card_code, shuffled_shoe
from firmware_host.link import ExpectedDevice
from tests.link.harness import Collector, EventSink, make_session


@pytest.fixture
def shoe_rig(tmp_path):
    sim = ShoeSim(path=tmp_path / "shoe0")
    sim.start()
    sink = EventSink()
    session = make_session(sim.path, Collector(), ExpectedDevice(DeviceType.SHOE_SCANNER))
    driver = ShoeBoard(session, emit=sink)
    session.connect(timeout=5.0)
    yield sim, driver, sink, session
    session.stop()
    sim.stop()


def cards(events) -> list[tuple[int, Suit, int]]:
    return [(c.rank, c.suit, c.seq) for c in events]


def test_card_codes():
    assert card_code("AS") == (1, 3) and card_code("10h") == (10, 2) and card_code("Td") == (10, 1)
    with pytest.raises(DeviceConfigError, match="not a card"):
        card_code("1X")


def test_a_coup_dealt_from_a_fresh_shoe(shoe_rig):
    sim, _, sink, _ = shoe_rig
    sim.load()
    sim.deal("AS", "10H", "KD", "2C")
    sim.cut_card()
    assert sink.take(ShoeLoaded)
    assert cards(sink.take(CardOut, 4)) == [(1, Suit.SPADES, 1), (10, Suit.HEARTS, 2), (13, Suit.DIAMONDS, 3),
                                            (2, Suit.CLUBS, 4)]
    (cut,) = sink.take(CutCardSeen)
    assert cut.after_seq == 4


def test_a_whole_shoe_to_empty(shoe_rig):
    sim, _, sink, _ = shoe_rig
    shoe = shuffled_shoe(1, seed=3)
    sim.load()
    sim.deal(*shoe)
    sim.empty()
    got = sink.take(CardOut, 52, timeout=10)
    assert [c.seq for c in got] == list(range(1, 53))
    (empty,) = sink.take(ShoeEmptied)
    assert empty.cards == 52 and not sink.of_type(CardSequenceGap)


def test_unreadable_card_and_sensor_fault(shoe_rig):
    sim, _, sink, _ = shoe_rig
    sim.load()
    sim.deal("QS")
    sim.unreadable()
    sim.fault(sensor=0, fault=1)
    (unreadable,) = sink.take(CardUnreadable)
    (fault,) = sink.take(SensorFault)
    assert unreadable.seq == 2 and fault.sensor == "card_scanner" and fault.fault == "stuck"


def test_a_card_missed_by_the_scanner_is_reported_as_a_gap(shoe_rig):
    sim, _, sink, _ = shoe_rig
    sim.load()
    sim.deal("AS")
    sim.skip()
    sim.deal("9D")
    (gap,) = sink.take(CardSequenceGap)
    assert (gap.expected, gap.got) == (2, 3)
    assert [c.seq for c in sink.take(CardOut, 2)] == [1, 3]


@pytest.mark.parametrize("fault", ["drop_acks", "ignore_acks", "corrupt_crc", "repeat"])
def test_link_faults_deliver_each_card_once(shoe_rig, fault):
    sim, _, sink, _ = shoe_rig
    sim.load()
    setattr(sim.faults, fault, 5)
    sim.deal("AS", "2S", "3S", "4S", "5S", "6S")
    got = sink.take(CardOut, 6)
    sink.settle(0.2)
    assert [c.seq for c in got] == [1, 2, 3, 4, 5, 6] and len(sink.of_type(CardOut)) == 6
    assert not sink.of_type(CardSequenceGap)


def test_garbage_delay_and_silence_deliver_each_card_once(shoe_rig):
    sim, _, sink, _ = shoe_rig
    sim.load()
    sim.faults.garbage = b"\x13\x37" * 40
    sim.faults.delay = 0.002
    sim.deal("AH", "2H")
    sim.faults.delay = 0.0
    sim.go_silent(0.8)  # the host declares the board lost, then relinks
    sim.deal("3H")
    got = sink.take(CardOut, 3, timeout=6)
    sink.settle(0.2)
    assert [c.seq for c in got] == [1, 2, 3] and len(sink.of_type(CardOut)) == 3
    assert Health.LOST in [e.state for e in sink.of_type(DeviceHealth)]


def test_unplug_mid_coup_loses_and_duplicates_no_card(shoe_rig):
    sim, _, sink, _ = shoe_rig
    sim.load()
    sim.deal("AS", "KH")
    sim.faults.ignore_acks = 10_000  # the last cards are delivered but the board never hears the acks
    sim.deal("7C", "8C")
    assert [c.seq for c in sink.take(CardOut, 4)] == [1, 2, 3, 4]
    sim.unplug(0.3)
    sim.faults.ignore_acks = 0
    sim.deal("9C")  # dealt while unplugged
    got = sink.take(CardOut, 1, timeout=6)
    assert sim.wait_delivered(3.0)
    sink.settle(0.3)
    assert [c.seq for c in got] == [5]
    assert [c.seq for c in sink.of_type(CardOut)] == [1, 2, 3, 4, 5]
    states = [e.state for e in sink.of_type(DeviceHealth)]
    assert Health.LOST in states and states[-1] is Health.CONNECTED


def test_gate_unlocks_with_a_deadline_and_locks_itself_when_the_host_goes(shoe_rig):
    sim, driver, _, session = shoe_rig
    assert sim.output("gate_lock") == 1  # safe state: locked
    driver.unlock_gate(hold_s=0.3)
    assert sim.output("gate_lock") == 0
    session.stop()
    end = time.monotonic() + 3
    while sim.output("gate_lock") != 1 and time.monotonic() < end:
        time.sleep(0.01)
    assert sim.output("gate_lock") == 1
