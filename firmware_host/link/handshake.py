"""What the configured board must answer in the handshake, and the link's timing."""

from __future__ import annotations

from dataclasses import dataclass

from drivers.protocol import PROTOCOL_VERSION, DeviceType, IdentityMsg


@dataclass(frozen=True)
class ExpectedDevice:
    """What the configured board must answer in the handshake; anything else is refused."""

    device_type: DeviceType
    serial: str | None = None            # None: any serial number
    firmware: tuple[str, ...] = ()       # accepted firmware builds; empty: any
    protocol_version: int = PROTOCOL_VERSION

    def refusal(self, identity: IdentityMsg) -> str | None:
        """Why `identity` is refused, or None when it is the configured device."""
        if identity.version != self.protocol_version:
            return f"protocol version {identity.version}, this host speaks {self.protocol_version}"
        if identity.device_type != self.device_type:
            try:
                found = DeviceType(identity.device_type).name
            except ValueError:
                found = f"unknown type {identity.device_type:#04x}"
            return f"device is a {found}, configured as a {self.device_type.name}"
        if self.serial is not None and identity.serial != self.serial:
            return f"serial number {identity.serial!r}, configured {self.serial!r}"
        if self.firmware and identity.firmware not in self.firmware:
            return f"firmware build {identity.firmware!r} is not one of the approved {list(self.firmware)}"
        return None


@dataclass(frozen=True)
class LinkTiming:
    heartbeat_s: float = 0.2          # host heartbeat period; the board's is the same
    degraded_after_s: float = 0.5     # silence before `degraded`
    lost_after_s: float = 1.5         # silence before `lost`; sent to the board as its link timeout
    hello_retry_s: float = 0.25       # first HELLO retry; doubles up to hello_retry_max_s
    hello_retry_max_s: float = 2.0
    max_attempts: int = 8             # sends of one frame without an ack before `lost`
    command_timeout_s: float = 1.0
