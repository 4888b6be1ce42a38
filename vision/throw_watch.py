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

    def locate(self, frame: np.ndarray) -> Reading:
        """Where die-like things are in a moving frame (no faces read): a Reading of blobs."""
        fg = self.reader.foreground(frame)
        d = fg.die_size
        blobs = []
        for b in fg.blobs:
            if 0.3 * d * d <= b.area <= 12 * d * d:
                xy = self.calibration.to_table(b.x, b.y) if self.calibration is not None else None
                blobs.append(Blob(b.x, b.y, b.w, b.h, "moving", xy))
        return Reading((), tuple(blobs), d, (frame.shape[1], frame.shape[0]), self.calibration is not None)

    def feed(self, frame: np.ndarray) -> Outcome | None:
        """Feed the next frame; returns the outcome once, when the dice have rested and been read."""
        if self.done:
            return None
        if not self.detector.update(frame):
            self.pending.clear()
            if self.detector.still == 0 and len(self.track) < self.max_track:
                self.track.append(self.locate(frame))
            return None
        self.pending.append(self.reader.read(frame))
        if len(self.pending) < self.reads:
            return None
        reading = agree(self.pending)
        verdict = judge(reading, self.rules, self.calibration, self.track)
        self.done = True
        return Outcome(reading, verdict, len(self.pending), len(self.track))
