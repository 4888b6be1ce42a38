"""Device settings as strict msgspec structs: the `[devices]` section of a table config (docs/devices.md).

They live here, not in the service, so the device layer and its CLI tools can be configured
without importing firmware_host; `firmware_host.config.TableConfig.devices` uses them.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from msgspec import Meta, Struct

Pin = Union[Annotated[int, Meta(ge=0, le=63)], Annotated[str, Meta(min_length=1, max_length=32)]]
Port = Annotated[str, Meta(min_length=1, description="a pyserial URL: /dev/serial/by-id/..., loop://, a pty")]
Baud = Annotated[int, Meta(ge=300, le=4_000_000)]
Debounce = Annotated[float, Meta(ge=0, le=1)]
Name = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_]{0,31}$")]


class LinkTimingSettings(Struct, forbid_unknown_fields=True, frozen=True):
    """Firmware link timing shared by every serial board (docs/firmware-protocol.md §7)."""

    heartbeat_s: Annotated[float, Meta(ge=0.02, le=10)] = 0.2
    degraded_after_s: Annotated[float, Meta(ge=0.05, le=30)] = 0.5
    lost_after_s: Annotated[float, Meta(ge=0.1, le=60)] = 1.5
    handshake_timeout_s: Annotated[float, Meta(ge=0.1, le=60)] = 5.0


class WheelBoardSettings(Struct, tag_field="protocol", tag="sensor_board", forbid_unknown_fields=True, frozen=True):
    """A wheel sensor board on the firmware link."""

    port: Port
    order: Literal["french", "american_numbering"] = "french"
    min_revolutions: Annotated[int, Meta(ge=1, le=50)] = 3
    serial: str | None = None           # refuse any other board
    firmware: list[str] = []            # approved builds; empty: any
    baudrate: Baud = 115200


class CammeghSettings(Struct, tag_field="protocol", tag="cammegh", forbid_unknown_fields=True, frozen=True):
    """A commercial wheel speaking the Cammegh-style ASCII status protocol (9600 8N1, RTS/CTS)."""

    port: Port
    min_revolutions: Annotated[int, Meta(ge=1, le=50)] = 3
    baudrate: Baud = 9600
    rtscts: bool = True
    period_s: Annotated[float, Meta(gt=0, le=10)] = 0.5
    lost_after_s: Annotated[float, Meta(gt=0, le=120)] = 5.0


class ShoeSettings(Struct, forbid_unknown_fields=True, frozen=True):
    """A card shoe scanner board on the firmware link."""

    port: Port
    serial: str | None = None
    firmware: list[str] = []
    baudrate: Baud = 115200


class DomeSettings(Struct, forbid_unknown_fields=True, frozen=True):
    """The cussec dome's GPIO pins (BCM numbers or gpiozero pin names)."""

    lever: Pin
    clasp_left: Pin
    clasp_right: Pin
    dome: Pin                       # closed while the opaque dome sits on the glass dome
    bell: Pin                       # the dealer's bell button
    bets_open_light: Pin
    bell_ringer: Pin | None = None
    winning_areas: dict[Name, Pin] = {}
    lever_presses: Annotated[int, Meta(ge=1, le=10)] = 3  # 004 §VII.4
    bell_s: Annotated[float, Meta(gt=0, le=5)] = 0.5
    debounce_s: Debounce = 0.02
    pull_up: bool = True


class ConsoleSettings(Struct, forbid_unknown_fields=True, frozen=True):
    """The dealer console's GPIO pins."""

    no_more_bets: Pin
    confirm: Pin
    void: Pin
    new_shooter: Pin                # "new shoe" on card tables
    supervisor_key: Pin
    lamps: dict[Name, Pin] = {}
    buzzer: Pin | None = None
    debounce_s: Debounce = 0.03
    pull_up: bool = True


class V4L2CameraSettings(Struct, tag_field="kind", tag="v4l2", forbid_unknown_fields=True, frozen=True):
    """A V4L2 camera with exposure and white balance fixed (auto modes off), so frames stay comparable."""

    device: str = "/dev/video0"
    width: Annotated[int, Meta(ge=16, le=8192)] = 1280
    height: Annotated[int, Meta(ge=16, le=8192)] = 720
    fps: Annotated[float, Meta(gt=0, le=240)] = 30.0
    exposure: Annotated[float, Meta(gt=0)] = 156.0          # V4L2 exposure_time_absolute, 100 µs units
    white_balance_k: Annotated[int, Meta(ge=1000, le=12000)] = 4600
    gain: Annotated[float, Meta(ge=0)] | None = None
    fourcc: Annotated[str, Meta(pattern=r"^[A-Z0-9 ]{4}$")] = "MJPG"


class ReplayCameraSettings(Struct, tag_field="kind", tag="replay", forbid_unknown_fields=True, frozen=True):
    """Frames from a video file or a folder of images, in name order."""

    path: str
    fps: Annotated[float, Meta(ge=0, le=240)] = 0.0        # 0: as fast as they are read
    loop: bool = False


class SyntheticCameraSettings(Struct, tag_field="kind", tag="synthetic", forbid_unknown_fields=True, frozen=True):
    """Rendered frames (vision.synthetic when present)."""

    game: Literal["craps", "banca_francesa", "cussec", "paikao"] = "craps"
    width: Annotated[int, Meta(ge=16, le=8192)] = 640
    height: Annotated[int, Meta(ge=16, le=8192)] = 480
    seed: int = 0


WheelSettings = Union[WheelBoardSettings, CammeghSettings]
CameraSettings = Union[V4L2CameraSettings, ReplayCameraSettings, SyntheticCameraSettings]


class DevicesSection(Struct, forbid_unknown_fields=True, frozen=True):
    """`[devices]`: each device is optional; a table configures those it has."""

    wheel: WheelSettings | None = None
    shoe: ShoeSettings | None = None
    dome: DomeSettings | None = None
    console: ConsoleSettings | None = None
    camera: CameraSettings | None = None
    link: LinkTimingSettings = LinkTimingSettings()
