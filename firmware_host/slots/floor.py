"""The slots' MQTT contract with the floor system: topic names and payload schemas (schema 1).

    <prefix>/slots/availability                    retained  the slot service itself (Last Will: offline)
    <prefix>/slots/<machine>/meters                retained  the latest accepted meters of one reply
    <prefix>/slots/<machine>/events                          exceptions, meter faults, disable/enable, handpays
    <prefix>/slots/<machine>/availability          retained  online / offline (no SAS reply) / disabled
    <prefix>/slots/<machine>/payback               retained  day, month and lifetime return vs base % and minimum
    <prefix>/jackpots/<pool>                       retained  pool value, seed, hits
    <prefix>/slots/<machine>/request/<user>   (in)  poll | clear_fault  -> <prefix>/replies/<user>/slots/<machine>
    <prefix>/jackpots/<pool>/request/<user>   (in)  transfer            -> <prefix>/replies/<user>/jackpots/<pool>

Every outgoing payload carries `seq` (the slot journal's outbox sequence, filled in at publish time):
consumers drop a `(site, seq)` they have seen. `<user>` is the requester's broker user name (the
broker's ACL lets only that user write there); who cleared a fault or moved a pool is that user.
Responses echo the request's `id` and MQTT 5 correlation data and go to the request's response
topic when it lies in the requester's reply tree `<prefix>/replies/<user>/`, else to the default.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

import msgspec
from msgspec import Meta, Struct

SCHEMA = 1


class SlotTopics:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.service_availability = f"{prefix}/slots/availability"

    def machine(self, machine_id: str, leaf: str) -> str:
        return f"{self.prefix}/slots/{machine_id}/{leaf}"

    def jackpot(self, pool_id: str) -> str:
        return f"{self.prefix}/jackpots/{pool_id}"

    def inbound(self) -> list[tuple[str, int]]:
        return [(f"{self.prefix}/slots/+/request/+", 1), (f"{self.prefix}/jackpots/+/request/+", 1)]

    def parse_request_topic(self, topic: str) -> tuple[str, str, str] | None:
        """("machine" | "pool", id, broker user) for a request topic, else None."""
        parts = topic.split("/")
        base = self.prefix.split("/")
        if len(parts) != len(base) + 4 or parts[:len(base)] != base or parts[-2] != "request" or not parts[-1]:
            return None
        kind = {"slots": "machine", "jackpots": "pool"}.get(parts[len(base)])
        return (kind, parts[len(base) + 1], parts[-1]) if kind else None

    def reply_prefix(self, user: str) -> str:
        return f"{self.prefix}/replies/{user}/"

    def default_reply(self, kind: str, ident: str, user: str) -> str:
        return f"{self.reply_prefix(user)}{'slots' if kind == 'machine' else 'jackpots'}/{ident}"


class _Out(Struct, tag_field="type", omit_defaults=False):
    site: str
    seq: int
    utc: str
    schema: int = SCHEMA


class ServiceAvailability(Struct, tag_field="type", tag="slots_availability", omit_defaults=True):
    site: str
    state: Literal["online", "offline"]
    schema: int = SCHEMA


class MachineAvailability(_Out, tag="slot_availability"):
    machine: str = ""
    state: Literal["online", "offline", "disabled"] = "online"
    reason: str | None = None


class MetersPayload(_Out, tag="slot_meters"):
    machine: str = ""
    game: int = 0
    digits: int = 8
    poll: str = ""
    meters: dict[str, int] = {}
    deltas: dict[str, int] = {}
    rollovers: list[str] = []
    disabled: bool = False


class SlotEvent(_Out, tag="slot_event"):
    machine: str = ""
    event: str = ""  # exception, meter_fault, fault_cleared, disabled, enabled, handpay, progressive_win, ...
    code: int | None = None
    name: str | None = None
    kind: str | None = None
    who: str | None = None
    why: str | None = None
    detail: dict[str, Any] = {}


class PaybackWindow(Struct):
    game: int
    window: str
    key: str
    coin_in: int
    paid: int
    games: int
    actual: str | None  # exact "paid/coin_in"
    actual_pct: float | None
    base_pct: float | None
    minimum_pct: float
    standard_error: float | None
    z_vs_base: float | None
    z_vs_minimum: float | None
    shortfall_vs_base: bool
    below_minimum: bool


class PaybackPayload(_Out, tag="slot_payback"):
    machine: str = ""
    windows: list[PaybackWindow] = []
    alarm: bool = False


class JackpotPayload(_Out, tag="jackpot"):
    pool: str = ""
    kind: str = ""
    group: int = 0
    level: int = 0
    value_cents: int = 0
    carry_cents: str = "0/1"  # the fraction of a cent not yet credited
    seed_cents: int = 0
    hits: int = 0
    machines: list[str] = []
    last_award: dict[str, Any] | None = None


class SlotResponse(_Out, tag="slot_response"):
    id: str | None = None
    target: str = ""
    action: str = ""
    accepted: bool = False
    message: str = ""
    reply: dict[str, Any] | None = None


Text = Annotated[str, Meta(min_length=1, max_length=128)]
Why = Annotated[str, Meta(min_length=1, max_length=500)]


class PollRequest(Struct, tag_field="action", tag="poll", forbid_unknown_fields=True):
    poll: Text  # "general", "0x1C", "0x2F:00,01,05", "0x6F:00,01" ...
    id: str | None = None
    schema: Literal[1] = 1


class ClearFaultRequest(Struct, tag_field="action", tag="clear_fault", forbid_unknown_fields=True):
    why: Why
    who: Text | None = None  # a display name only: who cleared it is the request's broker user
    id: str | None = None
    schema: Literal[1] = 1


class TransferRequest(Struct, tag_field="action", tag="transfer", forbid_unknown_fields=True):
    to: Text
    why: Why
    who: Text | None = None  # a display name only
    id: str | None = None
    schema: Literal[1] = 1


MachineRequest = Union[PollRequest, ClearFaultRequest]


def decode(payload: bytes, expected: Any) -> Any:
    """Decode a request, or raise ValueError saying what is wrong with it."""
    try:
        return msgspec.json.decode(payload, type=expected)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ValueError(str(exc)) from None
