"""Whether the camera's image of the dice is too blurred to read them: the camera out of focus, a dirty lens, a shake.

The dice of a blurred image are not read, whatever the networks make of them. Smeared pips run into each other and
the face network reads them confidently wrong: on the development photos, smeared along a line of 6 pixels in 640, it
read 21 of 700 dice wrong at its own confidence (none in focus), 151 of 700 at 12 pixels. On a calibrated table the
pose network calls blurred dice tipped instead, and the dealer would be told the wrong reason (docs/vision.md,
"A blurred image").

A die's sharpness is the steepest edge of its face against the face's contrast, in the direction where the face is
least sharp (a shake blurs one direction only): at one die edge per `SIDE` pixels, the 99th percentile of the
lightness gradient along each of four directions, the least of them, over the face's lightness range (2nd to 98th
percentile). Blur is the camera's, so the image is judged by the median of its dice: a die with soft painted pips
is no blurred camera. `BLUR_FLOOR` was chosen on the development photos and tune seed 9401 only: in focus, no image
under it (their 1st percentiles 0.21-0.23); 2 pixels of defocus or 6 of shake, most images under it.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from .face_crops import crop
from .reading import Die

SIDE = 25  # pixels per die edge the face is measured at (the face network's crops: 40 pixels over 1.6 die edges)
BLUR_FLOOR = 0.2  # an image whose dice's median sharpness is under this is blurred
_EDGE = SIDE - 2  # the gradient's inner pixels (the border's are the crop's replicated edge)
_STEEPEST = int(0.99 * _EDGE * _EDGE)  # the 99th percentile's rank among them


def sharpness(frame: np.ndarray, x: float, y: float, die_px: float) -> float:
    """The least sharp direction's steepest edge over the contrast, of the die's face centred at (x, y)."""
    grey = cv2.cvtColor(crop(frame, x, y, die_px, 0.0, SIDE, 1.0), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)[1:-1, 1:-1].ravel()
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)[1:-1, 1:-1].ravel()
    slopes = np.abs(np.stack((gx, gy, (gx + gy) / np.sqrt(2), (gx - gy) / np.sqrt(2)))) / 8.0
    steepest = np.partition(slopes, _STEEPEST, axis=1)[:, _STEEPEST]
    values = np.sort(grey, axis=None)
    contrast = values[int(0.98 * (values.size - 1))] - values[int(0.02 * (values.size - 1))]
    return float(steepest.min() / max(float(contrast), 1.0))


def image_blurred(frame: np.ndarray, dice: Sequence[Die], die_px: float) -> bool:
    """Whether the image of these dice is too blurred to read them: their median sharpness under `BLUR_FLOOR` (only
    the dice found with a value count; False without any)."""
    found = [d for d in dice if d.value is not None]
    if not found:
        return False
    return float(np.median([sharpness(frame, d.x, d.y, die_px) for d in found])) < BLUR_FLOOR
