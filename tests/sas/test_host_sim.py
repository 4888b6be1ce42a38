"""Host <-> EGM simulator over a real pty: every long poll the issue lists, general polls, implied ACK/NACK."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from drivers.sas import polls
from drivers.sas.replies import (Ack, ExceptionReply, ExtendedMetersReply, HandpayReply, MachineInfoReply,
                                 MeterReply, ProgressiveWinReply, SelectedGameReply, SelectedMetersReply,
                                 VersionReply)
from drivers.sim.egm_machine import EgmProfile

from .rig import SasRig


@pytest.fixture
def rig():
    with SasRig([EgmProfile(address=1, progressive_group=7, serial="SN-0001", base_pct_hundredths=9250),
                 EgmProfile(address=2, seed=2)]) as instance:
        instance.machine(1).play(200)
        yield instance


def test_pty_link_uses_the_escape_framing(rig):
    assert rig.link.framing == "escape"


def test_0x0f_and_single_meters_0x10_to_0x17(rig):
    m = rig.machine(1).meters
    reply = rig.host.transact(polls.read_poll(1, 0x0F))
    assert reply == MeterReply(1, 0x0F, {n: m[n] for n in ("cancelled_credits", "coin_in", "coin_out", "total_drop",
                                                          "jackpot", "games_played")})
    for command, name in [(0x10, "cancelled_credits"), (0x11, "coin_in"), (0x12, "coin_out"), (0x13, "total_drop"),
                          (0x14, "jackpot"), (0x15, "games_played"), (0x16, "games_won"), (0x17, "games_lost")]:
        assert rig.host.transact(polls.read_poll(1, command)).meters == {name: m[name]}
    assert m["games_played"] == 200 == m["games_won"] + m["games_lost"]


def test_0x18_0x19_0x1a_0x1c(rig):
    m = rig.machine(1).meters
    assert rig.host.transact(polls.read_poll(1, 0x18)).meters == {"games_since_power_reset": 200,
                                                                  "games_since_slot_door_closure": 200}
    r19 = rig.host.transact(polls.read_poll(1, 0x19))
    assert r19.meters == {n: m[n] for n in ("coin_in", "coin_out", "total_drop", "jackpot", "games_played")}
    assert rig.host.transact(polls.read_poll(1, 0x1A)).meters == {"current_credits": m["current_credits"]}
    r1c = rig.host.transact(polls.read_poll(1, 0x1C))
    assert r1c.meters["coin_in"] == m["coin_in"] and r1c.meters["games_won"] == m["games_won"]
    assert set(r1c.meters) == {"coin_in", "coin_out", "total_drop", "jackpot", "games_played", "games_won",
                               "slot_door_opened", "power_resets"}


def test_0x1b_handpay_after_exception_0x51(rig):
    machine = rig.machine(1)
    machine.start_handpay(12000)
    assert rig.host.transact(polls.general_poll(1)) == ExceptionReply(0x51)
    assert rig.host.transact(polls.read_poll(1, 0x1B)) == HandpayReply(1, 0, 0x40, 12000, 0, 0)
    assert machine.play(1) == 0  # locked up until the attendant resets it
    machine.reset_handpay()
    assert rig.host.transact(polls.general_poll(1)) == ExceptionReply(0x52)
    assert machine.meters["jackpot"] == 12000


def test_0x1f_machine_id_denomination_base_pct(rig):
    reply = rig.host.transact(polls.read_poll(1, 0x1F))
    assert isinstance(reply, MachineInfoReply)
    assert (reply.game_id, reply.denomination_code, reply.max_bet, reply.progressive_group) == ("SM", 1, 10, 7)
    assert reply.base_return == Fraction(925, 1000)


def test_0x2f_selected_meters(rig):
    m = rig.machine(1).meters
    reply = rig.host.transact(polls.selected_meters(1, 0, [0x00, 0x01, 0x05, 0x06, 0x07, 0x0D]))
    assert reply == SelectedMetersReply(1, 0, {0x00: m["coin_in"], 0x01: m["coin_out"], 0x05: 200,
                                               0x06: m["games_won"], 0x07: m["games_lost"], 0x0D: 0})


def test_0x6f_and_0xaf_extended_meters(rig):
    rig.machine(1).set_meter("coin_in", 123_456_789_012)  # beyond 8 digits: only extended meters show it
    first = rig.host.transact(polls.extended_meters(1, 0, [0x0000, 0x0005]))
    second = rig.host.transact(polls.extended_meters(1, 0, [0x0000, 0x0005], alternate=True))
    assert isinstance(first, ExtendedMetersReply) and (first.command, second.command) == (0x6F, 0xAF)
    assert first.meters[0x0000] == (5, 123_456_789_012 % 10 ** 10)
    assert rig.host.transact(polls.read_poll(1, 0x11)).meters["coin_in"] == 123_456_789_012 % 10 ** 8


def test_0x54_version_and_serial_0x55_selected_game(rig):
    assert rig.host.transact(polls.read_poll(1, 0x54)) == VersionReply(1, "602", "SN-0001")
    assert rig.host.transact(polls.read_poll(1, 0x55)) == SelectedGameReply(1, 1)


def test_0x01_disables_and_0x02_enables_play(rig):
    machine = rig.machine(1)
    assert rig.host.transact(polls.shutdown(1)) == Ack(1)
    assert not machine.enabled and machine.play(10) == 0
    assert rig.host.transact(polls.startup(1)) == Ack(1)
    assert machine.enabled and machine.play(10) == 10


def test_0x80_and_0x86_progressive_broadcasts_reach_the_group(rig):
    machine = rig.machine(1)
    assert rig.host.transact(polls.progressive_single(7, 1, 250000)) is None  # a broadcast has no reply
    assert rig.host.transact(polls.progressive_multi(7, {1: 260000, 2: 26000})) is None
    rig.host.transact(polls.read_poll(1, 0x1A))  # the simulator has handled the broadcasts before this reply
    assert machine.progressive_amounts == {1: 260000, 2: 26000}
    assert rig.machine(2).progressive_amounts == {}  # another group


def test_progressive_hit_exception_0x56_then_0x85(rig):
    machine = rig.machine(1)
    rig.host.transact(polls.progressive_multi(7, {1: 260000}))
    rig.host.transact(polls.read_poll(1, 0x1A))
    machine.hit_progressive(1)
    assert rig.host.transact(polls.general_poll(1)) == ExceptionReply(0x56)
    assert rig.host.transact(polls.read_poll(1, 0x85)) == ProgressiveWinReply(1, 7, 1, 260000)
    assert rig.host.transact(polls.general_poll(1)) == ExceptionReply(0x51)  # the win is a handpay
    assert rig.host.transact(polls.read_poll(1, 0x85)) == ProgressiveWinReply(1, 0, 0, 0)  # acknowledged


def test_general_polls_report_doors_and_power_in_order_each_once(rig):
    machine = rig.machine(2)
    machine.open_door()
    machine.close_door()
    machine.power_cycle()
    codes = [rig.host.transact(polls.general_poll(2)).code for _ in range(6)]
    # every exception is acknowledged by the next poll (implied ACK) and reported exactly once
    assert codes == [0x11, 0x12, 0x18, 0x17, 0x00, 0x00]
    # same poll twice in a row: an ACK poll to address 127 first, after "no activity" too (a machine may
    # take a repeated general poll as the NACK of its 0x00: Aristocrat's HostAcknowledgementProvider)
    assert rig.host.stats.ack_polls == 5


def test_implied_nack_resends_the_same_exception(rig):
    machine = rig.machine(2)
    machine.open_door()
    machine.close_door()
    rig.faults(2).bad_crc = 0
    message = polls.general_poll(2).message()
    rig.sync()
    rig.link.send(message)
    first = rig.link.next_byte(time.monotonic() + 1)
    rig.link.send(message)  # the same poll again: an implied NACK
    again = rig.link.next_byte(time.monotonic() + 1)
    assert first.value == again.value == 0x11
    assert rig.sim.responder(2).nacks_seen == 1
    assert rig.host.transact(polls.read_poll(2, 0x1A))  # a different poll: the implied ACK
    assert rig.host.transact(polls.general_poll(2)) == ExceptionReply(0x12)


def test_third_identical_poll_is_the_final_nack_and_the_exception_is_kept(rig):
    machine = rig.machine(2)
    machine.open_door()
    message = polls.general_poll(2).message()
    rig.sync()
    for _ in range(2):
        rig.link.send(message)
        assert rig.link.next_byte(time.monotonic() + 1).value == 0x11
    rig.link.send(message)  # third time: the machine keeps the exception and stays silent
    assert rig.link.next_byte(time.monotonic() + 0.1) is None
    rig.host.transact(polls.read_poll(2, 0x1A))
    assert rig.host.transact(polls.general_poll(2)) == ExceptionReply(0x11)  # not lost


def test_a_machine_answers_only_its_own_address(rig):
    assert rig.host.transact(polls.read_poll(2, 0x11)).meters == {"coin_in": 0}
    rig.link.send(polls.read_poll(9, 0x11).message())
    assert rig.link.next_byte(time.monotonic() + 0.1) is None
