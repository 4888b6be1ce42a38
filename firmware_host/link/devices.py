"""The table's devices built from `[devices]`: sessions, drivers, GPIO and camera, started and checked together.

`DeviceSet(section).start(emit)` builds every configured device and sends all their typed events
(health included) to `emit` — the service queue. `handshake(timeout)` waits for each device to be
usable and returns its health; `stop()` releases everything (outputs to their safe state).
A device that cannot be set up is reported `lost` with the reason, never silently skipped.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable

import cv2

from drivers.cammegh_reader import CammeghReader
from drivers.camera import FrameSource, V4L2Camera, open_source
from drivers.console import DealerConsole
from drivers.dome import CussecDome
from drivers.errors import DeviceError
from drivers.events import DeviceEvent, DeviceHealth, DeviceIdentified, Health, now_stamp
from drivers.protocol import DeviceType
from drivers.settings import CammeghSettings, DevicesSection, LinkTimingSettings
from drivers.shoe import ShoeBoard
from drivers.wheel import WheelBoard

from .handshake import ExpectedDevice, LinkTiming
from .session import LinkSession, open_session

log = logging.getLogger(__name__)


@dataclass
class DeviceStatus:
    kind: str
    state: Health | None = None
    reason: str = "not started"
    identity: DeviceIdentified | None = None


def link_timing(settings: LinkTimingSettings) -> LinkTiming:
    return LinkTiming(heartbeat_s=settings.heartbeat_s, degraded_after_s=settings.degraded_after_s,
                      lost_after_s=settings.lost_after_s)


class DeviceSet:
    """Every configured device; hardware factories are injected (gpiozero pin factory, camera capture)."""

    def __init__(self, section: DevicesSection, *, pin_factory=None,
                 capture_factory: Callable = cv2.VideoCapture) -> None:
        self.section = section
        self.pin_factory = pin_factory
        self.capture_factory = capture_factory
        self.status: dict[str, DeviceStatus] = {}
        self.sessions: dict[str, LinkSession] = {}
        self.drivers: dict[str, object] = {}
        self.camera: FrameSource | None = None
        self._emit: Callable[[DeviceEvent], None] = lambda event: None
        self._lock = threading.Lock()

    def _sink(self, event: DeviceEvent) -> None:
        with self._lock:
            status = self.status.get(event.device)
            if status is not None and isinstance(event, DeviceHealth):
                status.state, status.reason = event.state, event.reason
            elif status is not None and isinstance(event, DeviceIdentified):
                status.identity = event
        self._emit(event)

    def _set(self, name: str, state: Health, reason: str) -> None:
        mono, utc = now_stamp()
        self._sink(DeviceHealth(device=name, mono=mono, utc=utc, state=state, reason=reason))

    def start(self, emit: Callable[[DeviceEvent], None]) -> None:
        self._emit = emit
        s = self.section
        timing = link_timing(s.link)
        builders = []
        if s.wheel is not None:
            builders.append(("wheel", s.wheel.__struct_config__.tag, lambda: self._wheel(timing)))
        if s.shoe is not None:
            builders.append(("shoe", "shoe_scanner", lambda: self._shoe(timing)))
        if s.dome is not None:
            builders.append(("dome", "gpio", lambda: CussecDome(s.dome, emit=self._sink, pin_factory=self.pin_factory)))
        if s.console is not None:
            builders.append(("console", "gpio", lambda: DealerConsole(s.console, emit=self._sink,
                                                                      pin_factory=self.pin_factory)))
        if s.camera is not None:
            builders.append(("camera", s.camera.__struct_config__.tag, self._camera))
        for name, kind, build in builders:
            self.status[name] = DeviceStatus(kind)
            try:
                self.drivers[name] = build()
            except DeviceError as exc:
                log.error("%s: cannot start: %s", name, exc)
                self._set(name, Health.LOST, f"cannot start: {exc}")
                continue
            if kind in ("gpio", "v4l2", "replay", "synthetic"):
                self._set(name, Health.CONNECTED, "ready")

    def _wheel(self, timing: LinkTiming):
        w = self.section.wheel
        if isinstance(w, CammeghSettings):
            reader = CammeghReader(w.port, emit=self._sink, name="wheel", min_revolutions=w.min_revolutions,
                                   baudrate=w.baudrate, rtscts=w.rtscts, period_s=w.period_s,
                                   lost_after_s=w.lost_after_s)
            reader.start()
            return reader
        session = open_session(w.port, ExpectedDevice(DeviceType.WHEEL_SENSOR, w.serial, tuple(w.firmware)),
                               name="wheel", timing=timing, baudrate=w.baudrate)
        driver = WheelBoard(session, emit=self._sink, name="wheel", order=w.order, min_revolutions=w.min_revolutions)
        self.sessions["wheel"] = session
        session.start()
        return driver

    def _shoe(self, timing: LinkTiming):
        sh = self.section.shoe
        session = open_session(sh.port, ExpectedDevice(DeviceType.SHOE_SCANNER, sh.serial, tuple(sh.firmware)),
                               name="shoe", timing=timing, baudrate=sh.baudrate)
        driver = ShoeBoard(session, emit=self._sink, name="shoe")
        self.sessions["shoe"] = session
        session.start()
        return driver

    def _camera(self):
        source = open_source(self.section.camera, capture_factory=self.capture_factory)
        if isinstance(source, V4L2Camera):
            try:
                source.read()  # a camera that opens but gives no frame is not ready
            except DeviceError:
                source.close()
                raise
        self.camera = source
        return source

    def handshake(self, timeout: float) -> dict[str, str]:
        """Wait until every device is connected (or `timeout`); {name: "connected" | "degraded" | "lost"}."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                if all(st.state is Health.CONNECTED or (st.state is Health.LOST and st.reason.startswith(
                        ("cannot start", "refused"))) for st in self.status.values()):
                    break
            time.sleep(0.01)
        with self._lock:
            for st in self.status.values():
                if st.state is None:
                    st.state, st.reason = Health.LOST, f"no handshake within {timeout:g} s"
            return {name: str(st.state) for name, st in self.status.items()}

    def stop(self) -> None:
        for name, driver in self.drivers.items():
            try:
                if name in self.sessions:
                    self.sessions[name].stop()
                elif hasattr(driver, "stop"):
                    driver.stop()
                elif hasattr(driver, "close"):
                    driver.close()
            except Exception:  # stopping must reach every device even if one misbehaves
                log.exception("%s: error while stopping", name)
        self.drivers.clear()
        self.sessions.clear()
