"""The host side of the firmware link, in three layers like Klipper's msgproto -> serialhdl -> mcu.

1. codec (pure, no I/O): `drivers.protocol` — framing, CRC-16, messages, the reliable channel. It
   lives under drivers/ because the device simulators in drivers/sim/ speak the same bytes, and
   drivers must never import firmware_host. `firmware_host.link.codec` re-exports it.
2. transport: `FrameTransport` owns the serial port (by URL, reopened with backoff) and turns bytes
   into frames.
3. session: `LinkSession` — handshake, sequence numbers, acks, retransmission, heartbeats, health,
   actuator deadlines. Drivers receive a session as a `drivers.board_link.BoardLink`.
"""

from .handshake import ExpectedDevice, LinkTiming
from .session import LinkSession
from .transport import FrameTransport

__all__ = ["ExpectedDevice", "FrameTransport", "LinkSession", "LinkTiming"]
