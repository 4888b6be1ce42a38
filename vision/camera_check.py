"""Is the table's camera mounted as the reader was validated for: looking straight down?

The pose network tells a tipped die from a flat one by the side faces the camera sees, against those perspective
shows a flat die's at its place. Every check of the reader (the mixes, every probe, the photos aside) is of cameras
leaning at most 2 degrees off straight down (each of the two turns drawn within 1.43 degrees:
`synthetic_scenes.random_rig`), and so was its training until its last fine-tune (a fifth of whose frames lean up to 6
degrees). Beyond that the network before took more cocked dice for flat: on tune seed 9451 (200 throws of cocked dice
held as real dice are, every camera leaning as said, towards directions drawn per table) 7.4 a run at 3-6 degrees (11
runs) against 4.3 at 2 or less (7 runs), 27 at 20 degrees, and one was published at 4.5; the network taught leaning
cameras still 10-13 against 6-7 on unseen seed 719 (docs/vision.md, "The camera's lean"). So a camera leaning more than
TILT_LIMIT_DEG is outside what the reader was validated for: the service refuses it unless the operator says it was
checked (`[table] camera_unvalidated_tilt`, docs/config.md).

The lean is the calibration's: the camera's pose from the markers and its measured height, taking the lens's centre
at the image's centre. A camera that moves after calibration is the marker watch's (vision/camera_moved.py).
"""

from __future__ import annotations

from .calibration import Calibration

TILT_LIMIT_DEG = 2.5  # every check's 2 degrees and half a degree for the calibration's estimate (looked at on 9451)


def camera_tilt_deg(calibration: Calibration) -> float | None:
    """How far the calibrated camera leans off straight down, in degrees; None without its measured height."""
    camera = calibration.camera
    return None if camera is None else camera.off_vertical_deg


def unvalidated_tilt(calibration: Calibration) -> str | None:
    """Why the camera of this calibration is not mounted as the reader was validated for; None when it is (or when
    the calibration has no camera height to tell its lean by)."""
    tilt = camera_tilt_deg(calibration)
    if tilt is None or tilt <= TILT_LIMIT_DEG:
        return None
    return (f"the camera leans {tilt:.1f} degrees off straight down, more than the reader was trained and checked "
            f"for ({TILT_LIMIT_DEG:g} at most): leaning 3-6 degrees it takes more cocked dice for flat "
            "(docs/vision.md, Installation); re-aim it straight down and calibrate again")
