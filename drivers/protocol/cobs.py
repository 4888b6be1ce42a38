"""Consistent Overhead Byte Stuffing: removes every 0x00 from a frame so 0x00 can delimit frames."""

from __future__ import annotations

from ..errors import FrameError


def cobs_encode(data: bytes) -> bytes:
    """Encode `data` (any bytes) into a block with no 0x00 byte; overhead is 1 byte per 254."""
    out = bytearray()
    block = bytearray()
    full_block_last = False  # data ending right after a 254-byte block needs no final code
    for byte in data:
        full_block_last = False
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
            continue
        block.append(byte)
        if len(block) == 254:
            out.append(0xFF)
            out += block
            block.clear()
            full_block_last = True
    if not full_block_last:
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def cobs_decode(block: bytes) -> bytes:
    """Decode one COBS block (without its 0x00 delimiter); strict: every code must land inside the block."""
    if not block:
        raise FrameError("empty COBS block")
    out = bytearray()
    i, n = 0, len(block)
    while i < n:
        code = block[i]
        if code == 0:
            raise FrameError(f"0x00 inside a COBS block at offset {i}")
        end = i + code
        if end > n:
            raise FrameError(f"COBS code {code} at offset {i} runs past the end of the {n}-byte block")
        chunk = block[i + 1:end]
        if 0 in chunk:
            raise FrameError(f"0x00 inside a COBS block near offset {i}")
        out += chunk
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
