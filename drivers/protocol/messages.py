"""Link messages: frame kinds and the byte layout of each payload (docs/firmware-protocol.md §3-4)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from ..errors import ProtocolError

PROTOCOL_VERSION = 1
MAX_TEXT = 32


class Kind(IntEnum):
    """Frame kinds. Kinds below 0x10 are link control (no sequence number); 0x10 and up are sequenced."""

    HELLO = 0x01
    IDENTITY = 0x02
    ACK = 0x03
    HEARTBEAT = 0x04
    EVENT = 0x10
    COMMAND = 0x11
    RESULT = 0x12

    @property
    def sequenced(self) -> bool:
        return self >= 0x10


SEQUENCED_KINDS = frozenset(k for k in Kind if k.sequenced)


class DeviceType(IntEnum):
    """What board answered the handshake."""

    WHEEL_SENSOR = 0x01
    SHOE_SCANNER = 0x02
    DOME_CONTROLLER = 0x03


class Status(IntEnum):
    """A command's result status."""

    OK = 0
    UNKNOWN_COMMAND = 1
    BAD_ARGUMENTS = 2
    DEADLINE_REQUIRED = 3
    FAULT = 4
    BUSY = 5


class CommandCode(IntEnum):
    """Commands every board implements; boards add their own from 0x20."""

    PING = 0x01
    SET_OUTPUT = 0x02


def _unpack(fmt: str, payload: bytes, what: str) -> tuple:
    size = struct.calcsize(fmt)
    if len(payload) < size:
        raise ProtocolError(f"{what} payload of {len(payload)} bytes is shorter than {size}")
    return struct.unpack_from(fmt, payload)


def _text(value: str, what: str) -> bytes:
    raw = value.encode("ascii", "strict")
    if len(raw) > MAX_TEXT:
        raise ProtocolError(f"{what} {value!r} is longer than {MAX_TEXT} bytes")
    return bytes((len(raw),)) + raw


def _read_text(payload: bytes, offset: int, what: str) -> tuple[str, int]:
    if offset >= len(payload):
        raise ProtocolError(f"{what} missing")
    length = payload[offset]
    end = offset + 1 + length
    if length > MAX_TEXT or end > len(payload):
        raise ProtocolError(f"{what} length {length} runs past the payload")
    raw = payload[offset + 1:end]
    if not all(0x20 <= b < 0x7F for b in raw):
        raise ProtocolError(f"{what} is not printable ASCII: {raw!r}")
    return raw.decode("ascii"), end


@dataclass(frozen=True, slots=True)
class HelloMsg:
    """Host -> device: open a link session (both sides restart sequence numbers)."""

    version: int
    heartbeat_ms: int
    link_timeout_ms: int

    def encode(self) -> bytes:
        return struct.pack("<BHH", self.version, self.heartbeat_ms, self.link_timeout_ms)

    @classmethod
    def decode(cls, payload: bytes) -> HelloMsg:
        return cls(*_unpack("<BHH", payload, "HELLO"))


@dataclass(frozen=True, slots=True)
class IdentityMsg:
    """Device -> host: who the device is; answers HELLO."""

    version: int
    device_type: int
    boot_id: int
    serial: str
    firmware: str

    def encode(self) -> bytes:
        return (struct.pack("<BBI", self.version, self.device_type, self.boot_id)
                + _text(self.serial, "serial number") + _text(self.firmware, "firmware build"))

    @classmethod
    def decode(cls, payload: bytes) -> IdentityMsg:
        version, device_type, boot_id = _unpack("<BBI", payload, "IDENTITY")
        serial, offset = _read_text(payload, 6, "serial number")
        firmware, offset = _read_text(payload, offset, "firmware build")
        if offset != len(payload):
            raise ProtocolError(f"IDENTITY has {len(payload) - offset} trailing bytes")
        return cls(version, device_type, boot_id, serial, firmware)


@dataclass(frozen=True, slots=True)
class HeartbeatMsg:
    """Either way: I am alive; my uptime in ms (wraps at 2^32)."""

    uptime_ms: int

    def encode(self) -> bytes:
        return struct.pack("<I", self.uptime_ms & 0xFFFFFFFF)

    @classmethod
    def decode(cls, payload: bytes) -> HeartbeatMsg:
        return cls(*_unpack("<I", payload, "HEARTBEAT"))


@dataclass(frozen=True, slots=True)
class EventMsg:
    """Device -> host: something happened. `event_id` counts up from 1 per boot and survives relinks."""

    event_id: int
    device_ms: int
    code: int
    data: bytes = b""

    def encode(self) -> bytes:
        return struct.pack("<IIB", self.event_id, self.device_ms & 0xFFFFFFFF, self.code) + self.data

    @classmethod
    def decode(cls, payload: bytes) -> EventMsg:
        event_id, device_ms, code = _unpack("<IIB", payload, "EVENT")
        return cls(event_id, device_ms, code, bytes(payload[9:]))


@dataclass(frozen=True, slots=True)
class CommandMsg:
    """Host -> device: do something; an actuator command holds at most `deadline_ms` (0: no hold)."""

    command_id: int
    code: int
    deadline_ms: int = 0
    args: bytes = b""

    def encode(self) -> bytes:
        return struct.pack("<HBH", self.command_id, self.code, self.deadline_ms) + self.args

    @classmethod
    def decode(cls, payload: bytes) -> CommandMsg:
        command_id, code, deadline_ms = _unpack("<HBH", payload, "COMMAND")
        return cls(command_id, code, deadline_ms, bytes(payload[5:]))


@dataclass(frozen=True, slots=True)
class ResultMsg:
    """Device -> host: the outcome of the command with `command_id`."""

    command_id: int
    status: int
    data: bytes = b""

    def encode(self) -> bytes:
        return struct.pack("<HB", self.command_id, self.status) + self.data

    @classmethod
    def decode(cls, payload: bytes) -> ResultMsg:
        command_id, status = _unpack("<HB", payload, "RESULT")
        return cls(command_id, status, bytes(payload[3:]))
