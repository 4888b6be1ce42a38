"""SAS errors: one root under the device layer's DeviceError, then framing, CRC, timing and link errors."""

from __future__ import annotations

from ..errors import DeviceError, LinkError, ProtocolError


class SasError(DeviceError):
    """Root of every SAS protocol or link error."""


class SasFrameError(SasError, ProtocolError):
    """Bytes that are not a well-formed SAS message (wrong length, address, command or BCD digit)."""


class SasCrcError(SasFrameError):
    """A message whose CRC-16/KERMIT does not match its contents."""


class SasTimeout(SasError, TimeoutError):
    """No reply started within the response limit (20 ms), or a gap inside one exceeded 5 ms."""


class SasLinkError(SasError, LinkError):
    """The port cannot be opened, configured, read or written."""


class SasNoReply(SasLinkError):
    """A poll still failed after its retries (implied NACKs): the machine is unreachable or garbling."""
