"""The device layer's error tree (never imports the service): DeviceError at the root."""

from __future__ import annotations


class DeviceError(Exception):
    """Root of every error the device layer raises."""


class DeviceConfigError(DeviceError, ValueError):
    """A device setting that cannot be used (bad pin, unknown wheel order, bad URL)."""


class ProtocolError(DeviceError, ValueError):
    """Bytes or a line that do not form a valid message; the message says what was wrong."""


class FrameError(ProtocolError):
    """A frame that fails COBS decoding, its length check or its CRC."""


class LinkError(DeviceError, ConnectionError):
    """The link to a device is down or cannot carry the request."""


class HandshakeRefused(LinkError):
    """The device answered the handshake but is not the device (or protocol) configured."""


class CommandFailed(DeviceError):
    """The device received a command and refused or failed it (its status code is kept)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class CommandTimeout(LinkError, TimeoutError):
    """No result for a command before its timeout."""


class SourceError(DeviceError):
    """A camera or replay source that cannot deliver frames."""
