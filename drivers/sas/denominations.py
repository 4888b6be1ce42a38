"""SAS denomination codes (Table C-4): the value of one credit, in cents, as an exact Fraction."""

from __future__ import annotations

from fractions import Fraction

from .errors import SasFrameError

CENTS_PER_CREDIT: dict[int, Fraction] = {
    code: Fraction(cents) for code, cents in {
        0x01: 1, 0x02: 5, 0x03: 10, 0x04: 25, 0x05: 50, 0x06: 100, 0x07: 500, 0x08: 1000,
        0x09: 2000, 0x0A: 10000, 0x0B: 20, 0x0C: 200, 0x0D: 250, 0x0E: 2500, 0x0F: 5000,
        0x10: 20000, 0x11: 25000, 0x12: 50000, 0x13: 100000, 0x14: 200000, 0x15: 250000,
        0x16: 500000, 0x17: 2, 0x18: 3, 0x19: 15, 0x1A: 40,
    }.items()
}


def cents_per_credit(code: int) -> Fraction:
    """What one credit is worth in cents for denomination `code` (0x1F reply)."""
    try:
        return CENTS_PER_CREDIT[code]
    except KeyError:
        raise SasFrameError(f"denomination code 0x{code:02X} is not in Table C-4") from None


def denomination_code(cents: Fraction | int) -> int:
    for code, value in CENTS_PER_CREDIT.items():
        if value == cents:
            return code
    raise SasFrameError(f"no SAS denomination code for {cents} cents per credit")
