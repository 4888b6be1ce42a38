"""Evidence images: the frame with every die's outline, value, pose and confidence, and the verdict.

The service stores one with each round, for disputes; `write_evidence` names it after the image and
writes a PNG (lossless, so nothing in the evidence is a compression artefact).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .calibration import Calibration
from .errors import VisionError
from .reading import Pose, Reading
from .throw_judge import Verdict

COLOURS = {  # BGR per pose
    Pose.FLAT: (60, 220, 60), Pose.TOUCHING: (60, 220, 220), Pose.COCKED: (0, 140, 255),
    Pose.STACKED: (255, 0, 255), Pose.OVERLAPPING: (255, 0, 160), Pose.UNCERTAIN: (0, 0, 255),
}


def label(img: np.ndarray, text: str, org: tuple[int, int], colour, scale: float = 0.5) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def annotate(frame: np.ndarray, reading: Reading, verdict: Verdict | None = None,
             calibration: Calibration | None = None, title: str = "") -> np.ndarray:
    """A copy of the frame with the reading (and verdict) drawn on it."""
    out = frame.copy()
    if calibration is not None:
        cv2.polylines(out, [np.round(calibration.felt_px()).astype(np.int32)], True, (200, 200, 200), 1, cv2.LINE_AA)
        if calibration.layout.middle:
            seg = np.round(calibration.points_to_image(calibration.layout.middle)).astype(np.int32)
            cv2.polylines(out, [seg], False, (255, 0, 255), 1, cv2.LINE_AA)
        dome = calibration.dome_px()
        if dome:
            cv2.circle(out, (round(dome[0][0]), round(dome[0][1])), round(dome[1]), (255, 255, 0), 1, cv2.LINE_AA)
    for i, d in enumerate(reading.dice, 1):
        colour = COLOURS.get(d.pose, (255, 255, 255))
        if d.outline:
            cv2.polylines(out, [np.round(np.array(d.outline)).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        else:
            cv2.rectangle(out, (round(d.x - d.w / 2), round(d.y - d.h / 2)), (round(d.x + d.w / 2), round(d.y + d.h / 2)),
                          colour, 2)
        value = "?" if d.value is None else str(d.value)
        text = f"#{i} {value} {d.pose.value} {d.confidence:.2f}"
        label(out, text, (round(d.x - d.w / 2), max(12, round(d.y - d.h / 2 - 5))), colour, 0.45)
    for b in reading.blobs:
        cv2.rectangle(out, (round(b.x - b.w / 2), round(b.y - b.h / 2)), (round(b.x + b.w / 2), round(b.y + b.h / 2)),
                      (0, 0, 255), 1)
    lines = [title] if title else []
    if verdict is not None:
        lines.append(("VALID " + " ".join(str(v) for v in verdict.values)) if verdict.valid
                     else f"VOID {verdict.reason.value}: {verdict.detail}")
    for k, text in enumerate(lines):
        colour = (60, 220, 60) if verdict is not None and verdict.valid and k == len(lines) - 1 else (80, 80, 255)
        label(out, text[:120], (8, 22 + 22 * k), colour if verdict is not None else (255, 255, 255), 0.6)
    return out


def write_evidence(directory: Path | str, name: str, image: np.ndarray) -> Path:
    """Write `image` as DIRECTORY/NAME.png; errors name the path."""
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VisionError(f"{directory}: cannot create evidence folder: {exc.strerror}") from exc
    path = directory / f"{Path(name).stem}.png"
    if not cv2.imwrite(str(path), image):
        raise VisionError(f"{path}: cannot write evidence image")
    return path
