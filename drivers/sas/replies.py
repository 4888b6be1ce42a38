"""Machine -> host messages: exceptions, ACK/NACK/BUSY and the long poll replies, encoded and decoded.

`reply_length` tells the reader when a reply is complete without waiting for the 5 ms gap; replies
that may be a lone ACK or a two-byte BUSY (shutdown, startup) end on the gap. Every multi-byte data
reply ends with a CRC, which `decode_reply` checks before reading a field.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from fractions import Fraction

from .bcd import decode_bcd, encode_bcd
from .crc import strip_crc, with_crc
from .errors import SasFrameError
from .exception_codes import exception_kind, exception_name
from .meters import GAMES_SINCE_FIELDS, MULTI_METER_POLLS, SINGLE_METER_POLLS, meter_name, meter_size
from .polls import Poll

NACK_BIT = 0x80
ACK_ONLY_COMMANDS = frozenset({0x01, 0x02, 0x80, 0x86, 0x7F})

# Total reply length (address .. CRC) of the fixed-size replies.
FIXED_REPLY_LENGTH = {
    0x0F: 2 + 6 * 4 + 2, 0x18: 2 + 2 * 2 + 2, 0x19: 2 + 5 * 4 + 2, 0x1C: 2 + 8 * 4 + 2,
    0x1B: 2 + 20 + 2, 0x1F: 2 + 20 + 2, 0x55: 2 + 2 + 2, 0x85: 2 + 7 + 2,
    **{command: 2 + 4 + 2 for command in SINGLE_METER_POLLS},
}
LENGTH_PREFIXED_REPLIES = frozenset({0x2F, 0x6F, 0xAF, 0x54})


@dataclass(frozen=True, slots=True)
class ExceptionReply:
    """The one-byte answer to a general poll (0x00 = no activity)."""
    code: int


@dataclass(frozen=True, slots=True)
class Ack:
    address: int


@dataclass(frozen=True, slots=True)
class Nack:
    address: int


@dataclass(frozen=True, slots=True)
class Busy:
    """The machine is in a time-critical task; the host retries the long poll later (SAS 4.1)."""
    address: int


@dataclass(frozen=True, slots=True)
class MeterReply:
    """0x0F, 0x10-0x1A, 0x1C: named meters (4-byte BCD; 0x18's two counters are 2 bytes)."""
    address: int
    command: int
    meters: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SelectedMetersReply:
    """0x2F: meter code -> value, each in the size the meter-size table gives."""
    address: int
    game: int
    meters: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ExtendedMetersReply:
    """0x6F / 0xAF: meter code -> (size in bytes, value); size 0 means the meter is not supported."""
    address: int
    command: int
    game: int
    meters: dict[int, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HandpayReply:
    """0x1B: the pending handpay (amount in credits; level 0x40 = not progressive, 0x80 = cancelled credits)."""
    address: int
    group: int
    level: int
    amount: int
    partial_pay: int
    reset_id: int


@dataclass(frozen=True, slots=True)
class MachineInfoReply:
    """0x1F: game and paytable ids, denomination code, max bet, progressive group and base %."""
    address: int
    game_id: str
    additional_id: str
    denomination_code: int
    max_bet: int
    progressive_group: int
    game_options: int
    paytable_id: str
    base_pct_hundredths: int  # "9500" = 95.00 %

    @property
    def base_return(self) -> Fraction:
        return Fraction(self.base_pct_hundredths, 10000)


@dataclass(frozen=True, slots=True)
class VersionReply:
    """0x54: SAS version ("602") and the machine's serial number."""
    address: int
    version: str
    serial: str


@dataclass(frozen=True, slots=True)
class SelectedGameReply:
    """0x55: the game currently selected (0 = none)."""
    address: int
    game: int


@dataclass(frozen=True, slots=True)
class ProgressiveWinReply:
    """0x85: the SAS progressive level hit and the amount won, in cents."""
    address: int
    group: int
    level: int
    amount_cents: int


Reply = (ExceptionReply | Ack | Nack | Busy | MeterReply | SelectedMetersReply | ExtendedMetersReply
         | HandpayReply | MachineInfoReply | VersionReply | SelectedGameReply | ProgressiveWinReply)


def reply_length(poll: Poll, prefix: bytes) -> int | None:
    """Total length of the reply starting with `prefix`, or None if only the 5 ms gap can end it."""
    if poll.is_general:
        return 1
    if not prefix or prefix[0] == poll.address | NACK_BIT:
        return 1 if prefix else None
    if poll.command in ACK_ONLY_COMMANDS or len(prefix) < 2:
        return None
    if prefix[1] == 0x00:
        return 2
    if prefix[1] != poll.command:
        return None
    if poll.command in FIXED_REPLY_LENGTH:
        return FIXED_REPLY_LENGTH[poll.command]
    if poll.command in LENGTH_PREFIXED_REPLIES:
        return 3 + prefix[2] + 2 if len(prefix) >= 3 else None
    return None


def _ascii(data: bytes, what: str) -> str:
    try:
        return data.decode("ascii")
    except UnicodeDecodeError:
        raise SasFrameError(f"{what} {data.hex(' ')} is not ASCII") from None


def decode_reply(poll: Poll, message: bytes) -> Reply:
    """Decode the reply to `poll`; a wrong address, command, length, CRC or BCD digit is an error."""
    if poll.is_general:
        if len(message) != 1:
            raise SasFrameError(f"a general poll reply is one byte, got {message.hex(' ')}")
        return ExceptionReply(message[0])
    address, command = poll.address, poll.command
    if message == bytes([address | NACK_BIT]):
        return Nack(address)
    if message == bytes([address, 0x00]):
        return Busy(address)
    if message == bytes([address]) and command in ACK_ONLY_COMMANDS:
        return Ack(address)
    if len(message) < 2 or message[0] != address or message[1] != command:
        raise SasFrameError(f"reply {message.hex(' ')} does not answer {poll.describe()}")
    if command not in FIXED_REPLY_LENGTH and command not in LENGTH_PREFIXED_REPLIES:
        raise SasFrameError(f"this host does not decode replies to long poll 0x{command:02X}")
    expected = reply_length(poll, message)
    if expected != len(message):
        raise SasFrameError(f"reply to {poll.describe()} is {len(message)} bytes, expected {expected}")
    data = strip_crc(message)[2:]
    return _decode_data(poll, data)


def _decode_data(poll: Poll, data: bytes) -> Reply:
    address, command = poll.address, poll.command
    if command in SINGLE_METER_POLLS:
        return MeterReply(address, command, {SINGLE_METER_POLLS[command]: decode_bcd(data)})
    if command in MULTI_METER_POLLS:
        names = MULTI_METER_POLLS[command]
        return MeterReply(address, command, {n: decode_bcd(data[4 * i:4 * i + 4]) for i, n in enumerate(names)})
    if command == 0x18:
        return MeterReply(address, command, {n: decode_bcd(data[2 * i:2 * i + 2]) for i, n in enumerate(GAMES_SINCE_FIELDS)})
    if command == 0x1B:
        return HandpayReply(address, data[0], data[1], decode_bcd(data[2:7]), decode_bcd(data[7:9]), data[9])
    if command == 0x1F:
        return MachineInfoReply(address, _ascii(data[0:2], "game id"), _ascii(data[2:5], "additional id"),
                                data[5], data[6], data[7], int.from_bytes(data[8:10], "little"),
                                _ascii(data[10:16], "paytable id"), _base_pct(data[16:20]))
    if command == 0x55:
        return SelectedGameReply(address, decode_bcd(data))
    if command == 0x85:
        return ProgressiveWinReply(address, data[0], data[1], decode_bcd(data[2:7]))
    if command == 0x54:
        text = _ascii(data[1:], "version/serial")
        return VersionReply(address, text[:3], text[3:])
    if command == 0x2F:
        return SelectedMetersReply(address, decode_bcd(data[1:3]), _selected(data[3:]))
    if command in (0x6F, 0xAF):
        return ExtendedMetersReply(address, command, decode_bcd(data[1:3]), _extended(data[3:]))
    raise SasFrameError(f"no decoder for long poll 0x{command:02X}")


def _base_pct(data: bytes) -> int:
    text = _ascii(data, "base %")
    if not text.isdigit():
        raise SasFrameError(f"base % {text!r} is not four ASCII digits")
    return int(text)


def _selected(data: bytes) -> dict[int, int]:
    meters, i = {}, 0
    while i < len(data):
        code = data[i]
        size = meter_size(code)
        if i + 1 + size > len(data):
            raise SasFrameError(f"0x2F reply ends inside meter 0x{code:02X}")
        meters[code] = decode_bcd(data[i + 1:i + 1 + size])
        i += 1 + size
    return meters


def _extended(data: bytes) -> dict[int, tuple[int, int]]:
    meters, i = {}, 0
    while i < len(data):
        if i + 3 > len(data):
            raise SasFrameError("0x6F/0xAF reply ends inside a meter header")
        code, size = int.from_bytes(data[i:i + 2], "little"), data[i + 2]
        if i + 3 + size > len(data):
            raise SasFrameError(f"0x6F/0xAF reply ends inside meter 0x{code:04X}")
        meters[code] = (size, decode_bcd(data[i + 3:i + 3 + size]))
        i += 3 + size
    return meters


def encode_reply(reply: Reply) -> bytes:
    """The bytes a machine sends for `reply` (the simulator's side of the codec)."""
    match reply:
        case ExceptionReply(code):
            return bytes([code])
        case Ack(address):
            return bytes([address])
        case Nack(address):
            return bytes([address | NACK_BIT])
        case Busy(address):
            return bytes([address, 0x00])
    return with_crc(bytes([reply.address, _command_of(reply)]) + _encode_data(reply))


def _command_of(reply: Reply) -> int:
    fixed = {HandpayReply: 0x1B, MachineInfoReply: 0x1F, VersionReply: 0x54, SelectedGameReply: 0x55,
             ProgressiveWinReply: 0x85, SelectedMetersReply: 0x2F}
    return fixed.get(type(reply)) or reply.command


def _length_prefixed(data: bytes) -> bytes:
    return bytes([len(data)]) + data


def _encode_data(reply: Reply) -> bytes:
    match reply:
        case MeterReply(_, command, meters):
            if command == 0x18:
                return b"".join(encode_bcd(meters[n], 2) for n in GAMES_SINCE_FIELDS)
            names = MULTI_METER_POLLS.get(command) or (SINGLE_METER_POLLS[command],)
            return b"".join(encode_bcd(meters[n], 4) for n in names)
        case HandpayReply(_, group, level, amount, partial, reset_id):
            return bytes([group, level]) + encode_bcd(amount, 5) + encode_bcd(partial, 2) + bytes([reset_id]) + bytes(10)
        case MachineInfoReply():
            r = reply
            return (r.game_id.encode("ascii") + r.additional_id.encode("ascii")
                    + bytes([r.denomination_code, r.max_bet, r.progressive_group])
                    + r.game_options.to_bytes(2, "little") + r.paytable_id.encode("ascii")
                    + f"{r.base_pct_hundredths:04d}".encode("ascii"))
        case VersionReply(_, version, serial):
            return _length_prefixed((version + serial).encode("ascii"))
        case SelectedGameReply(_, game):
            return encode_bcd(game, 2)
        case ProgressiveWinReply(_, group, level, amount):
            return bytes([group, level]) + encode_bcd(amount, 5)
        case SelectedMetersReply(_, game, meters):
            body = b"".join(bytes([c]) + encode_bcd(v, meter_size(c)) for c, v in meters.items())
            return _length_prefixed(encode_bcd(game, 2) + body)
        case ExtendedMetersReply(_, _, game, meters):
            body = b"".join(c.to_bytes(2, "little") + bytes([s]) + (encode_bcd(v, s) if s else b"")
                            for c, (s, v) in meters.items())
            return _length_prefixed(encode_bcd(game, 2) + body)
    raise SasFrameError(f"cannot encode {reply!r}")


def reply_fields(reply: Reply) -> dict:
    """A JSON-ready view of a reply: its type, its fields, meters by name (for the CLI and MQTT)."""
    fields = asdict(reply)
    kind = re.sub(r"(?<!^)(?=[A-Z])", "_", type(reply).__name__.removesuffix("Reply")).lower()
    fields = {"type": kind, **fields}
    if "command" in fields:
        fields["command"] = f"0x{fields['command']:02X}"
    match reply:
        case ExceptionReply(code):
            fields |= {"name": exception_name(code), "kind": exception_kind(code)}
        case SelectedMetersReply(_, _, meters):
            fields["meters"] = {meter_name(c): v for c, v in meters.items()}
        case ExtendedMetersReply(_, _, _, meters):
            fields["meters"] = {meter_name(c): {"size": s, "value": v} for c, (s, v) in meters.items()}
        case MachineInfoReply():
            fields["base_pct"] = reply.base_pct_hundredths / 100
    return fields
