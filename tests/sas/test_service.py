"""The slot service over real ptys: meter faults disable the machine, persist across restarts, and clear."""

from __future__ import annotations

from fractions import Fraction

import pytest

from drivers.sim.egm_machine import EgmProfile

from .service_rig import ServiceRig, wait_until


@pytest.fixture
def rig(tmp_path):
    instance = ServiceRig(tmp_path, [EgmProfile(address=1), EgmProfile(address=2, seed=2)])
    assert wait_until(lambda: instance.state().baseline and instance.state("slot-2").baseline)
    yield instance
    instance.close()


def _played(rig, machine_id: str, games: int) -> bool:
    return wait_until(lambda: rig.state(machine_id).baseline.get("0/games_played/8") == games)


def test_play_is_accounted_from_meter_deltas(rig):
    assert rig.machine(1).play(300) == 300
    assert _played(rig, "slot-1", 300)
    m = rig.machine(1).meters
    totals = rig.state().payback["0/lifetime"]
    assert (totals.coin_in, totals.paid, totals.games) == (m["coin_in"], m["coin_out"] + m["jackpot"], 300)
    assert rig.state().base_pct_hundredths == 9200 and rig.state().denomination_code == 1
    snapshot = rig.messages("slot-1/meters")[-1]
    assert snapshot["meters"]["games_played"] == 300 and snapshot["type"] == "slot_meters"


def test_rollover_is_a_delta_not_a_fault(tmp_path):
    rig = ServiceRig(tmp_path, [EgmProfile(address=1)], start=False)
    try:
        machine = rig.machine(1)
        machine.set_meter("coin_in", 99_999_000)  # an old machine, close to the 8-digit rollover
        machine.set_meter("coin_out", 99_998_000)
        rig.start()
        assert wait_until(lambda: rig.state().baseline.get("0/coin_in/8") == 99_999_000)
        machine.play(400)
        assert _played(rig, "slot-1", 400)
        assert rig.state().fault is None and not rig.state().disabled
        assert machine.meters["coin_in"] > 10 ** 8  # it rolled over on the 8-digit polls
        assert [r for r in rig.records("slot_meters") if "coin_in" in r.get("rollovers", [])]
        totals = rig.state().payback["0/lifetime"]
        assert totals.coin_in == machine.meters["coin_in"] - 99_999_000
        assert totals.paid == machine.meters["coin_out"] - 99_998_000 + machine.meters["jackpot"]
    finally:
        rig.close()


def test_a_meter_jumping_forward_without_games_fails_the_self_audit(rig):
    rig.machine(1).set_meter("coin_in", 5_000_000)
    assert wait_until(lambda: rig.state().disabled)
    assert rig.state().fault.kind == "self_audit" and rig.state().fault.meter == "coin_in"


def test_ram_clear_disables_and_stays_disabled_across_a_restart(rig):
    machine = rig.machine(1)
    machine.play(200)
    assert _played(rig, "slot-1", 200)
    machine.ram_clear(report=False)  # no exception: the meters alone must give it away
    assert wait_until(lambda: rig.state().disabled)
    fault = rig.state().fault
    assert fault.kind == "went_backwards" and "went from" in fault.detail
    assert wait_until(lambda: not machine.enabled)  # long poll 0x01 reached the machine
    assert machine.play(5) == 0
    assert rig.records("slot_fault")[0]["values"]["coin_in"] == 0
    assert wait_until(lambda: [e["event"] for e in rig.messages("slot-1/events")
                               if e["event"] in ("meter_fault", "disabled")] == ["meter_fault", "disabled"])
    assert rig.messages("slot-1/availability")[-1]["state"] == "disabled"

    rig.stop_service()
    machine.power_cycle()  # the machine comes back enabled by itself
    assert machine.enabled
    service = rig.start()
    assert service.state.machines["slot-1"].disabled  # from the journal
    assert wait_until(lambda: not machine.enabled)  # and the new service disabled it again
    assert rig.state().fault.detail == fault.detail
    assert rig.messages("slot-1/availability")[-1]["state"] == "disabled"


def test_supervisor_clear_needs_who_and_why_and_re_enables(rig):
    machine = rig.machine(1)
    machine.play(50)
    assert _played(rig, "slot-1", 50)
    machine.ram_clear(report=True)
    assert wait_until(lambda: rig.state().disabled and not machine.enabled)
    rig.request("slots/slot-1/request", {"action": "clear_fault", "who": "supervisor 17", "id": "r1"})
    assert wait_until(lambda: rig.messages("replies/supervisor-17/slots/slot-1"))
    assert not rig.messages("replies/supervisor-17/slots/slot-1")[-1]["accepted"]  # no reason given: refused
    assert rig.state().disabled

    rig.request("slots/slot-1/request", {"action": "clear_fault", "who": "supervisor 17", "id": "r2",
                                         "why": "RAM clear after board swap, meters re-read"})
    assert wait_until(lambda: not rig.state().disabled and machine.enabled)
    cleared = rig.records("slot_fault_cleared")[-1]
    assert (cleared["who"], cleared["why"]) == ("supervisor-17", "RAM clear after board swap, meters re-read")
    assert cleared["display_name"] == "supervisor 17"  # the payload's who: a display name beside the broker user
    assert cleared["utc"].endswith("Z")  # the when
    response = rig.messages("replies/supervisor-17/slots/slot-1")[-1]
    assert response["accepted"] and response["id"] == "r2"
    assert wait_until(lambda: [e["event"] for e in rig.messages("slot-1/events")][-1] == "enabled")
    machine.play(30)  # accounted again from the new baseline
    assert _played(rig, "slot-1", 30) and rig.state().fault is None


def test_self_audit_failure_disables(rig):
    machine = rig.machine(2)
    machine.play(40)
    assert _played(rig, "slot-2", 40)
    machine.set_meter("games_won", machine.meters["games_won"] + 3)  # won moves, played does not
    assert wait_until(lambda: rig.state("slot-2").disabled)
    assert rig.state("slot-2").fault.kind == "self_audit"
    assert wait_until(lambda: not machine.enabled)


def test_memory_error_exception_disables(rig):
    machine = rig.machine(2)
    machine.raise_exception(0x32)  # CMOS RAM error, no data recovered
    assert wait_until(lambda: rig.state("slot-2").disabled)
    assert rig.state("slot-2").fault.kind == "memory_error"
    events = [e for e in rig.messages("slot-2/events") if e["event"] == "exception"]
    assert events[-1]["code"] == 0x32 and events[-1]["name"] == "cmos_ram_error_no_data_recovered"


def test_exceptions_are_journalled_and_published_once_each(rig):
    machine = rig.machine(2)
    machine.open_door()
    machine.close_door()
    assert wait_until(lambda: {"slot_door_opened", "slot_door_closed"} <= {
        e.get("name") for e in rig.messages("slot-2/events")})
    names = [e.get("name") for e in rig.messages("slot-2/events")]
    assert names.count("slot_door_opened") == 1 and names.count("slot_door_closed") == 1


def test_on_demand_poll_is_answered(rig):
    rig.request("slots/slot-2/request", {"action": "poll", "poll": "0x1F", "id": "q1"})
    assert wait_until(lambda: rig.messages("replies/supervisor-17/slots/slot-2"))
    response = rig.messages("replies/supervisor-17/slots/slot-2")[-1]
    assert response["accepted"] and response["reply"]["type"] == "machine_info"
    assert response["reply"]["base_pct"] == 92.0
    rig.request("slots/slot-2/request", {"action": "poll", "poll": "0x99"})
    assert wait_until(lambda: len(rig.messages("replies/supervisor-17/slots/slot-2")) == 2)
    assert not rig.messages("replies/supervisor-17/slots/slot-2")[-1]["accepted"]


def test_pools_fund_broadcast_award_and_reseed(tmp_path):
    profiles = [EgmProfile(address=1, progressive_group=1), EgmProfile(address=2, seed=2, progressive_group=1)]
    pools = [{"id": "jackpot-1", "machines": ["slot-1"], "rate_pct": "1.5", "seed_cents": 50_000, "group": 1,
              "level": 2},
             {"id": "super", "kind": "superjackpot", "machines": ["slot-1", "slot-2"], "rate_pct": "0.5",
              "seed_cents": 500_000, "group": 1, "level": 1}]
    rig = ServiceRig(tmp_path, profiles, pools)
    try:
        service = rig.service
        machine = rig.machine(1)
        assert wait_until(lambda: machine.progressive_amounts == {1: 500_000, 2: 50_000})  # seeds broadcast (0x86)
        assert _played(rig, "slot-1", 0) and _played(rig, "slot-2", 0)  # the baselines: play counts from here
        machine.play(500)
        rig.machine(2).play(500)
        assert _played(rig, "slot-1", 500) and _played(rig, "slot-2", 500)
        jackpot, superpool = service.state.pools.get("jackpot-1"), service.state.pools.get("super")
        coin_in_1, coin_in_2 = machine.meters["coin_in"], rig.machine(2).meters["coin_in"]
        assert jackpot.contributed == coin_in_1 * Fraction(15, 1000)  # 1 cent per credit
        assert superpool.contributed == (coin_in_1 + coin_in_2) * Fraction(5, 1000)
        assert jackpot.balanced() and superpool.balanced()
        value = jackpot.cents
        assert wait_until(lambda: machine.progressive_amounts.get(2) == value)

        machine.hit_progressive(2)  # 0x56 -> the host asks 0x85 -> award, reseed, broadcast
        assert wait_until(lambda: jackpot.hits == 1)
        assert jackpot.awarded == value and jackpot.cents == 50_000 and jackpot.balanced()
        award = rig.records("pool_award")[-1]
        assert (award["pool"], award["machine"], award["paid"]) == ("jackpot-1", "slot-1", value)
        assert wait_until(lambda: machine.progressive_amounts.get(2) == 50_000)
        published = rig.messages("jackpots/jackpot-1")[-1]
        assert published["value_cents"] == 50_000 and published["hits"] == 1
        assert published["last_award"]["paid_cents"] == value
        contributions = [c for r in rig.records("slot_meters") for c in r.get("contributions", [])]
        assert sum(Fraction(c["exact_cents"]) for c in contributions if c["pool"] == "super") == superpool.contributed

        rig.stop_service()  # every cent is in the journal: a restart rebuilds the same pools
        service = rig.start()
        again = service.state.pools.get("jackpot-1")
        assert (again.cents, again.carry, again.awarded, again.hits) == (jackpot.cents, jackpot.carry, value, 1)
        assert service.state.pools.get("super").contributed == superpool.contributed
    finally:
        rig.close()


def test_unawardable_pool_moves_to_machines_of_same_model_and_bet(tmp_path):
    pools = [{"id": "jp-1", "machines": ["slot-1"], "rate_pct": "1", "seed_cents": 10_000, "group": 1},
             {"id": "jp-2", "machines": ["slot-2"], "rate_pct": "1", "seed_cents": 10_000, "group": 2},
             {"id": "jp-3", "machines": ["slot-3"], "rate_pct": "1", "seed_cents": 10_000, "group": 3}]
    rig = ServiceRig(tmp_path, [EgmProfile(address=1), EgmProfile(address=2), EgmProfile(address=3, max_bet=5)],
                     pools)
    try:
        state = rig.service.state
        assert wait_until(lambda: state.pools.get("jp-1").cents == 10_000)
        rig.request("jackpots/jp-1/request", {"action": "transfer", "to": "jp-3", "who": "floor manager",
                                              "why": "slot-1 withdrawn from service"})
        assert wait_until(lambda: rig.messages("replies/supervisor-17/jackpots/jp-1"))
        # max bet 5 vs 10: not the same bet
        assert not rig.messages("replies/supervisor-17/jackpots/jp-1")[-1]["accepted"]
        rig.request("jackpots/jp-1/request", {"action": "transfer", "to": "jp-2", "who": "floor manager",
                                              "why": "slot-1 withdrawn from service"})
        assert wait_until(lambda: state.pools.get("jp-2").cents == 20_000)
        assert state.pools.get("jp-1").value == 0
        assert rig.records("pool_transfer")[-1]["amount"] == "10000/1"
        assert all(p.balanced() for p in state.pools.pools.values())
    finally:
        rig.close()


def test_payback_shortfall_on_heavy_play_alarms_and_is_published(tmp_path):
    # a machine reporting 92 % (0x1F) that really pays 65 %: below base % and below the 80 % minimum
    # (004 §VIII.2); the sim's paytable has sigma 4.65 per unit bet, as configured for PT9200
    rig = ServiceRig(tmp_path, [EgmProfile(address=1, rtp=Fraction(65, 100), attendant_resets=True)])
    try:
        assert _played(rig, "slot-1", 0)
        rig.machine(1).play(60_000)
        assert _played(rig, "slot-1", 60_000)
        assert wait_until(lambda: rig.messages("slot-1/payback") and rig.messages("slot-1/payback")[-1]["alarm"])
        payback = rig.messages("slot-1/payback")[-1]
        day = next(w for w in payback["windows"] if w["window"] == "day")
        assert day["base_pct"] == 92.0 and day["minimum_pct"] == 80.0 and day["games"] == 60_000
        assert day["shortfall_vs_base"] and day["below_minimum"] and day["z_vs_minimum"] < -3.09
        assert Fraction(day["actual"]) == Fraction(day["paid"], day["coin_in"])
        assert any(e["event"] == "payback_alarm" for e in rig.messages("slot-1/events"))
    finally:
        rig.close()


def test_state_is_rebuilt_from_checkpoint_and_later_events(tmp_path):
    rig = ServiceRig(tmp_path, [EgmProfile(address=1)])
    try:
        machine = rig.machine(1)
        for games in range(10, 310, 10):  # many meter events: more than checkpoint_every (25)
            machine.play(10)
            assert _played(rig, "slot-1", games)
        before = rig.service.state.snapshot()
        assert rig.records("slots_checkpoint")
        rig.restart()
        assert rig.service.state.snapshot() == before
    finally:
        rig.close()


def test_two_ports_polled_concurrently_with_per_game_payback(tmp_path):
    from drivers.sim.egm import EgmSimulator, PtyLine
    from firmware_host.journal import Journal
    from firmware_host.slots.config import parse_slots_config
    from firmware_host.slots.service import SlotService

    from .service_rig import slots_config

    lines = [PtyLine(), PtyLine()]
    sims = [EgmSimulator.from_profiles(line.link, [EgmProfile(address=a, seed=a)]).start()
            for line, a in zip(lines, (1, 2))]
    data = slots_config(str(tmp_path / "j.sqlite"), lines[0].path,
                        [{"id": "a-1", "address": 1, "model": "Sim", "paytable": "PT9200"}],
                        cycle=["general", "0x1C", "0x2F:game=1:00,01,02,05,06,07"])
    data["ports"].append({"url": lines[1].path, "framing": "escape",
                          "machines": [{"id": "b-2", "address": 2, "model": "Sim", "paytable": "PT9200"}]})
    service = SlotService(parse_slots_config(data), journal=Journal.open(data["service"]["journal"])).start()
    try:
        machines = service.state.machines
        assert wait_until(lambda: "1/games_played/8" in machines["a-1"].baseline  # game 1 (0x2F game=1)
                          and "0/games_played/8" in machines["b-2"].baseline)
        assert len(service.pollers) == 2 and {p._thread.name for p in service.pollers.values()} == {
            f"sas-{lines[0].path}", f"sas-{lines[1].path}"}
        sims[0].machine(1).play(120)
        sims[1].machine(2).play(80)
        assert wait_until(lambda: machines["a-1"].payback.get("1/lifetime") is not None
                          and machines["a-1"].payback["1/lifetime"].games == 120
                          and machines["b-2"].payback.get("0/lifetime") is not None
                          and machines["b-2"].payback["0/lifetime"].games == 80)
        assert machines["a-1"].payback["0/lifetime"].games == 120  # the machine and its game 1
        assert service.error is None
    finally:
        service.stop()
        service.journal.close()
        for sim, line in zip(sims, lines):
            sim.stop()
            line.close()
