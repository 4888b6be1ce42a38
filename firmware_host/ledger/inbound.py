"""What the ledger accepts: a table or slot message (topic and exact bytes) checked against the contract.

    read(prefix, topic, payload, via="live") -> TableMessage | SlotMeters | Refused | None

Every payload is treated as hostile: size, JSON, schema, the table named by the topic and by the
payload, the payload type the topic carries, `seq`/`prev_seq`/`epoch` shapes. Anything wrong comes
back as `Refused` (booked as an anomaly, with the bytes as evidence; never as books). `None` means
a topic the ledger does not book.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from ..mqtt.contract import Epoch, EventPayload, JournalPoint, ResultPayload, SettlementPayload, TableState
from ..slots.floor import MetersPayload

MAX_PAYLOAD_BYTES = 1 << 20
FOLLOWED = ("result", "settlement", "events", "state")  # the table topics the ledger books
PAYLOAD_TYPE = {"result": "result", "settlement": "settlement", "events": "event", "state": "state"}
BODY_TYPE: dict[str, Any] = {"result": ResultPayload, "settlement": SettlementPayload, "event": EventPayload,
                             "state": TableState}

Name = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[^/#+\x00]+$")]
Utc = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$")]
HEAD = re.compile("[0-9a-f]{64}")


class Envelope(Struct):
    """The fields the ledger needs from every table payload before it books anything."""

    type: str
    table: Name
    epoch: Epoch
    seq: Annotated[int, Meta(ge=1, le=2**62)]
    prev_seq: Annotated[int, Meta(ge=0, le=2**62)]
    utc: Utc
    schema: Literal[1]


class SlotEnvelope(Struct):
    site: Name
    seq: Annotated[int, Meta(ge=1, le=2**62)]
    utc: Utc
    schema: Literal[1]
    epoch: Epoch | None = None


@dataclass(frozen=True, slots=True)
class TableMessage:
    """One table message that passed every check; `body` is its contract Struct."""

    table: str
    epoch: str
    seq: int
    prev_seq: int
    topic: str  # the leaf under T/: result, settlement, events, state
    type: str
    utc: str
    payload: bytes
    sha256: str
    body: Any
    via: str  # "live" or "recall"
    chain: JournalPoint | None = None  # state only

    @property
    def key(self) -> tuple[str, str, int]:
        return self.table, self.epoch, self.seq

    @property
    def round(self) -> int | None:
        return getattr(self.body, "round", None)


@dataclass(frozen=True, slots=True)
class SlotMeters:
    """A slot machine's meter snapshot (`<prefix>/slots/<machine>/meters`, docs/sas.md)."""

    site: str
    epoch: str  # "" while the slots service publishes no epoch
    seq: int
    machine: str
    body: MetersPayload
    payload: bytes
    sha256: str


@dataclass(frozen=True, slots=True)
class Refused:
    """A message the ledger will not book: the anomaly kind, what was wrong, the bytes."""

    kind: str
    detail: str
    topic: str
    payload: bytes
    table: str | None = None
    epoch: str | None = None
    seq: int | None = None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def topic_parts(prefix: str, topic: str) -> tuple[str, str, str] | None:
    """("tables" | "slots", id, leaf) for `<prefix>/tables/<id>/<leaf>` or `<prefix>/slots/<id>/<leaf>`."""
    base = prefix.split("/")
    parts = topic.split("/")
    if len(parts) != len(base) + 3 or parts[:len(base)] != base:
        return None
    kind, name, leaf = parts[len(base):]
    return (kind, name, leaf) if kind in ("tables", "slots") else None


def read(prefix: str, topic: str, payload: bytes, via: str = "live") -> TableMessage | SlotMeters | Refused | None:
    """Check one message; see the module docstring."""
    parts = topic_parts(prefix, topic)
    if parts is None:
        return None
    kind, name, leaf = parts
    if kind == "slots":
        return _slot_meters(topic, name, payload) if leaf == "meters" else None
    if leaf not in FOLLOWED:
        return None
    return _table_message(topic, name, leaf, payload, via)


def _table_message(topic: str, table: str, leaf: str, payload: bytes, via: str) -> TableMessage | Refused:
    if len(payload) > MAX_PAYLOAD_BYTES:
        return Refused("oversized", f"{len(payload)} bytes (the ledger books at most {MAX_PAYLOAD_BYTES})", topic,
                       payload[:4096], table)
    try:
        envelope = msgspec.json.decode(payload, type=Envelope)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        return Refused("malformed", f"not a contract payload: {exc}", topic, payload, table)
    where = dict(table=table, epoch=envelope.epoch, seq=envelope.seq)
    if envelope.table != table:
        return Refused("table_mismatch", f"payload names table {envelope.table!r} on {table!r}'s topic", topic,
                       payload, **where)
    expected = PAYLOAD_TYPE[leaf]
    if envelope.type != expected:
        return Refused("type_mismatch", f"a {envelope.type!r} payload on the {leaf} topic (expected {expected!r})",
                       topic, payload, **where)
    if envelope.prev_seq >= envelope.seq:
        return Refused("malformed", f"prev_seq {envelope.prev_seq} is not below seq {envelope.seq}", topic, payload,
                       **where)
    try:
        body = msgspec.json.decode(payload, type=BODY_TYPE[expected])
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        return Refused("malformed", f"not a valid {expected} payload: {exc}", topic, payload, **where)
    if expected == "settlement" and body.totals is None:
        return Refused("malformed", "a settlement without totals", topic, payload, **where)
    chain = body.journal if expected == "state" else None
    if expected == "state" and (chain is None or not 0 <= chain.records <= 2**62 or not HEAD.fullmatch(chain.head)):
        return Refused("malformed", "a state without a journal point (records >= 0, head 64 lowercase hex): "
                       f"{msgspec.json.encode(chain).decode() if chain else 'none'}", topic, payload, **where)
    return TableMessage(table, envelope.epoch, envelope.seq, envelope.prev_seq, leaf, expected, envelope.utc,
                        payload, sha256_hex(payload), body, via, chain)


def _slot_meters(topic: str, machine: str, payload: bytes) -> SlotMeters | Refused:
    if len(payload) > MAX_PAYLOAD_BYTES:
        return Refused("oversized", f"{len(payload)} bytes", topic, payload[:4096])
    try:
        envelope = msgspec.json.decode(payload, type=SlotEnvelope)
        body = msgspec.json.decode(payload, type=MetersPayload)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        return Refused("malformed", f"not a slot_meters payload: {exc}", topic, payload)
    if body.machine != machine:
        return Refused("table_mismatch", f"payload names machine {body.machine!r} on {machine!r}'s topic", topic,
                       payload)
    return SlotMeters(envelope.site, envelope.epoch or "", envelope.seq, machine, body, payload, sha256_hex(payload))
