"""What the dice camera checks before it reads: frames that fit its calibration, a felt and a lean the reader was
validated on; and the notice, at every start, that tells the back office what it reads with."""

from __future__ import annotations

from .rounds.inputs import DeviceNotice


def frame_fault(image, calibration) -> str | None:
    """Why a camera frame cannot be read against `calibration` (the reader's own checks of a frame and of its size),
    with what to do; None: it can."""
    from vision.dice_reader import check_frame
    from vision.errors import VisionError

    try:
        calibration.check_frame_size(check_frame(image).shape[1], image.shape[0])
    except VisionError as exc:
        return (f"the camera's frames do not fit: {exc}: set [devices.camera] width and height to the calibration's, "
                "or calibrate again (`tablehw vision calibrate`); throws are not read")
    return None


# What lets a table on a felt the reader was not validated on start: said by the camera's refusal, `tablehw config
# check` and `tablehw vision calibrate` alike.
FELT_OVERRIDE = ("a table on such a felt starts only with [table] camera_unvalidated_felt = true, set once "
                 "pose-network frames of this felt were made and checked (docs/config.md)")


def felt_refused(image, calibration, checked: bool) -> str | None:
    """Why reads on the felt in this frame of the empty table are declined: more neutral than any the pose network was
    trained and checked on (vision/felt_check.py), and the table's config does not say it was `checked` since."""
    from vision.felt_check import unvalidated_felt

    why = None if checked else unvalidated_felt(image, calibration)
    return None if why is None else f"the felt is not one the reader was validated on: {why}"


# What lets a table whose camera leans more than the reader was validated for start (vision/camera_check.py).
TILT_OVERRIDE = ("a table whose camera leans so starts only with [table] camera_unvalidated_tilt = true, set once "
                 "pose-network frames from a camera leaning so were made and checked (docs/config.md)")


def tilt_refused(calibration, checked: bool) -> str | None:
    """Why the camera of this calibration may not read: it leans more off straight down than the pose network was
    trained and checked for (vision/camera_check.py), and the table's config does not say it was `checked` since."""
    from vision.camera_check import unvalidated_tilt

    why = None if checked else unvalidated_tilt(calibration)
    return None if why is None else f"the camera is not mounted as the reader was validated for: {why}"


def calibration_notice(calibration, photo_sha256: str | None) -> DeviceNotice:
    """What the camera reads with, published at every start: the SHA-256 of the calibration file and of its empty-table
    photo. The Pi's disk can be edited; the back office, which knows the calibration approved for the table, sees
    another one the first time the table starts on it (docs/vision.md, "Calibration")."""
    from vision.camera_check import camera_tilt_deg

    def short(digest: str | None) -> str:
        return digest[:16] if digest else "none"

    tilt = camera_tilt_deg(calibration)
    tilt = None if tilt is None else round(tilt, 2)

    return DeviceNotice(
        "camera", "camera_calibration",
        f"the dice camera reads with calibration sha256 {short(calibration.sha256)}... (layout "
        f"{calibration.layout.name}, marker error {calibration.error_mm:.2f} mm) and empty-table photo sha256 "
        f"{short(photo_sha256)}...: any other than the table's approved calibration means it was redone or edited",
        {"sha256": calibration.sha256, "empty_table_sha256": photo_sha256, "layout": calibration.layout.name,
         "image_size": list(calibration.image_size), "error_mm": round(calibration.error_mm, 3),
         "camera_height_mm": calibration.camera_height_mm, "camera_tilt_deg": tilt}, routine=True)
