"""Frame sources: a V4L2 camera with fixed exposure and white balance, file/folder replay, synthetic frames.

Every source gives `CameraFrame`s (image, index, monotonic and UTC time of capture). The camera's
automatic exposure and white balance are switched off and the configured values are set and
read back: a camera that keeps them automatic is refused, because a frame whose brightness
drifts reads differently from the frames the dice reader was checked on.
"""

from __future__ import annotations

import importlib
import logging
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable, Protocol

import cv2
import numpy as np

from .errors import SourceError
from .events import now_stamp
from .settings import ReplayCameraSettings, SyntheticCameraSettings, V4L2CameraSettings

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff"}
# V4L2 through OpenCV: CAP_PROP_AUTO_EXPOSURE takes the V4L2 menu value, 1 = manual, 3 = aperture priority.
V4L2_MANUAL_EXPOSURE = 1


@dataclass(frozen=True, slots=True)
class CameraFrame:
    image: np.ndarray   # BGR, uint8
    index: int          # 0, 1, 2 ... from this source
    mono: float
    utc: datetime
    source: str


class FrameSource(Protocol):
    """What the vision side reads frames from."""

    def read(self) -> CameraFrame:
        """The next frame; SourceError when the source has none (end of a replay, camera gone)."""

    def close(self) -> None: ...


REOPEN_FIRST_S = 1.0  # a camera that stopped giving frames is opened again after this, then after twice as long ...
REOPEN_MAX_S = 30.0  # ... up to this (as serial links are reopened with backoff: docs/devices.md)
# The backoff starts afresh at REOPEN_FIRST_S only after the camera gave frames this long: one that drops out every
# few seconds is opened again after 1, 2, 4 ... 30 s, not every second (each loss is a `lost` and `connected` told).
STEADY_S = 10.0
# A live sensor's frames always differ (its noise). A capture that hands back the same image again is frozen (a
# stalled USB stream, a bridge repeating its last buffer): such frames are skipped, and after this many in a row
# the camera is closed and opened again, as one that stopped. A table read without motion (cussec) would otherwise
# read the last round's dice from the frozen frame.
FROZEN_FRAMES = 30
SAMPLE_STEP = 251  # frames are compared on every this-many-th byte first (a prime: no stride along a row)


class V4L2Camera:
    """OpenCV VideoCapture on the V4L2 backend, with exposure and white balance fixed from config.

    A camera that stops giving frames (unplugged, a USB reset) is closed, and opened again by a later `read` with its
    settings applied and checked again, after REOPEN_FIRST_S, doubling up to REOPEN_MAX_S while it cannot be or while
    it stops again within STEADY_S of giving frames; until then `read` raises SourceError saying so. `clock`
    (monotonic seconds) is injected for tests."""

    def __init__(self, settings: V4L2CameraSettings, *, capture_factory: Callable = cv2.VideoCapture,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.name = settings.device
        self.capture_factory, self.clock = capture_factory, clock
        self.capture = None
        self.report = self._open()
        self.index = 0
        self.reopenings = 0  # times the camera was opened again after it stopped giving frames
        self._retry_s = REOPEN_FIRST_S  # the wait before the next try to open it
        self._retry_at = 0.0
        self._first_frame_at: float | None = None  # since this opening: the clock at its first frame
        self._last_image: np.ndarray | None = None  # the last image given, to tell a frozen capture

    def _open(self) -> dict[str, tuple[float, float]]:
        """Open the device and fix its settings (`_apply_settings`); SourceError when it cannot be (the capture kept
        in `self.capture` for the caller to release)."""
        self.capture = self.capture_factory(self.settings.device, cv2.CAP_V4L2)
        if not self.capture.isOpened():
            raise SourceError(f"camera {self.name}: cannot open (V4L2)")
        return self._apply_settings()

    def _apply_settings(self) -> dict[str, tuple[float, float]]:
        """Set every property, read it back; refuse automatic modes; return {name: (asked, got)}."""
        s = self.settings
        wanted = [
            ("fourcc", cv2.CAP_PROP_FOURCC, float(cv2.VideoWriter_fourcc(*s.fourcc))),
            ("width", cv2.CAP_PROP_FRAME_WIDTH, float(s.width)),
            ("height", cv2.CAP_PROP_FRAME_HEIGHT, float(s.height)),
            ("fps", cv2.CAP_PROP_FPS, float(s.fps)),
            ("auto_exposure", cv2.CAP_PROP_AUTO_EXPOSURE, float(V4L2_MANUAL_EXPOSURE)),
            ("exposure", cv2.CAP_PROP_EXPOSURE, float(s.exposure)),
            ("auto_white_balance", cv2.CAP_PROP_AUTO_WB, 0.0),
            ("white_balance_k", cv2.CAP_PROP_WB_TEMPERATURE, float(s.white_balance_k)),
        ]
        if s.gain is not None:
            wanted.append(("gain", cv2.CAP_PROP_GAIN, float(s.gain)))
        report = {}
        for name, prop, value in wanted:
            self.capture.set(prop, value)
            report[name] = (value, float(self.capture.get(prop)))
        if report["auto_exposure"][1] != V4L2_MANUAL_EXPOSURE or report["auto_white_balance"][1] != 0:
            self.capture.release()
            raise SourceError(f"camera {s.device}: automatic exposure or white balance stays on "
                              f"(auto_exposure={report['auto_exposure'][1]:g}, "
                              f"auto_white_balance={report['auto_white_balance'][1]:g})")
        drift = {k: v for k, v in report.items() if abs(v[0] - v[1]) > max(1.0, 0.02 * abs(v[0]))}
        if drift:
            log.warning("camera %s: settings not taken as asked (asked, got): %s", s.device, drift)
        return report

    def read(self) -> CameraFrame:
        if self.capture is None:
            self._reopen()
        for _ in range(FROZEN_FRAMES):
            ok, image = self.capture.read()
            if not ok or image is None:
                self._stopped("no frame (unplugged or stalled?)")
            if not same_image(image, self._last_image):
                break
        else:
            self._stopped(f"the same frame {FROZEN_FRAMES} times running (frozen, or the lens covered)")
        mono, utc = now_stamp()
        self._last_image = image
        if self._first_frame_at is None:
            self._first_frame_at = self.clock()
        frame = CameraFrame(image, self.index, mono, utc, self.name)
        self.index += 1
        return frame

    def _stopped(self, why: str) -> None:
        """The camera stopped giving frames: closed, opened again after the backoff's wait; raises SourceError."""
        if self._first_frame_at is not None and self.clock() - self._first_frame_at >= STEADY_S:
            self._retry_s = REOPEN_FIRST_S  # it was steady: the backoff starts afresh
        wait = self._retry_s
        self._retry_s = min(2 * self._retry_s, REOPEN_MAX_S)
        self._closed_for(wait)
        raise SourceError(f"camera {self.name}: {why}; opening it again in {wait:g} s")

    def _closed_for(self, seconds: float) -> None:
        """Release the capture; the next `read` after `seconds` opens the camera again."""
        if self.capture is not None:
            self.capture.release()
        self.capture = None
        self._first_frame_at = None
        self._retry_at = self.clock() + seconds

    def _reopen(self) -> None:
        wait = self._retry_at - self.clock()
        if wait > 0:
            raise SourceError(f"camera {self.name}: no frame; opening it again in {wait:.1f} s")
        try:
            self.report = self._open()
        except SourceError as exc:
            wait = self._retry_s
            self._retry_s = min(2 * self._retry_s, REOPEN_MAX_S)
            self._closed_for(wait)
            raise SourceError(f"{exc}; trying again in {wait:g} s") from None
        self.reopenings += 1
        log.warning("camera %s: opened again after it stopped giving frames (%d times so far)", self.name,
                    self.reopenings)

    def close(self) -> None:
        if self.capture is not None:
            self.capture.release()


def same_image(image: np.ndarray, last: np.ndarray | None) -> bool:
    """Whether a frame is the last one again, byte for byte (a sample of its bytes first: tens of microseconds for
    a 1280x720 frame that differs, as a live sensor's always does)."""
    if last is None or image.shape != last.shape or image.dtype != last.dtype:
        return False
    flat, last_flat = image.reshape(-1), last.reshape(-1)
    return bool(np.array_equal(flat[::SAMPLE_STEP], last_flat[::SAMPLE_STEP]) and np.array_equal(image, last))


class ReplaySource:
    """Frames from a video file, one image, or a folder of images in name order; paced at `fps` if set."""

    def __init__(self, settings: ReplayCameraSettings) -> None:
        self.settings = settings
        self.path = Path(settings.path)
        self.name = str(self.path)
        self.index = 0
        self._next_at = 0.0
        self._capture = None
        if self.path.is_dir():
            self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self.files:
                raise SourceError(f"replay folder {self.path}: no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        elif self.path.suffix.lower() in IMAGE_SUFFIXES and self.path.is_file():
            self.files = [self.path]
        elif self.path.is_file():
            self.files = []
            self._open_video()
        else:
            raise SourceError(f"replay source {self.path}: no such file or folder")

    def _open_video(self) -> None:
        self._capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            raise SourceError(f"replay video {self.path}: OpenCV cannot open it")

    def _next_image(self) -> np.ndarray:
        if self._capture is not None:
            ok, image = self._capture.read()
            if not ok and self.settings.loop and self.index:
                self._capture.release()
                self._open_video()
                ok, image = self._capture.read()
            if not ok:
                raise SourceError(f"replay video {self.path}: end after {self.index} frames")
            return image
        position = self.index % len(self.files) if self.settings.loop else self.index
        if position >= len(self.files):
            raise SourceError(f"replay folder {self.path}: end after {self.index} frames")
        image = cv2.imread(str(self.files[position]), cv2.IMREAD_COLOR)
        if image is None:
            raise SourceError(f"replay image {self.files[position]}: not an image OpenCV can read")
        return image

    def read(self) -> CameraFrame:
        if self.settings.fps:
            wait = self._next_at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._next_at = max(self._next_at, time.monotonic()) + 1.0 / self.settings.fps
        image = self._next_image()
        mono, utc = now_stamp()
        frame = CameraFrame(image, self.index, mono, utc, self.name)
        self.index += 1
        return frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()


class FrameRenderer(Protocol):
    """What a synthetic source needs: the vision issue's renderer fills it (see VisionRenderer)."""

    def render_frame(self, index: int) -> np.ndarray:
        """A BGR frame for frame number `index` (deterministic for a given seed)."""


class VisionRenderer:
    """Adapter to vision.synthetic (imported lazily): a fixed table rig, a fresh resting throw per frame."""

    def __init__(self, game: str = "craps", seed: int = 0) -> None:
        try:
            synthetic = importlib.import_module("vision.synthetic")
            scenes = importlib.import_module("vision.synthetic_scenes")
        except ImportError as exc:
            raise SourceError(f"synthetic camera: vision.synthetic is not available ({exc}); "
                              "pass a FrameRenderer") from None
        self._render, self._scenes = synthetic.render, scenes
        self._rng = np.random.default_rng(seed)
        try:
            self._rig = scenes.random_rig(game, self._rng)
        except (AttributeError, KeyError, ValueError) as exc:
            raise SourceError(f"synthetic camera: vision renderer cannot set up {game!r}: {exc}") from None

    def render_frame(self, index: int) -> np.ndarray:
        try:
            dice = self._scenes.random_scene(self._rig, "valid", self._rng)
            image, _ = self._render(self._rig.scene(dice, self._rng), self._rng)
        except (AttributeError, TypeError, ValueError) as exc:
            raise SourceError(f"synthetic camera: vision renderer failed: {exc}") from None
        return image


class SyntheticSource:
    """Rendered frames at the configured size, from `renderer` or else vision.synthetic."""

    def __init__(self, settings: SyntheticCameraSettings, *, renderer: FrameRenderer | None = None) -> None:
        self.settings = settings
        self.renderer = renderer if renderer is not None else VisionRenderer(settings.game, settings.seed)
        self.index = 0
        self.name = "synthetic"

    def read(self) -> CameraFrame:
        image = self.renderer.render_frame(self.index)
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise SourceError(f"synthetic camera: renderer gave {None if image is None else image.shape}, not BGR")
        size = (self.settings.width, self.settings.height)
        if (image.shape[1], image.shape[0]) != size:
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        mono, utc = now_stamp()
        frame = CameraFrame(image, self.index, mono, utc, self.name)
        self.index += 1
        return frame

    def close(self) -> None:
        pass


def open_source(settings, *, capture_factory: Callable = cv2.VideoCapture,
                renderer: FrameRenderer | None = None) -> FrameSource:
    """The frame source a camera setting describes."""
    if isinstance(settings, V4L2CameraSettings):
        return V4L2Camera(settings, capture_factory=capture_factory)
    if isinstance(settings, ReplayCameraSettings):
        return ReplaySource(settings)
    if isinstance(settings, SyntheticCameraSettings):
        return SyntheticSource(settings, renderer=renderer)
    raise SourceError(f"unknown camera settings {type(settings).__name__}")
