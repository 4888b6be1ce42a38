"""Is the table's felt one the pose network was trained and checked on?

The pose network tells a tipped die from a flat one by its shading and outline against the felt. Its training
frames have coloured felts only: the tune looks' (green, burgundy, tan) and felts of random hues, saturated
(`vision/training/make_synthetic_set.random_felt`). On a neutral felt (grey, black, white) it has never been
checked, and on the unseen looks' grey felt it took dice tipped towards the camera's foot for flat in 42% of
throws (docs/vision.md, twenty-seventh session). So a table whose felt is less saturated than any it was trained
on is outside what the reader was validated for: the service refuses it unless the operator says the felt was
checked (`[table] camera_unvalidated_felt`, docs/config.md). It looks at the calibration photo at start, and at
the live table on every new empty-table model and on the first frame of each rest of the dice
(firmware_host/dice_camera.py).
"""

from __future__ import annotations

import cv2
import numpy as np

from .calibration import Calibration
from .errors import CalibrationError

# The saturation (OpenCV HSV, 0-255) of the felt's median colour below which the felt is not one the pose network
# was trained on. Measured on rendered empty tables of the training's own felts only (200 of the tune looks, 200 of
# random felts; `make bench` prints it, `test_bench_felt_saturation`): lowest 50, a tan felt (random felts from 78);
# the floor keeps a margin of 10 under it. Chosen before the unseen looks' felts were measured, not changed after.
FELT_SATURATION_FLOOR = 40.0
INSET_DIES = 1.0  # the felt's edge is left out (a wall's shadow, the rail's colour bleeding in)
STRIDE = 4  # every 4th pixel of every 4th row: the median colour of a felt the same, at 1/16 of the work


def felt_colour(image: np.ndarray, calibration: Calibration) -> tuple[float, float, float]:
    """The felt's median colour (BGR) in a photo of the empty table, its edge left out."""
    calibration.check_frame_size(image.shape[1], image.shape[0])
    w, h = calibration.layout.felt_mm
    inset = INSET_DIES * calibration.layout.die_mm
    corners = calibration.points_to_image([(inset, inset), (w - inset, inset), (w - inset, h - inset),
                                           (inset, h - inset)])
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 1)
    pixels = image[::STRIDE, ::STRIDE][mask[::STRIDE, ::STRIDE] > 0]
    if len(pixels) == 0:
        raise CalibrationError("the calibration places no felt in the image: its homography maps the table elsewhere")
    return tuple(float(v) for v in np.median(pixels, axis=0))


def saturation_of(bgr: tuple[float, float, float]) -> float:
    """OpenCV's HSV saturation (0-255) of one colour."""
    high, low = max(bgr), min(bgr)
    return 0.0 if high <= 0 else 255.0 * (high - low) / high


def felt_saturation(image: np.ndarray, calibration: Calibration) -> float:
    """The saturation of the felt's median colour in a photo of the empty table."""
    return saturation_of(felt_colour(image, calibration))


def unvalidated_felt(image: np.ndarray, calibration: Calibration) -> str | None:
    """Why the felt in this photo of the empty table is not one the pose network was validated on; None when it is."""
    colour = felt_colour(image, calibration)
    s = saturation_of(colour)
    if s >= FELT_SATURATION_FLOOR:
        return None
    b, g, r = (round(v) for v in colour)
    return (f"the felt's colour (BGR {b}, {g}, {r}; saturation {s:.0f} of 255) is more neutral than any the pose "
            f"network was trained and checked on (saturation {FELT_SATURATION_FLOOR:.0f} or more): on a grey felt "
            "it took dice tipped towards the camera for flat in 42% of throws (docs/vision.md, Installation)")
