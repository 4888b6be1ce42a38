"""A slot service on a temporary journal, polling EGM simulators on real ptys (no broker unless given)."""

from __future__ import annotations

import json
import time

from drivers.sim.egm import EgmSimulator, PtyLine
from drivers.sim.egm_machine import EgmProfile
from firmware_host.journal import Journal
from firmware_host.mqtt.link import Inbound
from firmware_host.slots.config import parse_slots_config
from firmware_host.slots.service import SlotService, mqtt_link


def wait_until(predicate, timeout: float = 10.0, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def slots_config(journal: str, port: str, machines: list[dict], pools: list[dict] | None = None,
                 mqtt_url: str = "mqtt://127.0.0.1:1883", **sas) -> dict:
    return {
        "version": 1,
        "service": {"site": "test-floor", "journal": journal, "checkpoint_every": 25},
        "mqtt": {"prefix": "casino", "url": mqtt_url, "reconnect_max_s": 1.0},
        "access": {"floor": ["floor-system"], "supervisors": ["supervisor-17"]},
        "sas": {"response_timeout_ms": 150, "min_poll_interval_ms": 20, "broadcast_every_ms": 200, **sas},
        "payback": {"min_games": 100},
        "paytables": {"PT9200": {"sigma": 4.65}},
        "ports": [{"url": port, "framing": "escape", "machines": machines}],
        "pools": pools or [],
    }


class ServiceRig:
    """Simulated machines on one pty and a slot service; `restart()` starts a new service on the same journal."""

    def __init__(self, tmp_path, profiles: list[EgmProfile], pools: list[dict] | None = None,
                 mqtt_url: str | None = None, start: bool = True, **sas) -> None:
        self.line = PtyLine()
        self.sim = EgmSimulator.from_profiles(self.line.link, profiles).start()
        machines = [{"id": f"slot-{p.address}", "address": p.address, "model": "Sim", "paytable": "PT9200",
                     "max_bet": p.max_bet} for p in profiles]
        self.config = parse_slots_config(slots_config(str(tmp_path / "slots.sqlite"), self.line.path, machines,
                                                      pools, mqtt_url or "mqtt://127.0.0.1:1883", **sas))
        self.with_mqtt = mqtt_url is not None
        self.service: SlotService | None = None
        if start:
            self.start()

    def start(self) -> SlotService:
        journal = Journal.open(self.config.service.journal)
        mqtt = mqtt_link(self.config) if self.with_mqtt else None
        self.service = SlotService(self.config, journal=journal, mqtt=mqtt).start()
        return self.service

    def restart(self) -> SlotService:
        self.stop_service()
        return self.start()

    def stop_service(self) -> None:
        if self.service:
            error = self.service.error
            self.service.stop()
            self.service.journal.close()
            self.service = None
            assert error is None, f"the slot service logged an error: {error!r}"

    def machine(self, address: int = 1):
        return self.sim.machine(address)

    def state(self, machine_id: str = "slot-1"):
        return self.service.state.machines[machine_id]

    def request(self, topic: str, payload: dict, user: str = "supervisor-17") -> None:
        """A request from broker user `user` as paho hands it over (`topic` without the user level)."""
        self.service.requests.admit(Inbound(f"casino/{topic}/{user}", json.dumps(payload).encode(), None, b"corr-1"))

    def records(self, kind: str) -> list[dict]:
        return [r.data() for r in self.service.journal.records(kind=kind)]

    def messages(self, suffix: str) -> list[dict]:
        return [json.loads(m.payload) for m in self.service.journal.messages() if m.topic.endswith(suffix)]

    def close(self) -> None:
        self.stop_service()
        self.sim.stop()
        self.line.close()
