"""Evidence images: the frame with every die's outline, value, pose and confidence, and the verdict.

The service stores one with each reading, for disputes, as a **JPEG** (`encode_evidence`): stamped with
table, round, attempt and UTC (a banner drawn under the frame, and the same line in the JPEG's comment
segment), quality 85, lowered in steps of 10 down to 45 when a frame would exceed 150 kB
(`EVIDENCE_MAX_BYTES`). A 1280x720 table frame is 60-130 kB at 85. JPEG rather than PNG (1.4-1.6 MB a
frame, ~1.6 GB per 1,000 craps rounds) so that a year fits on the controller's card; rather than WebP
because every viewer an inspector uses opens it. The outlines and values drawn on it are exact; the
pixels under them carry JPEG's artefacts (the reading was made on the raw frame, before encoding).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .calibration import Calibration
from .drawing import label
from .errors import VisionError
from .reading import HELD, Pose, Reading
from .throw_judge import Verdict

COLOURS = {  # BGR per pose
    Pose.FLAT: (60, 220, 60), Pose.TOUCHING: (60, 220, 220), Pose.COCKED: (0, 140, 255),
    Pose.STACKED: (255, 0, 255), Pose.OVERLAPPING: (255, 0, 160), Pose.UNCERTAIN: (0, 0, 255),
}


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
        if d.declined and not d.is_read:  # why it was not read (docs/vision.md, "Reading a die, ...")
            label(out, d.declined, (round(d.x - d.w / 2), round(d.y + d.h / 2 + 14)), colour, 0.4)
    for b in reading.blobs:
        cv2.rectangle(out, (round(b.x - b.w / 2), round(b.y - b.h / 2)), (round(b.x + b.w / 2), round(b.y + b.h / 2)),
                      (0, 0, 255), 1)
        if b.why == HELD:  # not in this frame's differences: the empty-table model holds it (a chip on the layout)
            label(out, "held by the model", (round(b.x - b.w / 2), round(b.y + b.h / 2 + 14)), (80, 80, 255), 0.4)
    for d in reading.unmatched:  # found in later frames of the resting dice only (at_rest.agree): why it is void
        cv2.rectangle(out, (round(d.x - d.w / 2), round(d.y - d.h / 2)), (round(d.x + d.w / 2), round(d.y + d.h / 2)),
                      (0, 0, 255), 1, cv2.LINE_4)
        label(out, "some frames only", (round(d.x - d.w / 2), round(d.y + d.h / 2 + 14)), (80, 80, 255), 0.4)
    lines = [title] if title else []
    if verdict is not None:
        said = ("VALID " + " ".join(str(v) for v in verdict.values)) if verdict.valid \
            else f"VOID {verdict.reason.value}: {verdict.detail}"
        lines += textwrap.wrap(said, BANNER_CHARS)[:BANNER_LINES]  # the whole verdict, on as many lines as it takes
    for k, text in enumerate(lines):
        colour = (60, 220, 60) if verdict is not None and verdict.valid and k == len(lines) - 1 else (80, 80, 255)
        label(out, text, (8, 22 + 22 * k), colour if verdict is not None else (255, 255, 255), 0.6)
    return out


BANNER_CHARS = 110  # characters a line of the verdict drawn at the frame's top (a 1280-pixel frame holds about 115)
BANNER_LINES = 4  # its lines at most (a verdict's words are under 300 characters)


EVIDENCE_QUALITY = 85
EVIDENCE_MIN_QUALITY = 45
EVIDENCE_MAX_BYTES = 150_000
BANNER_PX = 26


@dataclass(frozen=True)
class EvidenceStamp:
    """What an evidence image says it is: table, round, attempt and the UTC time it was taken; for a camera's frame,
    the calibration it was read with (the start of its file's SHA-256)."""

    table: str
    round: int
    attempt: int
    utc: str
    calibration: str | None = None

    def text(self) -> str:
        read_with = f"  calibration {self.calibration[:16]}" if self.calibration else ""
        return f"{self.table}  round {self.round}  attempt {self.attempt}  {self.utc}{read_with}"


def encode_evidence(image: np.ndarray, stamp: EvidenceStamp | None = None) -> bytes:
    """The image (a banner with the stamp added under it) as JPEG bytes, at most `EVIDENCE_MAX_BYTES` where
    quality 45 allows; the stamp is also the JPEG comment (COM segment), for tools."""
    if stamp is not None:
        banner = np.zeros((BANNER_PX, image.shape[1], 3), np.uint8)
        label(banner, stamp.text()[:160], (6, BANNER_PX - 8), (255, 255, 255), 0.5)
        image = np.vstack([image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), banner])
    quality = EVIDENCE_QUALITY
    while True:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise VisionError("cannot encode the evidence image as JPEG")
        if len(data) <= EVIDENCE_MAX_BYTES or quality <= EVIDENCE_MIN_QUALITY:
            break
        quality -= 10
    jpeg = data.tobytes()
    if stamp is None:
        return jpeg
    comment = stamp.text().encode()[:65_000]
    return jpeg[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + jpeg[2:]


def write_evidence(directory: Path | str, name: str, image: np.ndarray) -> Path:
    """Write `image` as DIRECTORY/NAME.jpg (`encode_evidence`); errors name the path."""
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VisionError(f"{directory}: cannot create evidence folder: {exc.strerror}") from exc
    path = directory / f"{Path(name).stem}.jpg"
    try:
        path.write_bytes(encode_evidence(image))
    except OSError as exc:
        raise VisionError(f"{path}: cannot write evidence image: {exc.strerror}") from exc
    return path
