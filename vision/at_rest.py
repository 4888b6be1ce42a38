"""Have the dice stopped? A cheap per-frame motion test over a window, and agreement of several readings.

`AtRestDetector.update(frame)` shrinks the frame to a thumbnail (grey), counts the pixels that
changed since the previous frame, and reports at rest once `window` frames in a row were still.
It costs well under a millisecond per 1280x720 frame. After that, `agree()` compares readings of
several frames: the dice must be the same (count, place, value, pose) or the disputed dice are
reported `uncertain`.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from .errors import ImageError
from .reading import Die, Reading


class AtRestDetector:
    """Decides from a stream of frames that nothing on the table moves any more.

    `window`: still frames in a row needed (15 = 0.5 s at 30 fps). `changed_level`: grey-level
    change that counts a thumbnail pixel as changed. `changed_share`: share of changed pixels that
    counts a frame as moving. `region`: optional mask (any size; resized) of where motion matters.
    """

    def __init__(self, window: int = 15, *, thumb: tuple[int, int] = (160, 90), changed_level: int = 10,
                 changed_share: float = 0.0015, region: np.ndarray | None = None) -> None:
        if window < 1:
            raise ValueError(f"window must be at least one frame, got {window}")
        self.window = window
        self.thumb = thumb
        self.changed_level = changed_level
        self.changed_share = changed_share
        self.region = None if region is None else cv2.resize(region, thumb, interpolation=cv2.INTER_NEAREST) > 0
        self.area = float(self.region.sum()) if self.region is not None else float(thumb[0] * thumb[1])
        self.previous: np.ndarray | None = None
        self.still = 0  # still frames in a row
        self.last_change = 0.0

    def reset(self) -> None:
        self.previous = None
        self.still = 0

    def update(self, frame: np.ndarray) -> bool:
        """Feed the next frame; True once the last `window` frames were all still."""
        if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3):
            raise ImageError(f"expected an image array, got {type(frame).__name__}")
        small = cv2.resize(frame, self.thumb, interpolation=cv2.INTER_AREA)
        if small.ndim == 3:
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        if self.previous is None:
            self.previous = small
            self.still = 0
            return False
        changed = cv2.absdiff(small, self.previous) > self.changed_level
        self.previous = small
        if self.region is not None:
            changed &= self.region
        self.last_change = float(np.count_nonzero(changed)) / self.area
        self.still = self.still + 1 if self.last_change <= self.changed_share else 0
        return self.still >= self.window

    @property
    def at_rest(self) -> bool:
        return self.still >= self.window


def same_die(a: Die, b: Die, tolerance_px: float) -> bool:
    return float(np.hypot(a.x - b.x, a.y - b.y)) <= tolerance_px


def agree(readings: list[Reading]) -> Reading:
    """One reading from several frames of dice at rest.

    Each die of the first reading must be found in every other reading at the same place (within a
    quarter of a die) with the same value and pose; a die that is not is reported `uncertain`. A
    different number of dice makes every die `uncertain`.
    """
    if not readings:
        raise ValueError("agree() needs at least one reading")
    first = readings[0]
    tolerance = 0.25 * max(first.die_size_px, 1.0)
    if any(len(r.dice) != len(first.dice) for r in readings[1:]):
        dice = tuple(replace(d, sure=False) for d in first.dice)
        return replace(first, dice=dice, notes=first.notes + ("frames disagree on the number of dice",))
    dice = []
    disputed = 0
    for d in first.dice:
        ok = True
        for r in readings[1:]:
            match = [o for o in r.dice if same_die(d, o, tolerance)]
            if len(match) != 1 or match[0].value != d.value or match[0].pose != d.pose or match[0].lie != d.lie:
                ok = False
                break
        if not ok and d.sure:
            d = replace(d, sure=False)
            disputed += 1
        dice.append(d)
    notes = first.notes + ((f"{disputed} dice read differently across frames",) if disputed else ())
    return replace(first, dice=tuple(dice), notes=notes)
