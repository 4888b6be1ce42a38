"""Labelled dice photos in YOLO format (class 0-5 = faces 1-6) and the fixed development / held-back split."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .errors import DatasetError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
HELD_BACK = "heldback"
DEVELOPMENT = "development"


def split_of(name: str) -> str:
    """The split an image belongs to, fixed once by a hash of its file stem (about 30 % held back).

    The rule was fixed before any image was looked at; nothing is ever tuned on the held-back split.
    """
    stem = Path(name).stem
    return HELD_BACK if int(hashlib.sha256(stem.encode()).hexdigest()[:8], 16) % 10 < 3 else DEVELOPMENT


def is_tuning(name: str) -> bool:
    """An inner part of the development split (~20 %) kept out of training to choose thresholds on."""
    stem = Path(name).stem
    return split_of(name) == DEVELOPMENT and int(hashlib.sha256(("val:" + stem).encode()).hexdigest()[:8], 16) % 5 == 0


@dataclass(frozen=True, slots=True)
class LabelledDie:
    """One labelled die: its top value and its box in pixels (centre, width, height)."""

    value: int
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True, slots=True)
class LabelledImage:
    """An image file and its labelled dice."""

    image: Path
    dice: tuple[LabelledDie, ...]

    @property
    def split(self) -> str:
        return split_of(self.image.name)


def read_labels(path: Path, width: int, height: int) -> tuple[LabelledDie, ...]:
    """Parse one YOLO label file into dice with pixel boxes; errors name the file and line."""
    dice = []
    try:
        text = path.read_text()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read label file: {exc.strerror}") from exc
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 5:
            raise DatasetError(f"{path}:{number}: expected 'class cx cy w h', got {line!r}")
        try:
            cls = int(parts[0])
            cx, cy, w, h = (float(p) for p in parts[1:])
        except ValueError as exc:
            raise DatasetError(f"{path}:{number}: not numbers: {line!r}") from exc
        if not 0 <= cls <= 5:
            raise DatasetError(f"{path}:{number}: class {cls} is not a face (0-5 = faces 1-6)")
        dice.append(LabelledDie(cls + 1, cx * width, cy * height, w * width, h * height))
    return tuple(dice)


def list_images(root: Path) -> list[Path]:
    """Images of a dataset folder: `root/images/*` if it exists, else `root/*`; sorted by name."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: not a directory")
    folder = root / "images" if (root / "images").is_dir() else root
    images = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise DatasetError(f"{folder}: no images ({', '.join(IMAGE_SUFFIXES)})")
    return images


def label_path(root: Path, image: Path) -> Path:
    """`root/labels/NAME.txt` if there is a labels folder, else NAME.txt beside the image."""
    labels = Path(root) / "labels"
    return labels / f"{image.stem}.txt" if labels.is_dir() else image.with_suffix(".txt")
