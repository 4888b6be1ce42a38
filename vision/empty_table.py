"""The empty table the reader compares frames against: kept by the service's camera, refreshed between throws.

The reader finds dice as what differs from the empty table (die_finder). Without that frame it must
estimate the table from every frame, which takes 1-3 s per 1280x720 frame: the service never reads
that way. Where the model comes from:

1. Installation: `tablehw vision calibrate` keeps its photo of the empty table beside the calibration.
2. Between throws (bets open: the dice are with the shooter) the camera offers still frames. A frame
   is *clear* when the reader, against the current model, reads no die in it; `samples` clear frames
   are averaged into the next model. So the model follows the light's drift, and the chips players put
   on a craps layout: the reader finds some of them as dice it cannot read (a chip is no die), and a
   table whose model refused every frame with a chip in it would void every throw while bets lie there.
   What the model so holds that the table did not (`objects`: the model read against the table as
   installed or last replaced) is told to the judge with each reading (`seen`): a throw that finds
   anything where such an object lies (a die on a chip, a chip knocked away, a die left lying and hit) is
   void (vision/throw_judge.py), and a die touching one is a die touching a foreign object.
3. No model yet, or the table no longer looks like it (more than `unfit_share` of the table's thumbnail
   differs: lights switched, the camera knocked): nothing can check a frame, so the median of `samples`
   still frames of the clear phase becomes the model. A die left lying there then is part of the
   model until the next refresh: a die thrown onto that spot is missed (the count voids the throw) and
   the spot, once cleared, is a die-sized difference the reader finds no die in. Never a wrong value.

Until it has a model that fits the frame, a read is declined (`unfit` says why).
"""

from __future__ import annotations

import logging
from dataclasses import replace

import cv2
import numpy as np

from .dice_reader import DiceReader
from .reading import HELD, Blob, Reading

log = logging.getLogger(__name__)

THUMB = (160, 90)
SAMPLES = 5  # still frames that make a model (averaged when checked, their median when not)


def averaged(frames: list[np.ndarray]) -> np.ndarray:
    """A model from clear still frames: their mean, rounded to 8 bits (less noise than any one of them)."""
    return np.round(np.mean(np.stack(frames), axis=0)).astype(np.uint8)


def thumbnail(frame: np.ndarray) -> np.ndarray:
    small = cv2.resize(frame, THUMB, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small


class EmptyTable:
    """The current empty-table frame (BGR, full size) and how it is learned.

    `region`: mask (any size) of the table where differences count (the calibrated search area).
    `changed_level`: thumbnail grey-level difference that counts a pixel as changed.
    """

    def __init__(self, frame: np.ndarray | None = None, *, region: np.ndarray | None = None, samples: int = SAMPLES,
                 changed_level: int = 30, unfit_share: float = 0.2) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        self.samples = samples
        self.changed_level = changed_level
        self.unfit_share = unfit_share
        self.region = None if region is None else cv2.resize(region, THUMB, interpolation=cv2.INTER_NEAREST) > 0
        self.frame: np.ndarray | None = None
        self.thumb: np.ndarray | None = None
        self.version = 0
        self.how = "none"  # installation | refreshed | replaced: where the current model came from
        self.refused = 0  # frames offered while a die the reader reads lay on the table
        self.reference: np.ndarray | None = None  # the table as installed or last replaced: what "empty" means
        self.objects: tuple[Blob, ...] = ()  # what the model holds that the reference does not (`held`)
        self._clear: list[np.ndarray] = []  # clear frames checked against the model
        self._unchecked: list[np.ndarray] = []  # still frames with nothing to check them against
        if frame is not None:
            self._use(frame, "installation")

    def _use(self, frame: np.ndarray, how: str, objects: tuple[Blob, ...] = ()) -> None:
        self.frame = np.ascontiguousarray(frame)
        self.thumb = thumbnail(self.frame)
        self.version += 1
        self.how = how
        self.objects = objects
        if how != "refreshed":
            self.reference = self.frame  # nothing to tell what in it is no table: its own objects are unknown
        self._clear, self._unchecked = [], []

    def held(self, model: np.ndarray, reader: DiceReader) -> tuple[Blob, ...]:
        """What `model` holds that the reference does not: every part of the reader's foreground of `model` against
        the reference (not only what it would take for dice: a chip it finds no die in is no find, but it is there),
        as blobs `HELD` (the reader is left reading against the reference)."""
        reader.use_background(self.reference)
        cal = reader.calibration
        return tuple(Blob(b.x, b.y, b.w, b.h, HELD, None if cal is None else cal.to_table(b.x, b.y))
                     for b in reader.foreground(model).blobs)

    def seen(self, reading: Reading) -> Reading:
        """A reading against this model, told what the model holds (`objects`, among its blobs) for the judge."""
        return replace(reading, blobs=reading.blobs + self.objects) if self.objects else reading

    def changed_share(self, frame: np.ndarray) -> float:
        """Share of the table (thumbnail) that differs from the model; 1.0 without a model."""
        if self.thumb is None or frame.shape != self.frame.shape:
            return 1.0
        changed = cv2.absdiff(thumbnail(frame), self.thumb) > self.changed_level
        if self.region is not None:
            return float(np.count_nonzero(changed & self.region)) / max(1, int(self.region.sum()))
        return float(np.count_nonzero(changed)) / changed.size

    def unfit(self, frame: np.ndarray) -> str | None:
        """Why this frame cannot be read against the model (None: it can)."""
        if self.frame is None:
            return "no empty-table model yet (it is learned from still frames while bets are open)"
        if frame.shape != self.frame.shape:
            return f"frame {frame.shape[1]}x{frame.shape[0]} does not match the empty-table model"
        share = self.changed_share(frame)
        if share > self.unfit_share:
            return (f"{share:.0%} of the table differs from its empty-table model (lights changed? camera "
                    "moved?): a new model is learned while bets are open")
        return None

    def may_complete(self, frame: np.ndarray) -> bool:
        """Whether offering this frame may complete a new model (it would be the last of `samples` frames, checked
        or not): the moment to make sure the camera did not move, for the model would follow it."""
        waiting = self._clear if self.unfit(frame) is None else self._unchecked
        return len(waiting) + 1 >= self.samples

    def drop_samples(self) -> None:
        """Forget the frames gathered for the next model (taken by a camera that moved since)."""
        self._clear, self._unchecked = [], []

    def offer(self, frame: np.ndarray, reader: DiceReader) -> bool:
        """A still frame taken while the table should be clear; True when it completed a new model
        (which `reader` then uses)."""
        if self.unfit(frame) is None:
            self._unchecked = []
            if any(d.is_read for d in reader.read(frame).dice):
                self._clear = []  # a die lies there: never part of the empty table
                self.refused += 1
                return False
            self._clear.append(frame)
            if len(self._clear) < self.samples:
                return False
            self.refresh(averaged(self._clear), reader)
            return True
        else:
            self._clear = []
            self._unchecked.append(frame)
            if len(self._unchecked) < self.samples:
                return False
            median = np.median(np.stack(self._unchecked), axis=0)
            log.warning("empty-table model %s from %d still frames taken while bets were open (nothing to "
                        "check them against)", "replaced" if self.frame is not None else "made", self.samples)
            self._use(median.astype(np.uint8), "replaced")
        reader.use_background(self.frame)
        return True

    def refresh(self, model: np.ndarray, reader: DiceReader) -> None:
        """Make `model` (clear still frames averaged) the model, holding what the reader finds in it against the
        reference (`held`); `reader` reads against it from now on."""
        self._use(model, "refreshed", self.held(model, reader))
        if self.objects:
            log.info("empty-table model %d holds %d things the table as installed did not (chips? a die left lying?) "
                     "at %s px: a throw that finds anything there is void", self.version, len(self.objects),
                     ", ".join(f"({b.x:.0f}, {b.y:.0f})" for b in self.objects[:8]))
        reader.use_background(self.frame)
