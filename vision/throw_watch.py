"""Watch one throw in a 30 fps stream: keep its track, wait until the dice rest, read several frames, judge.

Two halves, so that reading never holds up the frames (the service runs them on two threads):
`ThrowWatcher.observe(frame)` is cheap and runs for every frame: while things move it records where
the dice are (foreground only) for the middle-line rule, and while they lie still it says which
frames to read — `reads` frames spread over the at-rest window, the last one completing it, so the
reads are mostly done by the time the window ends. `ThrowWatcher.collect(request, reading)` takes
each reading back; once the last one is in, the readings must agree and the throw is judged
(`Outcome`). Motion before the window is complete drops the readings taken so far. `foresee()` says,
once all but the last reading are in, what the outcome will be if the last one agrees.

`feed(frame)` does both halves in one thread (tools and tests). Call `start()` when a new throw
begins. A thrown game (`needs_motion`) only counts a rest that follows motion, and a rest with no
dice at all (a hand passed over the empty table) is not a throw: the watcher waits on. A game read without
motion (cussec: after the dome is lifted) declines a result whose dice lie where the last valid result's lay
(`same_lie`): a camera frozen on the last round's frame, or dice not shaken, would publish that round again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .at_rest import AtRestDetector, agree
from .calibration import Calibration
from .dice_reader import DiceReader
from .reading import Blob, Die, Reading
from .throw_judge import ThrowRules, Verdict, VoidReason, judge, void


@dataclass(frozen=True, slots=True)
class Outcome:
    reading: Reading
    verdict: Verdict
    frames_read: int
    track_frames: int


@dataclass(frozen=True, slots=True)
class ReadRequest:
    """A frame to read: which rest (epoch) it belongs to, and whether it completes the at-rest window."""

    epoch: int
    final: bool


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


SAME_PLACE = 0.15  # die edges: a die this near where a die of the same value lay in the last valid result lies there


def same_lie(dice: tuple[Die, ...], last: tuple[Die, ...], die_px: float) -> bool:
    """Whether `dice` lie as `last` did: as many, each read with the value of a die of `last` lying within
    SAME_PLACE die edges of it (each die of `last` matched once). Dice shaken under a dome never land so."""
    if not dice or len(dice) != len(last) or die_px <= 0:
        return False
    free = list(last)
    for d in dice:
        near = [e for e in free if e.value == d.value and math.hypot(d.x - e.x, d.y - e.y) <= SAME_PLACE * die_px]
        if not d.is_read or not near:
            return False
        free.remove(near[0])
    return True


def read_points(window: int, reads: int) -> tuple[int, ...]:
    """The still-frame counts at which frames are read: spread evenly, the last completing the window."""
    gap = window // reads
    if gap == 0:
        return tuple(range(window, window + reads))  # a window shorter than the reads: read on after it
    return tuple(window - (reads - 1 - i) * gap for i in range(reads))


class ThrowWatcher:
    """Frames in, one `Outcome` per throw out."""

    def __init__(self, reader: DiceReader, rules: ThrowRules, *, detector: AtRestDetector | None = None,
                 reads: int = 3, max_track: int = 240, needs_motion: bool = False) -> None:
        if reads < 1:
            raise ValueError(f"reads must be at least 1, got {reads}")
        self.reader = reader
        self.rules = rules
        self.calibration: Calibration | None = reader.calibration
        self.detector = detector or AtRestDetector()
        self.reads = reads
        self.max_track = max_track
        self.needs_motion = needs_motion
        self.points = read_points(self.detector.window, reads)
        self.epoch = 0
        self.last_valid: tuple[Die, ...] = ()  # the dice of the last valid outcome (kept from throw to throw)
        self.start()

    def start(self) -> None:
        """Forget the previous throw."""
        self.detector.reset()
        self.track: list[Reading] = []
        self.pending: list[Reading] = []
        self.pending_epoch = 0
        self.moved = False
        self.observing = True
        self.done = False
        self.epoch += 1

    # --- the frame loop's half ------------------------------------------------------------------
    def observe(self, frame: np.ndarray) -> ReadRequest | None:
        """Feed the next frame; a `ReadRequest` when this frame is to be read."""
        if not self.observing:
            return None
        first = self.detector.previous is None
        self.detector.update(frame)
        still = self.detector.still
        if still == 0:
            if not first:
                self.moved = True
                self.epoch += 1  # readings of an earlier rest no longer count
            if self.moved and len(self.track) < self.max_track:
                self.track.append(locate(self.reader, frame))
            return None
        if self.needs_motion and not self.moved:
            return None
        if still not in self.points:
            return None
        final = still == self.points[-1]
        if final:
            self.observing = False
        return ReadRequest(self.epoch, final)

    # --- the reader's half ---------------------------------------------------------------------
    def collect(self, request: ReadRequest, reading: Reading) -> Outcome | None:
        """A reading of a requested frame; the `Outcome` once the last one of a complete rest is in."""
        if self.done or request.epoch != self.epoch:
            return None
        if self.pending_epoch != request.epoch:
            self.pending, self.pending_epoch = [], request.epoch
        self.pending.append(reading)
        if not request.final:
            return None
        readings, self.pending = self.pending[-self.reads:], []
        agreed = agree(readings)
        if self.needs_motion and not agreed.dice:
            # Still after motion, but no die on the table: not the throw (a hand, the stick). Wait on.
            self.moved = False
            self.observing = True
            self.track = []
            self.detector.reset()
            self.epoch += 1
            return None
        verdict = self.judged(agreed)
        self.done = True
        if verdict.valid:
            self.last_valid = agreed.dice
        return Outcome(agreed, verdict, len(readings), len(self.track))

    def judged(self, agreed: Reading) -> Verdict:
        """The throw judged; for a game read without motion, void when its dice lie as the last valid result's."""
        verdict = judge(agreed, self.rules, self.calibration, self.track)
        if verdict.valid and not self.needs_motion and same_lie(agreed.dice, self.last_valid, agreed.die_size_px):
            return void(VoidReason.UNCERTAIN, "the dice lie exactly as in the last valid result (a camera frozen on "
                                              "that frame, or dice not shaken): the dealer reads them")
        return verdict

    def foresee(self) -> Outcome | None:
        """The `Outcome` the rest being read will have if its last reading agrees with those in: judged once
        all but the last requested frame are read (None before, or when no die was read), so that the
        service can draw and encode the evidence while the last frame is still to come."""
        if self.done or not self.pending or len(self.pending) != self.reads - 1 or self.pending_epoch != self.epoch:
            return None
        agreed = agree(self.pending)
        if self.needs_motion and not agreed.dice:
            return None
        return Outcome(agreed, self.judged(agreed), self.reads, len(self.track))

    def decline(self, why: str) -> Outcome:
        """End this throw without a read: void `uncertain` saying why (e.g. no empty-table model)."""
        self.done, self.observing = True, False
        reading = Reading((), notes=(why,))
        return Outcome(reading, void(VoidReason.UNCERTAIN, why), 0, len(self.track))

    def feed(self, frame: np.ndarray) -> Outcome | None:
        """Both halves in one thread: observe the frame and read it when asked."""
        request = self.observe(frame)
        if request is None:
            return None
        return self.collect(request, self.reader.read(frame))
