"""Packed BCD, most significant byte first, as SAS sends meters and amounts."""

from __future__ import annotations

from .errors import SasFrameError


def bcd_modulus(size: int) -> int:
    """How many distinct values a `size`-byte BCD field holds: meters roll over at this value."""
    return 10 ** (2 * size)


def encode_bcd(value: int, size: int) -> bytes:
    """`value` as `size` bytes of packed BCD; a value that does not fit is an error, never truncated."""
    if not isinstance(value, int) or value < 0 or value >= bcd_modulus(size):
        raise SasFrameError(f"{value!r} does not fit in {size} BCD bytes")
    return bytes.fromhex(f"{value:0{2 * size}d}")


def decode_bcd(data: bytes) -> int:
    """The number in packed BCD `data`; a nibble above 9 is an error naming the field."""
    digits = data.hex()
    if not digits:
        return 0
    if not digits.isdigit():
        raise SasFrameError(f"{data.hex(' ')} is not packed BCD (a nibble is above 9)")
    return int(digits)
