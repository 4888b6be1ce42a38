"""Words drawn on the images people read: the evidence of each throw, the calibration's check image."""

from __future__ import annotations

import cv2
import numpy as np

# One pixel all around: the outline of text drawn thin (see `label`).
OUTLINE = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)


def label(img: np.ndarray, text: str, org: tuple[int, int], colour, scale: float = 0.5) -> None:
    """Text in `colour` outlined in black, readable on any felt. The outline is the text drawn thin one pixel around:
    OpenCV spaces thicker text wider, so a thick outline ran ahead of the letters (16 pixels over 35 characters)."""
    x, y = org
    for dx, dy in OUTLINE:
        cv2.putText(img, text, (x + dx, y + dy), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)
