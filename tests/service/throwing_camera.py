"""A camera stand-in (cv2.VideoCapture's shape) that shows a rendered table in real time and throws dice on it.

Passed as the capture factory of the V4L2 camera, it stands where the USB camera would: frames come
at the configured rate whatever the reader does, and a reader that falls behind misses frames rather
than delaying them (as with a real camera). `throw(frames)` starts a rendered throw at the next frame;
the dice stay at rest until `clear()` (the stickman takes them back). For each throw, `last_motion`
holds the capture time (monotonic) of its last frame in which a die moves.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from vision.throw_motion import ThrowFrames


class ThrowingCamera:
    """`ThrowingCamera(empty_frames)(device, api)` is the open capture (the factory returns itself)."""

    def __init__(self, empty: list[np.ndarray], fps: float = 30.0) -> None:
        self.empty = empty
        self.period = 1.0 / fps
        self.props: dict[int, float] = {}
        self.last_motion: list[float] = []
        self.delivered = 0
        self.missed = 0  # frames the reader was too late for
        self._lock = threading.Lock()
        self._next: float | None = None
        self._queued: ThrowFrames | None = None
        self._playing: tuple[ThrowFrames, float] | None = None  # the throw and the capture time of its first frame

    def __call__(self, device, api) -> "ThrowingCamera":
        return self

    # --- cv2.VideoCapture -----------------------------------------------------------------------
    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def get(self, prop: int) -> float:
        return self.props.get(prop, 0.0)

    def release(self) -> None:
        pass

    def read(self) -> tuple[bool, np.ndarray]:
        now = time.monotonic()
        if self._next is None:
            self._next = now
        if now < self._next:
            time.sleep(self._next - now)
        else:
            late = math.floor((now - self._next) / self.period)
            self.missed += late
            self._next += late * self.period
        tick = self._next
        self._next += self.period
        self.delivered += 1
        return True, self._frame_at(tick)

    # --- the table ------------------------------------------------------------------------------
    def throw(self, frames: ThrowFrames) -> None:
        with self._lock:
            self._queued = frames

    def clear(self) -> None:
        with self._lock:
            self._queued = self._playing = None

    def _frame_at(self, tick: float) -> np.ndarray:
        with self._lock:
            if self._queued is not None:
                throw, self._queued = self._queued, None
                self._playing = (throw, tick)
                self.last_motion.append(tick + throw.last_moving * self.period)
            playing = self._playing
        if playing is None:
            return self.empty[self.delivered % len(self.empty)]
        throw, start = playing
        i = round((tick - start) / self.period)
        sequence = len(throw.before) + len(throw.moving)
        if i < len(throw.before):
            return throw.before[i]
        if i < sequence:
            return throw.moving[i - len(throw.before)]
        return throw.still[(i - sequence) % len(throw.still)]


def wait_for(condition, timeout_s: float) -> bool:
    """Whether `condition()` held within `timeout_s` (polled every 10 ms): tests on the stand-in wait so, bounded."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()
