"""Labelled dice photos in YOLO format (class 0-5 = faces 1-6) and the fixed development / held-back split."""

from __future__ import annotations

import hashlib
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from .errors import DatasetError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
DICE_TOPDOWN_ERRATA = Path(__file__).resolve().parent / "data" / "dice-topdown-errata.json"
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


@dataclass(frozen=True, slots=True)
class Erratum:
    """A label found wrong by eye: at (x, y) px the die shows `value`; `label` is what the label file says
    (None: the die has no label)."""

    image: str
    x: float
    y: float
    label: int | None
    value: int
    why: str


def load_errata(path: Path) -> dict[str, list[Erratum]]:
    """Errata by image stem, from a JSON file {"errata": [{"image", "x", "y", "label", "value", "why"}]}."""
    try:
        doc = json.loads(Path(path).read_text())
        rows = doc["errata"]
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read errata: {exc.strerror}") from exc
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DatasetError(f"{path}: not an errata file (a JSON object with an 'errata' list): {exc}") from exc
    out: dict[str, list[Erratum]] = {}
    for n, row in enumerate(rows):
        try:
            e = Erratum(str(row["image"]), float(row["x"]), float(row["y"]),
                        None if row["label"] is None else int(row["label"]), int(row["value"]), str(row["why"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(f"{path}: errata[{n}]: needs image, x, y, label, value, why: {exc}") from exc
        if not 1 <= e.value <= 6 or (e.label is not None and not 1 <= e.label <= 6):
            raise DatasetError(f"{path}: errata[{n}]: values are faces 1-6")
        out.setdefault(Path(e.image).stem, []).append(e)
    return out


def corrected(labels: tuple[LabelledDie, ...], errata: list[Erratum]) -> tuple[LabelledDie, ...]:
    """The labels with the errata applied: a wrong value replaced, a die without a label added."""
    out = list(labels)
    size = statistics.median(max(d.w, d.h) for d in labels) if labels else 30.0
    for e in errata:
        if e.label is None:
            out.append(LabelledDie(e.value, e.x, e.y, size, size))
            continue
        near = [i for i, d in enumerate(out) if d.value == e.label and abs(d.x - e.x) <= 0.5 * d.w
                and abs(d.y - e.y) <= 0.5 * d.h]
        if len(near) != 1:
            raise DatasetError(f"erratum for {e.image} at ({e.x:.0f}, {e.y:.0f}): no single label {e.label} there")
        d = out[near[0]]
        out[near[0]] = LabelledDie(e.value, d.x, d.y, d.w, d.h)
    return tuple(out)
