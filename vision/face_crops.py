"""Square, upright crops of a die's neighbourhood, the input of the face classifiers."""

from __future__ import annotations

import cv2
import numpy as np

CROP_PX = 40  # crop side in pixels
CROP_DIES = 1.6  # crop side in die edges: the die plus a margin for centring errors


def crop_matrix(x: float, y: float, die: float, angle_deg: float = 0.0, side: int = CROP_PX,
                span: float = CROP_DIES) -> np.ndarray:
    """Affine map from the frame to a `side`-pixel crop centred on (x, y), `span` die edges wide."""
    scale = side / (span * die)
    m = cv2.getRotationMatrix2D((x, y), angle_deg, scale)
    m[0, 2] += side / 2.0 - x
    m[1, 2] += side / 2.0 - y
    return m


def crop(frame: np.ndarray, x: float, y: float, die: float, angle_deg: float = 0.0, side: int = CROP_PX,
         span: float = CROP_DIES) -> np.ndarray:
    """The crop around (x, y); pixels outside the frame repeat the border."""
    return cv2.warpAffine(frame, crop_matrix(x, y, die, angle_deg, side, span), (side, side),
                          flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
