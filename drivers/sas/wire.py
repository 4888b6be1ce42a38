"""How the SAS wakeup (9th) bit travels, with no I/O: an escape code on a pty or socket, parity marks on a UART.

A SAS byte is 11 bits on the line: start, 8 data, the wakeup bit, stop. The host sets the wakeup bit on
the first byte of every poll; a machine sets it only when it chirps. Two carriers:

* `EscapeCodec` (pty, socket, simulator links, which carry 8-bit bytes only): ESC 0x01 X is byte X with
  the wakeup bit set, ESC 0x00 is a literal ESC (0xFE), every other byte stands for itself.
* `ParmrkDecoder` (a real UART): the port sends with MARK parity for the first byte and SPACE for the
  rest (the parity bit *is* the 9th bit); it receives with SPACE parity, INPCK and PARMRK, so Linux
  delivers a byte whose 9th bit was set as FF 00 X and a literal FF as FF FF.
"""

from __future__ import annotations

from dataclasses import dataclass

ESC = 0xFE
_ESC_LITERAL, _ESC_WAKEUP = 0x00, 0x01


@dataclass(frozen=True, slots=True)
class WireByte:
    """One SAS byte as received: its 8 data bits and whether its wakeup bit was set."""
    value: int
    wakeup: bool = False


class EscapeCodec:
    """The escape carrier for links without a 9th bit. `decode` keeps state across reads."""

    def __init__(self) -> None:
        self._pending: list[int] = []
        self.errors = 0  # escape sequences that were neither literal nor wakeup (line noise)

    @staticmethod
    def encode(message: bytes, *, wakeup: bool) -> bytes:
        out = bytearray()
        for i, byte in enumerate(message):
            if i == 0 and wakeup:
                out += bytes([ESC, _ESC_WAKEUP, byte])
            elif byte == ESC:
                out += bytes([ESC, _ESC_LITERAL])
            else:
                out.append(byte)
        return bytes(out)

    def decode(self, data: bytes) -> list[WireByte]:
        out: list[WireByte] = []
        pending = self._pending
        for byte in data:
            if not pending:
                if byte == ESC:
                    pending.append(byte)
                else:
                    out.append(WireByte(byte))
            elif len(pending) == 1:
                if byte == _ESC_LITERAL:
                    out.append(WireByte(ESC))
                    pending.clear()
                elif byte == _ESC_WAKEUP:
                    pending.append(byte)
                else:
                    self.errors += 1
                    pending.clear()
                    if byte == ESC:
                        pending.append(byte)
                    else:
                        out.append(WireByte(byte))
            else:
                out.append(WireByte(byte, wakeup=True))
                pending.clear()
        return out


class ParmrkDecoder:
    """Decode what a UART in SPACE parity with PARMRK delivers: FF 00 X = X with the 9th bit set."""

    def __init__(self) -> None:
        self._pending: list[int] = []

    @staticmethod
    def encode(message: bytes, *, wakeup: bool) -> bytes:
        """On a UART the wakeup bit is set by switching parity, not by bytes: the data go as they are."""
        return bytes(message)

    def decode(self, data: bytes) -> list[WireByte]:
        out: list[WireByte] = []
        pending = self._pending
        for byte in data:
            if not pending:
                if byte == 0xFF:
                    pending.append(byte)
                else:
                    out.append(WireByte(byte))
            elif len(pending) == 1:
                if byte == 0xFF:
                    out.append(WireByte(0xFF))
                    pending.clear()
                else:  # 0x00: a parity-marked byte follows
                    pending.append(byte)
            else:
                out.append(WireByte(byte, wakeup=True))
                pending.clear()
        return out
