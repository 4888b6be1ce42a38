"""Score a reader on labelled photos: per-die accuracy, confident misreads, declined dice, whole images right.

Matching: a reported die matches the labelled die whose centre is nearest, within 0.5 of its box.
- right: matched and read (not `uncertain`) with the labelled value;
- confident misread: matched and read with another value, or a read die where no die is labelled
  (a phantom die published would be as wrong as a misread, so it counts as one);
- declined: matched but `uncertain`; missed: no reported die near a labelled one.
An image is fully right when every labelled die is right and there is no confident misread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .dataset import Erratum, LabelledDie, corrected, label_path, list_images, read_labels, split_of
from .errors import DatasetError
from .reading import Reading


THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.99)


def reliability(confidences: list[tuple[float, bool]]) -> list[dict]:
    """For each threshold t: the dice read at confidence >= t and the share of them that were wrong,
    beside what t claims (1 - t). `confidences`: (confidence, right) of every die read."""
    conf = np.array([c for c, _ in confidences], float)
    right = np.array([r for _, r in confidences], bool)
    rows = []
    for t in THRESHOLDS:
        sel = conf >= t
        n = int(sel.sum())
        wrong = int((~right[sel]).sum())
        rows.append({"t": t, "dice": n, "wrong": wrong, "error": round(wrong / max(n, 1), 5), "claimed": round(1 - t, 5)})
    return rows


@dataclass(slots=True)
class Score:
    """Counts over a set of images."""

    images: int = 0
    images_right: int = 0
    dice: int = 0
    right: int = 0
    misread: int = 0  # read with the wrong value
    phantom: int = 0  # read where no die is labelled
    declined: int = 0
    missed: int = 0
    ms: list[float] = field(default_factory=list)
    confidences: list[tuple[float, bool]] = field(default_factory=list)  # (confidence, right) of each die read

    def add(self, other: "Score") -> None:
        for name in ("images", "images_right", "dice", "right", "misread", "phantom", "declined", "missed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.ms += other.ms
        self.confidences += other.confidences

    def as_json(self) -> dict:
        n = max(self.dice, 1)
        return {
            "images": self.images, "dice": self.dice,
            "accuracy": round(self.right / n, 4),
            "confident_misread_rate": round((self.misread + self.phantom) / n, 4),
            "declined_rate": round(self.declined / n, 4),
            "missed_rate": round(self.missed / n, 4),
            "images_fully_right": round(self.images_right / max(self.images, 1), 4),
            "right": self.right, "misread": self.misread, "phantom": self.phantom,
            "declined": self.declined, "missed": self.missed,
            "ms_median": round(float(np.median(self.ms)), 2) if self.ms else None,
            "reliability": reliability(self.confidences),
        }


def score_reading(reading: Reading, labels: tuple[LabelledDie, ...]) -> Score:
    """Score one reading against its labels."""
    s = Score(images=1, dice=len(labels))
    pairs = sorted(
        ((np.hypot(d.x - g.x, d.y - g.y) / max(g.w, g.h), i, j)
         for i, d in enumerate(reading.dice) for j, g in enumerate(labels)), key=lambda t: t[0])
    taken_d, taken_g = set(), set()
    for dist, i, j in pairs:
        if dist > 0.5 or i in taken_d or j in taken_g:
            continue
        taken_d.add(i)
        taken_g.add(j)
        die = reading.dice[i]
        if not die.is_read:
            s.declined += 1
            continue
        s.confidences.append((die.confidence, die.value == labels[j].value))
        if die.value == labels[j].value:
            s.right += 1
        else:
            s.misread += 1
    s.missed = len(labels) - len(taken_g)
    phantoms = [d for i, d in enumerate(reading.dice) if i not in taken_d and d.is_read]
    s.phantom = len(phantoms)
    s.confidences += [(d.confidence, False) for d in phantoms]
    s.images_right = int(s.right == len(labels) and s.misread == 0 and s.phantom == 0)
    return s


def evaluate(read, root: Path, select=None, on_image=None,
             errata: dict[str, list[Erratum]] | None = None) -> dict[str, Score]:
    """Run `read(frame) -> Reading` over a YOLO-labelled folder; scores per split and 'all'.

    `select(image_path) -> bool` limits the images scored. With `errata` (by image stem) the same
    readings are also scored against the corrected labels, under the keys "SPLIT+errata".
    """
    scores: dict[str, Score] = {}
    for image in list_images(root):
        split = split_of(image.name)
        if select is not None and not select(image):
            continue
        frame = cv2.imread(str(image))
        if frame is None:
            raise DatasetError(f"{image}: not an image OpenCV can read")
        labels = read_labels(label_path(root, image), frame.shape[1], frame.shape[0])
        t0 = time.perf_counter()
        reading = read(frame)
        ms = (time.perf_counter() - t0) * 1000.0
        s = score_reading(reading, labels)
        s.ms.append(ms)
        scores.setdefault(split, Score()).add(s)
        scores.setdefault("all", Score()).add(s)
        if errata is not None:
            fixed = score_reading(reading, corrected(labels, errata.get(image.stem, [])))
            fixed.ms.append(ms)
            scores.setdefault(f"{split}+errata", Score()).add(fixed)
            scores.setdefault("all+errata", Score()).add(fixed)
        if on_image is not None:
            on_image(image, reading, s)
    return scores
