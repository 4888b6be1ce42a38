"""Layer 1 of the link, the pure codec: re-exported from drivers.protocol, which the simulators share."""

from drivers.protocol import (
    MAX_PAYLOAD, PROTOCOL_VERSION, CommandMsg, DeviceType, EventMsg, Frame, FrameDecoder, HeartbeatMsg, HelloMsg,
    IdentityMsg, Kind, ReliableChannel, ResultMsg, Status, cobs_decode, cobs_encode, crc16, decode_frame, encode_frame,
)

__all__ = [
    "MAX_PAYLOAD", "PROTOCOL_VERSION", "CommandMsg", "DeviceType", "EventMsg", "Frame", "FrameDecoder",
    "HeartbeatMsg", "HelloMsg", "IdentityMsg", "Kind", "ReliableChannel", "ResultMsg", "Status", "cobs_decode",
    "cobs_encode", "crc16", "decode_frame", "encode_frame",
]
