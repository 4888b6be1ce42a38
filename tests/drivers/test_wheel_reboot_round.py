"""A wheel board rebooting mid-spin, end to end: the round voids that attempt and settles the next spin.

The real path of `tablehw run` on a roulette table: the wheel sensor board simulator on a pty, the
firmware link session and `WheelBoard` built by the service's `HardwareTable` from `[devices]`, the
events translated into the round engine's inputs, the engine on a real journal. 004 §X.16: a spin
without a valid result is void ("golpe nulo") and the wheel spins again with the bets as they are.
"""

from __future__ import annotations

import queue
import time

import msgspec

from drivers.events import Direction, SpinMissed, WheelBonus, WheelError, now_stamp
from drivers.settings import DevicesSection
from drivers.sim.wheel import WheelBoardSim
from firmware_host.evidence import EvidenceStore
from firmware_host.hardware import HardwareTable
from firmware_host.rounds.device_input import to_input
from firmware_host.rounds.inputs import ConsoleCommand, DeviceNotice, Phase, SpinSeen
from tests.service.engine_harness import bet, feed, make_engine, records, sent


def inputs_until(inbox: queue.Queue, spins: int, timeout: float = 15.0) -> list:
    """Everything the table sent the engine until `spins` spin results (or void spins) arrived."""
    items, seen, end = [], 0, time.monotonic() + timeout
    while seen < spins and time.monotonic() < end:
        try:
            item = inbox.get(timeout=0.05)
        except queue.Empty:
            continue
        items.append(item)
        seen += isinstance(item, SpinSeen)
    assert seen == spins, items
    return items


def test_a_reboot_mid_spin_voids_the_attempt_and_the_respin_settles(tmp_path):
    sim = WheelBoardSim(path=tmp_path / "wheel0")
    sim.start()
    section = msgspec.convert({"link": {"heartbeat_s": 0.05, "degraded_after_s": 0.25, "lost_after_s": 0.5},
                               "wheel": {"protocol": "sensor_board", "port": sim.path}}, DevicesSection)
    table = HardwareTable(section, "roulette", EvidenceStore(tmp_path / "storage", 7))
    inbox: queue.Queue = queue.Queue()
    table.start(inbox.put)
    try:
        assert table.handshake(5.0) == {"wheel": "connected"}
        engine = make_engine(tmp_path / "journal.sqlite", game="roulette")
        feed(engine, bet(engine, "a", "straight", 1000, number=32), bet(engine, "b", "red", 1000))
        feed(engine, ConsoleCommand("no_more_bets", who="dealer-1"))
        assert engine.phase is Phase.SPINNING
        sim.spin(17, revolutions=12, ball_direction=Direction.CLOCKWISE, cut_after_laps=4)
        assert sim.wait_delivered(5.0)
        sim.reboot()  # the board power-cycles with the ball in the track
        sim.spin(32, revolutions=9, ball_direction=Direction.COUNTERCLOCKWISE)
        feed(engine, *inputs_until(inbox, 2))
    finally:
        table.stop()
        sim.stop()
    void, result = [r for _, r in sent(engine, "/result")]
    assert (void["void"], void["reason"], void["number"], void["attempt"]) == (True, "spin_missed", None, 1)
    assert (result["void"], result["number"], result["attempt"]) == (False, 32, 2)
    assert result["outcome"]["direction"] == "ccw"
    (settlement,) = records(engine, "settlement")
    assert {b["ticket"]: b["result"] for b in settlement["bets"]} == {"a": "win", "b": "win"}  # 32 is red


def test_wheel_events_the_round_acts_on_or_publishes():
    stamp = {"device": "wheel", "mono": time.monotonic(), "utc": now_stamp()[1]}
    assert to_input(SpinMissed(**stamp, first=4, last=4)) == SpinSeen(None, None, "spin_missed")
    error = to_input(WheelError(**stamp, spin=4, message="12"))
    assert isinstance(error, DeviceNotice) and (error.kind, error.message) == ("wheel_error", "12")
    bonus = to_input(WheelBonus(**stamp, spin=4, bonus_type=3, value="x50"))
    assert isinstance(bonus, DeviceNotice) and bonus.kind == "wheel_bonus" and bonus.detail["value"] == "x50"
