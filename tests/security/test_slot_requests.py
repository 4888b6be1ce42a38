"""Floor requests to the slot service: who is the broker user, and only supervisors clear faults or move pools."""

from __future__ import annotations

from drivers.sim.egm_machine import EgmProfile
from tests.sas.service_rig import ServiceRig, wait_until

REPLIES = "replies/{user}/slots/slot-1"


def answers(rig: ServiceRig, user: str) -> list[dict]:
    return rig.messages(REPLIES.format(user=user))


def test_only_supervisors_clear_faults_and_who_is_the_broker_user(tmp_path):
    """Stopped by the slot config's [access]: the floor system may poll, not clear a meter fault; a user
    named nowhere may do nothing; the payload's `who` is only a display name."""
    rig = ServiceRig(tmp_path, [EgmProfile(address=1)])
    try:
        assert wait_until(lambda: rig.state().baseline)
        clear = {"action": "clear_fault", "why": "meters re-read", "who": "floor-manager-boss", "id": "c1"}
        rig.request("slots/slot-1/request", clear, user="floor-system")
        assert wait_until(lambda: answers(rig, "floor-system"))
        refused = answers(rig, "floor-system")[-1]
        assert not refused["accepted"] and refused["message"].startswith("not_authorised")
        rig.request("slots/slot-1/request", {"action": "poll", "poll": "0x1F", "id": "p1"}, user="floor-system")
        assert wait_until(lambda: len(answers(rig, "floor-system")) == 2)
        assert answers(rig, "floor-system")[-1]["accepted"]
        rig.request("slots/slot-1/request", {"action": "poll", "poll": "0x1F"}, user="intruder")
        assert wait_until(lambda: answers(rig, "intruder"))
        assert answers(rig, "intruder")[-1]["message"].startswith("not_authorised")
        machine = rig.machine(1)
        machine.play(20)
        machine.ram_clear(report=True)
        assert wait_until(lambda: rig.state().disabled)
        rig.request("slots/slot-1/request", clear, user="supervisor-17")
        assert wait_until(lambda: not rig.state().disabled)
        cleared = rig.records("slot_fault_cleared")[-1]
        assert (cleared["who"], cleared["display_name"]) == ("supervisor-17", "floor-manager-boss")
        event = [e for e in rig.messages("slot-1/events") if e["event"] == "fault_cleared"][-1]
        assert (event["who"], event["detail"]["display_name"]) == ("supervisor-17", "floor-manager-boss")
    finally:
        rig.close()
