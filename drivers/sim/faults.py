"""Fault switches a test (or `tablehw sim`) flips while a simulator runs, as in OctoPrint's virtual printer."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class Faults:
    """Counters are "the next N": each use decrements. Durations are seconds from the moment set."""

    drop_acks: int = 0       # do not send the next N acks (the host retransmits; must not deliver twice)
    ignore_acks: int = 0     # ignore the ack in the next N host frames (we retransmit; host must dedupe)
    corrupt_crc: int = 0     # flip a CRC bit in the next N frames we send
    repeat: int = 0          # send each of the next N frames (or lines) twice
    garbage: bytes = b""     # write these bytes once, before the next frame (or line)
    delay: float = 0.0       # wait this long before every write
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self, name: str) -> bool:
        """True (and one fewer left) if the counter `name` is above zero."""
        with self._lock:
            left = getattr(self, name)
            if left <= 0:
                return False
            setattr(self, name, left - 1)
            return True

    def take_garbage(self) -> bytes:
        with self._lock:
            data, self.garbage = self.garbage, b""
            return data
