"""The slot service's state as a pure reducer: every change is an event, journalled, replayed on restart.

`SlotState.apply(kind, body)` is the only way the state changes. The service applies an event, then
writes it (kind, body and what applying it produced) to the journal in the same transaction as the
MQTT messages that announce it. On start-up the state is the last `slots_checkpoint` record plus
every event after it, applied again in order - so a disabled machine is still disabled, a pool
still holds every cent, after a restart or a power cut.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec

from .pools import Award, Contribution, Pool, Pools

EVENT_KINDS = ("slot_info", "slot_meters", "slot_fault", "slot_fault_cleared", "pool_award", "pool_transfer",
               "pool_seeded")
CHECKPOINT = "slots_checkpoint"


class Fault(msgspec.Struct):
    kind: str
    meter: str | None
    detail: str
    utc: str


class WindowTotals(msgspec.Struct):
    key: str
    coin_in: int = 0
    paid: int = 0
    games: int = 0


class MachineState(msgspec.Struct):
    machine_id: str
    baseline: dict[str, int] = {}  # "game/name/digits" -> last accepted value
    series: dict[str, int] = {}  # "game" -> digits of the readings that feed the accounting
    disabled: bool = False
    fault: Fault | None = None
    faults_seen: int = 0
    held: dict[str, int] = {}  # readings received while a fault is open (the baseline once cleared)
    denomination_code: int | None = None
    base_pct_hundredths: int | None = None
    max_bet: int | None = None
    payback: dict[str, WindowTotals] = {}  # "game/window" -> totals


def fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


class SlotState:
    """Machines and pools; change it only through `apply`."""

    def __init__(self, machine_ids: list[str], pools: list[Pool]) -> None:
        self.machines = {m: MachineState(m) for m in machine_ids}
        self.pools = Pools({p.pool_id: p for p in pools})

    # --- the reducer -------------------------------------------------------------------------
    def apply(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """Apply one event; returns what it produced (contributions, award) to journal with it."""
        handler = getattr(self, f"_on_{kind}")
        return handler(body) or {}

    def _machine(self, body) -> MachineState:
        return self.machines[body["machine"]]

    def _on_slot_info(self, body) -> None:
        m = self._machine(body)
        m.denomination_code = body["denomination_code"]
        m.base_pct_hundredths = body["base_pct_hundredths"]
        m.max_bet = body["max_bet"]

    def _on_slot_meters(self, body) -> dict:
        m = self._machine(body)
        values = {f"{body['game']}/{n}/{body['digits']}": v for n, v in body["values"].items()}
        if m.fault is not None:
            m.held = m.held | values
            return {}
        m.baseline = m.baseline | values
        accounted = body.get("accounted")
        if not accounted:
            return {}
        m.series.setdefault(str(body["game"]), body["digits"])
        for window, key in body["windows"].items():
            slot = f"{body['game']}/{window}"
            totals = m.payback.get(slot)
            if totals is None or totals.key != key:
                totals = m.payback[slot] = WindowTotals(key)
            totals.coin_in += accounted["coin_in"]
            totals.paid += accounted["paid"]
            totals.games += accounted["games"]
        if body["game"] != 0 or not accounted["coin_in"] or body.get("cents_per_credit") is None:
            return {}
        contributions = self.pools.contribute(m.machine_id, accounted["coin_in"],
                                              Fraction(body["cents_per_credit"]))
        return {"contributions": [_contribution(c) for c in contributions]}

    def _on_slot_fault(self, body) -> None:
        m = self._machine(body)
        m.disabled = True
        m.faults_seen += 1
        if m.fault is None:
            m.fault = Fault(body["kind"], body.get("meter"), body["detail"], body["utc"])
            m.held = {}
        if "values" in body:  # the reading that failed is the latest the machine gave
            m.held = m.held | {f"{body['game']}/{n}/{body['digits']}": v for n, v in body["values"].items()}

    def _on_slot_fault_cleared(self, body) -> None:
        m = self._machine(body)
        m.baseline = dict(m.held)  # what the machine showed since the fault; other meters start afresh
        m.held = {}
        m.fault = None
        m.disabled = False

    def _on_pool_seeded(self, body) -> dict:
        return {"cents": self.pools.seed_new(body["pool"])}

    def _on_pool_award(self, body) -> dict:
        award: Award = self.pools.award(body["pool"], body["machine"], body["paid"])
        return {"top_up": award.top_up, "reseed": award.reseed}

    def _on_pool_transfer(self, body) -> dict:
        return {"amount": fraction_text(self.pools.transfer(body["source"], body["target"]))}

    # --- checkpoints -------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        return {
            "machines": {k: msgspec.to_builtins(v) for k, v in self.machines.items()},
            "pools": {k: _pool_builtins(p) for k, p in self.pools.pools.items()},
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Load a checkpoint; machines and pools no longer configured are dropped, new ones start empty."""
        for machine_id, data in snapshot["machines"].items():
            if machine_id in self.machines:
                self.machines[machine_id] = msgspec.convert(data, MachineState)
        for pool_id, data in snapshot["pools"].items():
            if pool_id in self.pools.pools:
                pool = self.pools.pools[pool_id]
                for name in ("cents", "seeded", "awarded", "hits"):
                    setattr(pool, name, data[name])
                for name in ("carry", "contributed", "transferred_in", "transferred_out"):
                    setattr(pool, name, Fraction(data[name]))


def _contribution(c: Contribution) -> dict[str, Any]:
    return {"pool": c.pool_id, "coin_in": c.coin_in, "exact_cents": fraction_text(c.exact), "credited": c.credited}


def _pool_builtins(pool: Pool) -> dict[str, Any]:
    return {"cents": pool.cents, "carry": fraction_text(pool.carry), "seeded": pool.seeded,
            "contributed": fraction_text(pool.contributed), "awarded": pool.awarded,
            "transferred_in": fraction_text(pool.transferred_in),
            "transferred_out": fraction_text(pool.transferred_out), "hits": pool.hits}
