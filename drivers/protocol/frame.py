"""Frames: header (kind, seq, ack, length) + payload + CRC-16, COBS-stuffed between 0x00 delimiters.

Wire form of one frame (docs/firmware-protocol.md §2):

    00 | COBS( kind seq ack len payload[len] crc_lo crc_hi ) | 00

The leading 00 ends any line noise before the frame, so a frame that follows garbage still
decodes; empty blocks (00 00) are ignored. `FrameDecoder` turns an arbitrary byte stream into
frames and errors without ever raising.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import FrameError
from .cobs import cobs_decode, cobs_encode
from .crc import crc16

HEADER_SIZE = 4
CRC_SIZE = 2
MAX_PAYLOAD = 250
MIN_BODY = HEADER_SIZE + CRC_SIZE
MAX_BODY = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
# COBS adds one code byte per 254 data bytes, plus the first: a stuffed body never exceeds this.
MAX_BLOCK = MAX_BODY + MAX_BODY // 254 + 1


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame: message kind, sender's sequence number, cumulative ack, payload."""

    kind: int
    seq: int
    ack: int
    payload: bytes = b""

    def __post_init__(self) -> None:
        for name in ("kind", "seq", "ack"):
            value = getattr(self, name)
            if not 0 <= value <= 0xFF:
                raise FrameError(f"frame {name} {value} is not a byte (0..255)")
        if len(self.payload) > MAX_PAYLOAD:
            raise FrameError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")


def frame_body(frame: Frame) -> bytes:
    """Header + payload + CRC, before stuffing."""
    head = bytes((frame.kind, frame.seq, frame.ack, len(frame.payload))) + frame.payload
    return head + crc16(head).to_bytes(2, "little")


def encode_frame(frame: Frame) -> bytes:
    """The bytes to write for one frame, delimiters included."""
    return b"\x00" + cobs_encode(frame_body(frame)) + b"\x00"


def parse_body(body: bytes) -> Frame:
    """Check length and CRC of an unstuffed body and build its Frame."""
    if len(body) < MIN_BODY:
        raise FrameError(f"frame of {len(body)} bytes is shorter than the {MIN_BODY}-byte minimum")
    length = body[3]
    if len(body) != HEADER_SIZE + length + CRC_SIZE:
        raise FrameError(f"length byte says {length} payload bytes, frame carries {len(body) - MIN_BODY}")
    if length > MAX_PAYLOAD:
        raise FrameError(f"length byte {length} exceeds {MAX_PAYLOAD}")
    expected = crc16(body[:-2])
    got = int.from_bytes(body[-2:], "little")
    if got != expected:
        raise FrameError(f"CRC mismatch: frame says {got:#06x}, computed {expected:#06x}")
    return Frame(body[0], body[1], body[2], bytes(body[HEADER_SIZE:-2]))


def decode_frame(data: bytes) -> Frame:
    """Decode exactly one frame: a COBS block, optionally wrapped in 0x00 delimiters."""
    block = data.strip(b"\x00") if data[:1] == b"\x00" or data[-1:] == b"\x00" else data
    if b"\x00" in block:
        raise FrameError("more than one frame (0x00 inside the block)")
    if len(block) > MAX_BLOCK:
        raise FrameError(f"block of {len(block)} bytes exceeds the {MAX_BLOCK}-byte maximum")
    return parse_body(cobs_decode(block))


class FrameDecoder:
    """Stream decoder: feed bytes as they arrive, get frames and errors back; resyncs on the next 0x00."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._overrun = False
        self.frames = 0
        self.errors = 0

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Consume `data`; return every complete frame (or the FrameError for a bad one), in order."""
        out: list[Frame | FrameError] = []
        start = 0
        while True:
            zero = data.find(b"\x00", start)
            if zero < 0:
                self._append(data[start:], out)
                return out
            self._append(data[start:zero], out)
            start = zero + 1
            if self._overrun:
                self._overrun = False
                self._buffer.clear()
                continue
            if not self._buffer:
                continue  # empty block between delimiters: idle fill, not an error
            block = bytes(self._buffer)
            self._buffer.clear()
            try:
                out.append(parse_body(cobs_decode(block)))
                self.frames += 1
            except FrameError as exc:
                self.errors += 1
                out.append(exc)

    def _append(self, chunk: bytes, out: list[Frame | FrameError]) -> None:
        if self._overrun or not chunk:
            return
        self._buffer += chunk
        if len(self._buffer) > MAX_BLOCK:
            self._buffer.clear()
            self._overrun = True
            self.errors += 1
            out.append(FrameError(f"no delimiter within {MAX_BLOCK} bytes: discarding until the next 0x00"))

    def reset(self) -> None:
        """Forget a partial frame (after the port was reopened)."""
        self._buffer.clear()
        self._overrun = False
