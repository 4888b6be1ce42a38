"""Publishing to a real Mosquitto: a broker outage loses no meter snapshot or event; floor requests answered."""

from __future__ import annotations

import json

import pytest

from drivers.sim.egm_machine import EgmProfile
from tests.service.broker import MosquittoBroker
from tests.service.listener import Listener, request

from .service_rig import ServiceRig, wait_until


@pytest.fixture
def broker(tmp_path):
    instance = MosquittoBroker(tmp_path / "broker").start()
    yield instance
    instance.kill()


def _rig(tmp_path, broker, profiles):
    return ServiceRig(tmp_path, profiles, mqtt_url=broker.url)


def _seqs(listener: Listener, suffix: str) -> list[int]:
    return [json.loads(m.payload)["seq"] for m in listener.snapshot(suffix) if not m.retained]


def test_broker_outage_loses_no_meter_snapshot_or_event(tmp_path, broker):
    listener = Listener(broker.url, ["casino/#"], persistent=True)
    rig = _rig(tmp_path, broker, [EgmProfile(address=1)])
    try:
        journal = rig.service.journal
        machine = rig.machine(1)
        assert wait_until(lambda: rig.state().baseline)
        machine.play(100)
        assert listener.wait_for(lambda ms: any(json.loads(m.payload).get("meters", {}).get("games_played") == 100
                                                for m in ms if m.topic.endswith("/meters")))
        broker.stop()  # graceful: the listener's session and subscription are persisted
        machine.open_door()
        machine.close_door()
        machine.play(150)
        assert wait_until(lambda: rig.state().baseline.get("0/games_played/8") == 250)
        assert wait_until(lambda: any(m["name"] == "slot_door_closed" for m in rig.messages("slot-1/events")
                                      if "name" in m))
        pending = journal.messages(pending_only=True)
        assert any(m.topic.endswith("/events") for m in pending) and any(m.topic.endswith("/meters") for m in pending)

        broker.start()
        assert wait_until(lambda: not journal.messages(pending_only=True), timeout=30)
        expected = {m.seq: m.topic for m in journal.messages() if m.topic.endswith(("/events", "/meters"))}
        assert listener.wait_for(lambda ms: {json.loads(m.payload)["seq"] for m in ms
                                             if m.topic.endswith(("/events", "/meters"))} >= set(expected),
                                 timeout_s=30)
        for suffix in ("/events", "/meters"):
            got = _seqs(listener, suffix)
            assert sorted(set(got)) == sorted(s for s, t in expected.items() if t.endswith(suffix))
        names = [json.loads(m.payload).get("name") for m in listener.snapshot("/events")]
        assert "slot_door_opened" in names and "slot_door_closed" in names
        last_meters = json.loads(listener.snapshot("slot-1/meters")[-1].payload)
        assert last_meters["meters"]["games_played"] == 250
    finally:
        listener.close()
        rig.close()


def test_floor_system_polls_on_demand_over_mqtt(tmp_path, broker):
    rig = _rig(tmp_path, broker, [EgmProfile(address=1, serial="SN-77")])
    try:
        assert wait_until(lambda: rig.service.mqtt.connected)
        answer = request(broker.url, "casino/slots/slot-1/request/floor-system",
                         {"action": "poll", "poll": "0x54", "id": "a1"})
        assert answer["accepted"] and answer["id"] == "a1"
        assert answer["reply"] == {"type": "version", "address": 1, "version": "602", "serial": "SN-77"}
        availability = Listener(broker.url, ["casino/slots/availability", "casino/slots/slot-1/availability"])
        assert availability.wait_for(lambda ms: {json.loads(m.payload)["state"] for m in ms} >= {"online"})
        availability.close()
    finally:
        rig.close()
