"""Have the dice stopped? A cheap per-frame motion test over a window, and agreement of several readings.

`AtRestDetector.update(frame)` shrinks the frame to a thumbnail (grey), counts the pixels that
changed since the previous frame, and reports at rest once `window` frames in a row were still.
With a region, only the frame under the thumbnail's box around it is shrunk: 0.84 ms per 1280x720
frame here. After that, `agree()` compares readings of several frames: the dice must be the same
(count, place, value, lie) or the disputed dice are reported `uncertain`; a die the frames declined for
its confidence alone may be read on their mean confidence.
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
        self.box = region_box(self.region)
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
        small, box = grey_thumbnail(frame, self.thumb, self.box)
        if self.previous is None or self.previous.shape != small.shape:
            self.previous = small  # the first frame, or the camera's frame size changed: start anew
            self.still = 0
            return False
        changed = cv2.absdiff(small, self.previous) > self.changed_level
        self.previous = small
        if self.region is not None:
            x0, y0, x1, y1 = box
            changed &= self.region[y0:y1, x0:x1]
        self.last_change = float(np.count_nonzero(changed)) / self.area
        self.still = self.still + 1 if self.last_change <= self.changed_share else 0
        return self.still >= self.window

    @property
    def at_rest(self) -> bool:
        return self.still >= self.window


def region_box(region: np.ndarray | None) -> tuple[int, int, int, int] | None:
    """The thumbnail box (x0, y0, x1, y1) holding a thumbnail-sized boolean mask; None for no mask."""
    if region is None or not region.any():
        return None
    x, y, w, h = cv2.boundingRect(region.astype(np.uint8))
    return x, y, x + w, y + h


def grey_thumbnail(frame: np.ndarray, thumb: tuple[int, int], box: tuple[int, int, int, int] | None
                   ) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The grey thumbnail (size `thumb`) of a frame, only its `box` part when given, and the box it covers.

    When the frame is a whole multiple of the thumbnail (1280x720 -> 160x90), INTER_AREA averages
    whole blocks, so shrinking only the frame's part under the box gives exactly the pixels the whole
    thumbnail has there, at a fraction of the cost; any other frame size is shrunk whole.
    """
    h, w = frame.shape[:2]
    tw, th = thumb
    if box is None or w % tw or h % th:
        box, part, size = (0, 0, tw, th), frame, thumb
    else:
        x0, y0, x1, y1 = box
        fx, fy = w // tw, h // th
        part, size = frame[y0 * fy:y1 * fy, x0 * fx:x1 * fx], (x1 - x0, y1 - y0)
    small = cv2.resize(part, size, interpolation=cv2.INTER_AREA)
    return (cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small), box


def same_die(a: Die, b: Die, tolerance_px: float) -> bool:
    return float(np.hypot(a.x - b.x, a.y - b.y)) <= tolerance_px


# Frames that agree on a die declined for its confidence alone read it on their mean confidence, when no frame
# reads it under this (a frame much less sure than the others saw something they did not).
AGREED_FLOOR = 0.9
# ... and on a die declined for the pose network's doubt alone, on their mean P(flat), when no frame finds it
# flat less surely than this much under what it needed.
AGREED_FLAT_MARGIN = 0.1


def agree(readings: list[Reading]) -> Reading:
    """One reading from several frames of dice at rest.

    Each die of the first reading must be found in every other reading at the same place (within a
    quarter of a die) with the same value and lie; a die that is not is reported `uncertain`. A die
    is read when every frame reads it, or when every frame either reads it or declined it for its
    confidence alone (`Die.needs_confidence`) or the pose network's doubt alone (`Die.needs_flat`) and
    the frames' means reach what they need (`agreed_die`): the frames differ by sensor noise only, and a
    die just sure in one frame and just short in the next is the same die read the same way. A die any
    frame declined for any other reason (called tipped, a lamp, a neighbour, its place) stays declined.

    A find of a later frame that no die of the first is near (a die seen in some frames only: the edge
    of a leaning pair, a flicker of a shadow) is kept aside in `Reading.unmatched`, once however many
    frames found it, and the judge voids such a throw `uncertain` (`throw_judge.judge`): frames that
    disagree on the dice never make a valid throw, as when every die was made uncertain, while the dice
    every frame agrees on stay read (the evidence and the dice read say what was seen).
    """
    if not readings:
        raise ValueError("agree() needs at least one reading")
    first = readings[0]
    if len(readings) == 1:
        return first
    tolerance = 0.25 * max(first.die_size_px, 1.0)
    dice = []
    disputed = on_mean = 0
    for d in first.dice:
        seen = [d]
        for r in readings[1:]:
            match = [o for o in r.dice if same_die(d, o, tolerance)]
            if len(match) != 1 or match[0].value != d.value or match[0].lie != d.lie:
                break
            seen.append(match[0])
        agreed = agreed_die(seen) if len(seen) == len(readings) else None
        if agreed is None:
            agreed = replace(d, sure=False, declined="frames_disagree") if d.sure else d
        disputed += d.sure and not agreed.sure
        on_mean += agreed.sure and not all(s.sure for s in seen)
        dice.append(agreed)
    extra: list[Die] = []
    for r in readings[1:] if first.dice else ():  # no die in the first frame: no throw (throw_watch waits on)
        for o in r.dice:
            if not any(same_die(o, d, tolerance) for d in first.dice + tuple(extra)):
                extra.append(replace(o, sure=False, needs_confidence=0.0, needs_flat=0.0, declined="later_frames_only"))
    notes = first.notes + ((f"{disputed} dice read differently across frames",) if disputed else ())
    notes += ((f"{on_mean} dice read on the frames' mean confidence or P(flat)",) if on_mean else ())
    notes += ((f"{len(extra)} dice found in later frames only",) if extra else ())
    return replace(first, dice=tuple(dice), notes=notes, unmatched=tuple(extra))


def agreed_die(seen: list[Die]) -> Die | None:
    """The first frame's die as the frames, which found it with the same value and lie, read it together;
    None when some frame declined it for another reason than its confidence or the pose network's doubt
    (the caller declines it). A die some frame declined for its confidence (`needs_confidence`) is read
    when the frames' mean confidence reaches the most any frame needed, none under AGREED_FLOOR; one some
    frame declined for the pose network's doubt (`needs_flat`: not surely flat), when their mean P(flat)
    reaches the most any frame needed, none more than AGREED_FLAT_MARGIN under it: the frames differ by
    sensor noise only, so their mean is the surer measure of the same die, and one frame much less sure
    than the others saw something they did not."""
    first = seen[0]
    if all(d.sure for d in seen):
        return first
    if not all(d.sure or d.needs_confidence or d.needs_flat for d in seen):
        return None
    why = next(d.declined for d in seen if not d.sure)  # the first frame's reason that declined it
    declined = replace(first, sure=False, needs_confidence=max(d.needs_confidence for d in seen),
                       needs_flat=max(d.needs_flat for d in seen), declined=why)
    if first.value is None:
        return declined
    confidences = [d.confidence for d in seen]
    needed = max(d.needs_confidence for d in seen)
    if needed and (min(confidences) < AGREED_FLOOR or float(np.mean(confidences)) < needed):
        return declined
    needed_flat = max(d.needs_flat for d in seen)
    if needed_flat:
        flats = [d.p_flat for d in seen]
        if any(p is None for p in flats) or min(flats) < needed_flat - AGREED_FLAT_MARGIN \
                or float(np.mean(flats)) < needed_flat:
            return declined
    return replace(first, sure=True, confidence=float(np.mean(confidences)), needs_confidence=0.0, needs_flat=0.0,
                   declined="",
                   p_flat=None if first.p_flat is None else float(np.mean([d.p_flat for d in seen])))
