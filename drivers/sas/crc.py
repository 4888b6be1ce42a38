"""CRC-16/KERMIT as SAS uses it: poly 0x1021 reflected (0x8408), seed 0, no final XOR, sent LSB first."""

from __future__ import annotations

from .errors import SasCrcError, SasFrameError


def _table() -> tuple[int, ...]:
    rows = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        rows.append(crc)
    return tuple(rows)


_TABLE = _table()


def crc16_kermit(data: bytes, seed: int = 0) -> int:
    """The CRC of `data` (address byte through the last data byte); `seed` is 0 for messages."""
    crc = seed
    for byte in data:
        crc = (crc >> 8) ^ _TABLE[(crc ^ byte) & 0xFF]
    return crc


def with_crc(body: bytes) -> bytes:
    """`body` followed by its CRC, least significant byte first."""
    return body + crc16_kermit(body).to_bytes(2, "little")


def strip_crc(message: bytes) -> bytes:
    """Check the trailing CRC of a whole message and return the message without it."""
    if len(message) < 3:
        raise SasFrameError(f"message {message.hex(' ')} is too short to carry a CRC")
    body, sent = message[:-2], int.from_bytes(message[-2:], "little")
    computed = crc16_kermit(body)
    if computed != sent:
        raise SasCrcError(f"CRC mismatch in {message.hex(' ')}: sent {sent:04X}, computed {computed:04X}")
    return body
