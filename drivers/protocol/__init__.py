"""Pure firmware-link codec shared by the host and the device simulators: framing, CRC, messages, no I/O."""

from .cobs import cobs_decode, cobs_encode
from .crc import crc16
from .frame import MAX_PAYLOAD, Frame, FrameDecoder, decode_frame, encode_frame
from .messages import (
    PROTOCOL_VERSION, CommandMsg, DeviceType, EventMsg, HeartbeatMsg, HelloMsg, IdentityMsg, Kind, ResultMsg,
    Status,
)
from .reliable import ReliableChannel

__all__ = [
    "MAX_PAYLOAD", "PROTOCOL_VERSION", "CommandMsg", "DeviceType", "EventMsg", "Frame", "FrameDecoder",
    "HeartbeatMsg", "HelloMsg", "IdentityMsg", "Kind", "ReliableChannel", "ResultMsg", "Status", "cobs_decode",
    "cobs_encode", "crc16", "decode_frame", "encode_frame",
]
