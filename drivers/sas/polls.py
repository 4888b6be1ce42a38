"""Host -> machine messages: general polls and long polls (types R, S, M, G), built and parsed as bytes.

A message's first byte is sent with the wakeup (9th) bit set; `Poll.message()` gives the bytes and
the link marks the first one. Type R polls (address + command) carry no CRC; types S, M and G end
with a CRC-16/KERMIT of everything before it. Address 0 is the global broadcast (type G): machines
never answer it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from .bcd import decode_bcd, encode_bcd
from .crc import strip_crc, with_crc
from .errors import SasFrameError

GENERAL_POLL_BIT = 0x80
BROADCAST = 0

# Type R: address + command, no data, no CRC.
READ_COMMANDS = frozenset({0x0F, *range(0x10, 0x1D), 0x1F, 0x54, 0x55, 0x85})
# Type S with a fixed total length (address .. CRC).
FIXED_LENGTH_COMMANDS = {0x01: 4, 0x02: 4, 0x80: 11, 0x7F: 11}
# Variable length: the third byte counts the bytes that follow it, CRC excluded.
LENGTH_PREFIXED_COMMANDS = frozenset({0x2F, 0x6F, 0xAF, 0x86, 0x71})
EXTENDED_METER_COMMANDS = (0x6F, 0xAF)

MAX_SELECTED_METERS = 10  # 0x2F
MAX_EXTENDED_METERS = 12  # 0x6F / 0xAF
MAX_PROGRESSIVE_LEVELS = 32  # 0x86


def check_address(address: int, *, broadcast: bool = False) -> int:
    low = 0 if broadcast else 1
    if not isinstance(address, int) or not low <= address <= 127:
        raise SasFrameError(f"SAS address {address!r} is outside {low}..127")
    return address


@dataclass(frozen=True, slots=True)
class Poll:
    """One host message. `command` is None for a general poll; `data` sits between command and CRC."""

    address: int
    command: int | None
    data: bytes = b""
    crc: bool = False

    @property
    def is_general(self) -> bool:
        return self.command is None

    @property
    def is_broadcast(self) -> bool:
        return self.address == BROADCAST and not self.is_general

    def message(self) -> bytes:
        """The bytes on the wire; the first one travels with the wakeup bit set."""
        if self.command is None:
            return bytes([GENERAL_POLL_BIT | self.address])
        body = bytes([self.address, self.command]) + self.data
        return with_crc(body) if self.crc else body

    def describe(self) -> str:
        if self.command is None:
            return f"general poll to {self.address}"
        target = "broadcast" if self.is_broadcast else f"address {self.address}"
        return f"long poll 0x{self.command:02X} to {target}"


def general_poll(address: int) -> Poll:
    return Poll(check_address(address), None)


def read_poll(address: int, command: int) -> Poll:
    """A type R long poll (0x0F, 0x10-0x1C, 0x1F, 0x54, 0x55, 0x85)."""
    if command not in READ_COMMANDS:
        raise SasFrameError(f"0x{command:02X} is not a type R long poll this host sends")
    return Poll(check_address(address), command)


def long_poll(address: int, command: int, data: bytes = b"", *, length_byte: bool = False) -> Poll:
    """A type S/M/G long poll with a CRC; `length_byte` puts len(data) in front of the data."""
    if length_byte:
        if len(data) > 255:
            raise SasFrameError(f"long poll 0x{command:02X}: {len(data)} data bytes do not fit a length byte")
        data = bytes([len(data)]) + data
    return Poll(check_address(address, broadcast=True), command, bytes(data), crc=True)


def shutdown(address: int) -> Poll:
    """Long poll 0x01: lock out play (the game in progress finishes first)."""
    return long_poll(check_address(address), 0x01)


def startup(address: int) -> Poll:
    """Long poll 0x02: enable play."""
    return long_poll(check_address(address), 0x02)


def _game(game: int) -> bytes:
    if not 0 <= game <= 9999:
        raise SasFrameError(f"game number {game} is outside 0000..9999")
    return encode_bcd(game, 2)


def selected_meters(address: int, game: int, codes: Iterable[int]) -> Poll:
    """Long poll 0x2F: up to ten meters of game `game` (0 = the whole machine), one-byte codes."""
    codes = list(codes)
    if not 1 <= len(codes) <= MAX_SELECTED_METERS or any(not 0 <= c <= 0xFF for c in codes):
        raise SasFrameError(f"0x2F takes 1..{MAX_SELECTED_METERS} one-byte meter codes, got {codes}")
    return long_poll(check_address(address), 0x2F, _game(game) + bytes(codes), length_byte=True)


def extended_meters(address: int, game: int, codes: Iterable[int], *, alternate: bool = False) -> Poll:
    """Long poll 0x6F, or 0xAF when `alternate`: the host alternates them so that two consecutive
    meter requests are never mistaken for a repeat (an implied NACK)."""
    codes = list(codes)
    if not 1 <= len(codes) <= MAX_EXTENDED_METERS or any(not 0 <= c <= 0xFFFF for c in codes):
        raise SasFrameError(f"0x6F/0xAF take 1..{MAX_EXTENDED_METERS} two-byte meter codes, got {codes}")
    data = _game(game) + b"".join(c.to_bytes(2, "little") for c in codes)
    return long_poll(check_address(address), 0xAF if alternate else 0x6F, data, length_byte=True)


def _amount(cents: int) -> bytes:
    return encode_bcd(cents, 5)


def progressive_single(group: int, level: int, amount_cents: int, *, address: int = BROADCAST) -> Poll:
    """Long poll 0x80: one progressive level's amount (cents) to a group, broadcast by default."""
    if not 1 <= group <= 0xFF or not 1 <= level <= MAX_PROGRESSIVE_LEVELS:
        raise SasFrameError(f"progressive group {group} / level {level} out of range")
    return long_poll(address, 0x80, bytes([group, level]) + _amount(amount_cents))


def progressive_multi(group: int, levels: Mapping[int, int], *, address: int = BROADCAST) -> Poll:
    """Long poll 0x86: up to 32 levels (level -> cents) of one group in one broadcast."""
    if not 1 <= group <= 0xFF or not 1 <= len(levels) <= MAX_PROGRESSIVE_LEVELS:
        raise SasFrameError(f"0x86 takes a group 1..255 and 1..32 levels, got group {group}, {len(levels)} levels")
    data = bytes([group]) + b"".join(bytes([lv]) + _amount(c) for lv, c in sorted(levels.items()))
    return long_poll(address, 0x86, data, length_byte=True)


def set_date_time(when: datetime, *, address: int = BROADCAST) -> Poll:
    """Long poll 0x7F: set the machines' clocks (MMDDYYYY HHMMSS, BCD)."""
    return long_poll(address, 0x7F, bytes.fromhex(when.strftime("%m%d%Y%H%M%S")))


def request_length(prefix: bytes) -> int | None:
    """Total length of the host message starting with `prefix`, or None while it cannot be known
    (an unknown command: the machine ignores it, SAS 4.4)."""
    if not prefix:
        return None
    if prefix[0] & GENERAL_POLL_BIT:
        return 1
    if len(prefix) < 2:
        return None
    command = prefix[1]
    if command in READ_COMMANDS:
        return 2
    if command in FIXED_LENGTH_COMMANDS:
        return FIXED_LENGTH_COMMANDS[command]
    if command in LENGTH_PREFIXED_COMMANDS:
        return 3 + prefix[2] + 2 if len(prefix) >= 3 else None
    return None


def parse_request(message: bytes) -> Poll:
    """The Poll a machine received (its CRC checked when the poll carries one)."""
    expected = request_length(message)
    if expected is None or len(message) != expected:
        raise SasFrameError(f"{message.hex(' ')} is not a complete SAS poll this machine knows")
    if message[0] & GENERAL_POLL_BIT:
        return Poll(message[0] & 0x7F, None)
    if message[1] in READ_COMMANDS:
        return Poll(message[0], message[1])
    body = strip_crc(message)
    return Poll(body[0], body[1], body[2:], crc=True)


def parse_meter_request(poll: Poll) -> tuple[int, list[int]]:
    """(game, meter codes) of a 0x2F or 0x6F/0xAF request."""
    data = poll.data
    if not data or data[0] != len(data) - 1 or len(data) < 4:
        raise SasFrameError(f"{poll.describe()}: bad length byte in {data.hex(' ')}")
    game, codes = decode_bcd(data[1:3]), data[3:]
    if poll.command == 0x2F:
        return game, list(codes)
    if len(codes) % 2:
        raise SasFrameError(f"{poll.describe()}: meter codes are two bytes each")
    return game, [int.from_bytes(codes[i:i + 2], "little") for i in range(0, len(codes), 2)]


def parse_progressive(poll: Poll) -> tuple[int, dict[int, int]]:
    """(group, {level: cents}) of a 0x80 or 0x86 broadcast."""
    data = poll.data
    if poll.command == 0x80:
        if len(data) != 7:
            raise SasFrameError(f"0x80 carries 7 data bytes, got {len(data)}")
        return data[0], {data[1]: decode_bcd(data[2:7])}
    if not data or data[0] != len(data) - 1 or (len(data) - 2) % 6:
        raise SasFrameError(f"0x86: bad length in {data.hex(' ')}")
    levels = {data[i]: decode_bcd(data[i + 1:i + 6]) for i in range(2, len(data), 6)}
    return data[1], levels
