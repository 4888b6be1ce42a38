"""A machine that waits for a poll to another address is served, on a port where it is alone.

Source checked against: Aristocrat's machine-side SAS code (`Aristocrat.Sas.Client.HostAcknowledgementProvider`,
states `PendingAnotherAddress` -> `PendingFirstMessage` -> `Synchronized`; `SasClient.CheckImpliedAck` is called
with `IsOtherAddressPoll` / `IsGlobalPoll`, and a poll to the machine's own address is not processed until one of
those was seen; link down after 5 s without polls puts it back). saspy (thomas-pythonas/saspy `sas.py`) writes a
general poll to another address (`poll_address=0x82`) before every message it sends. The simulator's machines
behave like Aristocrat's (drivers/sim/egm_responder.py).
"""

from __future__ import annotations

import threading
import time

import pytest

from drivers.sas import polls
from drivers.sas.errors import SasNoReply
from drivers.sas.poller import PollStep, PortPoller
from drivers.sas.replies import ExceptionReply, MeterReply
from drivers.sim.egm_machine import EgmProfile
from drivers.sim.egm_responder import SyncState
from firmware_host.slots.config import DEFAULT_CYCLE

from .rig import SasRig


def test_a_machine_ignores_its_own_address_until_it_has_heard_another():
    with SasRig([EgmProfile(address=1)]) as rig:
        responder = rig.sim.responder(1)
        rig.link.send(polls.read_poll(1, 0x11).message())
        assert rig.link.next_byte(time.monotonic() + 0.2) is None  # PendingAnotherAddress: not processed
        assert responder.polls_ignored_unsynced == 1
        rig.sync()  # a general poll to address 127, where no machine is
        rig.link.send(polls.read_poll(1, 0x11).message())
        assert rig.link.next_byte(time.monotonic() + 1).value == 1  # its address opens the reply
        assert responder.sync is SyncState.SYNCHRONIZED


def test_the_poll_cycle_on_a_one_machine_port_sends_sync_polls_and_the_machine_answers():
    outcomes = []
    enough = threading.Event()

    def collect(outcome):
        outcomes.append(outcome)
        if len(outcomes) >= 40:
            enough.set()

    with SasRig([EgmProfile(address=1)]) as rig:
        rig.host.sync_interval = 0.25  # the default is 1 s; shorter to see several in a short test
        cycle = [PollStep.parse(step) for step in DEFAULT_CYCLE]
        poller = PortPoller("pty", rig.host, [1], cycle, on_outcome=collect, min_interval=0.02).start()
        try:
            assert enough.wait(20.0)
        finally:
            poller.stop()
        responder = rig.sim.responder(1)
        errors = [o.error for o in outcomes if o.error]
        assert not errors and responder.polls_ignored_unsynced == 0
        assert sum(isinstance(o.reply, MeterReply) for o in outcomes) >= 10
        # the first poll is preceded by a sync poll, then one at least every sync_interval
        assert rig.host.stats.sync_polls >= 2 and responder.sync_polls_seen >= rig.host.stats.sync_polls


def test_a_machine_that_lost_sync_is_synchronised_again_after_one_unanswered_poll():
    with SasRig([EgmProfile(address=1)], retries=1) as rig:
        assert rig.host.transact(polls.general_poll(1)) == ExceptionReply(0)
        rig.sim.responder(1).lose_sync()  # powered up again: waits for another address
        with pytest.raises(SasNoReply):
            rig.host.transact(polls.read_poll(1, 0x1A))
        before = rig.host.stats.sync_polls
        assert isinstance(rig.host.transact(polls.read_poll(1, 0x1A)), MeterReply)
        assert rig.host.stats.sync_polls == before + 1


def test_after_a_loop_break_the_first_poll_is_answered():
    # The machine chirps and falls out of sync after chirp_after seconds without an address byte; the
    # host, quiet for longer than its sync interval, sends a sync poll before its next poll.
    with SasRig([EgmProfile(address=1)], chirp_after=0.3, chirp_every=0.05) as rig:
        rig.host.sync_interval = 0.2
        assert rig.host.transact(polls.general_poll(1)) == ExceptionReply(0)
        rig.host.listen(0.6)
        assert rig.host.stats.chirps.get(1, 0) >= 1
        assert rig.sim.responder(1).sync is SyncState.PENDING_ANOTHER_ADDRESS
        assert isinstance(rig.host.transact(polls.read_poll(1, 0x1A)), MeterReply)
        assert rig.host.stats.gave_up == 0


def test_machines_polling_each_other_need_no_sync_poll_after_the_first():
    with SasRig([EgmProfile(address=1), EgmProfile(address=2)]) as rig:
        for _ in range(30):
            for address in (1, 2):
                rig.host.transact(polls.read_poll(address, 0x1A))
        # a poll to machine 2 is a poll to another address for machine 1 and the other way round
        assert rig.host.stats.sync_polls == 1
