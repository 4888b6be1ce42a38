"""Board vocabularies: event codes, data layouts, outputs and safe states of each device type (§6 of the spec)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from types import MappingProxyType

from ..errors import ProtocolError
from .messages import DeviceType


@dataclass(frozen=True, slots=True)
class EventLayout:
    """The name of an event code and the struct layout of its data bytes."""

    name: str
    fmt: str
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Output:
    """An actuator output: its id on the board and the value the board returns to by itself."""

    name: str
    output_id: int
    safe_value: int


@dataclass(frozen=True, slots=True)
class BoardVocabulary:
    device_type: DeviceType
    events: MappingProxyType
    outputs: tuple[Output, ...]
    sensors: tuple[str, ...]

    def code_of(self, name: str) -> int:
        for code, layout in self.events.items():
            if layout.name == name:
                return code
        raise ProtocolError(f"{self.device_type.name} has no event {name!r}")

    def output(self, name: str) -> Output:
        for output in self.outputs:
            if output.name == name:
                return output
        raise ProtocolError(f"{self.device_type.name} has no output {name!r}")


FAULTS = MappingProxyType({1: "stuck", 2: "no_signal", 3: "implausible"})

WHEEL = BoardVocabulary(
    DeviceType.WHEEL_SENSOR,
    MappingProxyType({
        0x01: EventLayout("rotor_index", "<B", ("sensor",)),
        0x02: EventLayout("ball_pass", "<B", ("sensor",)),
        0x03: EventLayout("ball_in_pocket", "<B", ("pocket",)),
        0x04: EventLayout("sensor_fault", "<BB", ("sensor", "fault")),
        0x05: EventLayout("sensor_ok", "<B", ("sensor",)),
    }),
    (Output("wheel_lamp", 0, 0),),
    ("rotor_a", "rotor_b", "rim_1", "rim_2", "pocket_reader"),
)
NO_BALL = 0xFF  # ball_in_pocket: the pocket reader sensed no ball

SHOE = BoardVocabulary(
    DeviceType.SHOE_SCANNER,
    MappingProxyType({
        0x01: EventLayout("card_out", "<BBH", ("rank", "suit", "seq")),
        0x02: EventLayout("card_unreadable", "<H", ("seq",)),
        0x03: EventLayout("cut_card", "<H", ("after_seq",)),
        0x04: EventLayout("shoe_empty", "<H", ("cards",)),
        0x05: EventLayout("shoe_loaded", "<", ()),
        0x06: EventLayout("sensor_fault", "<BB", ("sensor", "fault")),
        0x07: EventLayout("sensor_ok", "<B", ("sensor",)),
    }),
    (Output("gate_lock", 0, 1), Output("shoe_lamp", 1, 0)),
    ("card_scanner", "exit_sensor", "cut_card_sensor"),
)

VOCABULARIES = MappingProxyType({v.device_type: v for v in (WHEEL, SHOE)})


def pack_event(vocabulary: BoardVocabulary, name: str, **values: int) -> tuple[int, bytes]:
    """(code, data bytes) of a named event."""
    code = vocabulary.code_of(name)
    layout = vocabulary.events[code]
    missing = set(layout.fields) - set(values)
    extra = set(values) - set(layout.fields)
    if missing or extra:
        raise ProtocolError(f"{name}: fields {layout.fields}, got {sorted(values)}")
    try:
        return code, struct.pack(layout.fmt, *(values[f] for f in layout.fields))
    except struct.error as exc:
        raise ProtocolError(f"{name}: {exc}") from None


def unpack_event(vocabulary: BoardVocabulary, code: int, data: bytes) -> tuple[str, dict[str, int]]:
    """(name, fields) of an event's data; ProtocolError for an unknown code or a wrong length."""
    layout = vocabulary.events.get(code)
    if layout is None:
        raise ProtocolError(f"{vocabulary.device_type.name}: unknown event code {code:#04x}")
    size = struct.calcsize(layout.fmt)
    if len(data) != size:
        raise ProtocolError(f"{layout.name}: {len(data)} data bytes, expected {size}")
    return layout.name, dict(zip(layout.fields, struct.unpack(layout.fmt, data)))
