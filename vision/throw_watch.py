"""Watch one throw in a 30 fps stream: keep its track, wait until the dice rest, read several frames, judge.

`ThrowWatcher.feed(frame)` is called for every frame. While things move it records where the dice
are (foreground only, cheap) for the middle-line rule; once `AtRestDetector` says at rest it reads
`reads` frames, requires them to agree, and returns the `Outcome` (reading + verdict). Call
`start()` when a new throw begins (e.g. the dealer's "no more bets").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .at_rest import AtRestDetector, agree
from .calibration import Calibration
from .dice_reader import DiceReader
from .reading import Blob, Reading
from .throw_judge import ThrowRules, Verdict, judge


@dataclass(frozen=True, slots=True)
class Outcome:
    reading: Reading
    verdict: Verdict
    frames_read: int
    track_frames: int


def on_felt(xy: tuple[float, float], cal: Calibration, margin: float = 0.0) -> bool:
    w, h = cal.layout.felt_mm
    return -margin <= xy[0] <= w + margin and -margin <= xy[1] <= h + margin


def locate(reader: DiceReader, frame: np.ndarray) -> Reading:
    """Where die-like things are in a moving frame (no faces read, cheap): a Reading of blobs."""
    fg = reader.foreground(frame)
    cal = reader.calibration
    d = fg.die_size
    blobs = []
    for b in fg.blobs:
        (_, _), (rw, rh), _ = b.rect
        # Die-sized and not thin (glare streaks and reflections are thin); motion blur may stretch a die.
        if 0.4 * d * d <= b.area <= 5 * d * d and min(rw, rh) >= 0.5 * d and max(rw, rh) <= 3.5 * d:
            xy = cal.to_table(b.x, b.y) if cal is not None else None
            if xy is not None and not on_felt(xy, cal, margin=cal.layout.die_mm):
                continue  # on the rail or beyond: not part of the track over the felt
            blobs.append(Blob(b.x, b.y, b.w, b.h, "moving", xy))
    return Reading((), tuple(blobs), d, (frame.shape[1], frame.shape[0]), cal is not None)


class ThrowWatcher:
    """Frames in, one `Outcome` per throw out."""

    def __init__(self, reader: DiceReader, rules: ThrowRules, *, detector: AtRestDetector | None = None,
                 reads: int = 3, max_track: int = 240) -> None:
        self.reader = reader
        self.rules = rules
        self.calibration: Calibration | None = reader.calibration
        self.detector = detector or AtRestDetector()
        self.reads = reads
        self.max_track = max_track
        self.start()

    def start(self) -> None:
        """Forget the previous throw."""
        self.detector.reset()
        self.track: list[Reading] = []
        self.pending: list[Reading] = []
        self.done = False

    def feed(self, frame: np.ndarray) -> Outcome | None:
        """Feed the next frame; returns the outcome once, when the dice have rested and been read."""
        if self.done:
            return None
        if not self.detector.update(frame):
            self.pending.clear()
            if self.detector.still == 0 and len(self.track) < self.max_track:
                self.track.append(locate(self.reader, frame))
            return None
        self.pending.append(self.reader.read(frame))
        if len(self.pending) < self.reads:
            return None
        reading = agree(self.pending)
        verdict = judge(reading, self.rules, self.calibration, self.track)
        self.done = True
        return Outcome(reading, verdict, len(self.pending), len(self.track))
