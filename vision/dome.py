"""The cussec dome (and the P'ai Kao bowl): read the three (four) dice under the glass and judge the shake.

The dome's circle comes from the calibration. Inside it the glass adds a tint and moving
highlights; the reader's background model (the empty table seen through the same dome) takes the
tint, and a highlight over a die makes its pips unreadable rather than different, so that die is
reported `uncertain` (never a misread). Two or three dice overlapping -> void (004 VII.6);
a die outside the dome or bowl -> void (002 Art. 1.5).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .calibration import Calibration
from .dice_reader import DiceReader
from .errors import CalibrationError
from .reading import Reading
from .throw_judge import Verdict, judge, rules_for


@dataclass(frozen=True, slots=True)
class DomeResult:
    reading: Reading
    verdict: Verdict
    highlights: float  # share of the dome covered by glare, for the evidence and the floor


class DomeReader:
    """Reads a dome game's dice from frames of a fixed, calibrated camera."""

    def __init__(self, calibration: Calibration, game: str = "cussec", *, background: np.ndarray | None = None,
                 classifier="default") -> None:
        if calibration.layout.dome is None:
            raise CalibrationError(f"layout {calibration.layout.name!r} has no dome circle")
        self.calibration = calibration
        self.rules = rules_for(game)
        if not self.rules.in_dome:
            raise CalibrationError(f"{game} is not played under a dome or in a bowl")
        self.reader = DiceReader(calibration, classifier=classifier, background=background)

    def highlight_share(self, frame: np.ndarray) -> float:
        """Share of the dome's pixels that are glare (near-white and unsaturated)."""
        (cx, cy), r = self.calibration.dome_px()
        mask = np.zeros(frame.shape[:2], np.uint8)
        cv2.circle(mask, (round(cx), round(cy)), round(r), 255, -1)
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        glare = (hsv[..., 2] > 225) & (hsv[..., 1] < 40) & (mask > 0)
        return float(np.count_nonzero(glare)) / max(1, np.count_nonzero(mask))

    def read(self, frame: np.ndarray) -> DomeResult:
        reading = self.reader.read(frame)
        return DomeResult(reading, judge(reading, self.rules, self.calibration), self.highlight_share(frame))
