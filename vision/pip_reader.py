"""The classical face reader: align the die, find the pips that differ from the face colour, check the layout.

Works on light dice with dark pips and on dark or coloured dice with light pips alike, since a pip
is whatever differs from the face's own (median) colour. A face is read only when the pips sit where
a die's pips can sit; anything else is reported with a low confidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import cv2
import numpy as np

from .face_crops import crop

FACE_PX = 64  # side of the aligned face patch in pixels
SPAN = 1.35  # the patch covers the die and a margin (die edges)
# Pip positions of each face on a unit face centred at 0, in pip-grid steps (-1, 0, 1).
LAYOUTS: dict[int, tuple[tuple[tuple[int, int], ...], ...]] = {
    1: (((0, 0),),),
    2: (((-1, -1), (1, 1)), ((-1, 1), (1, -1))),
    3: (((-1, -1), (0, 0), (1, 1)), ((-1, 1), (0, 0), (1, -1))),
    4: (((-1, -1), (-1, 1), (1, -1), (1, 1)),),
    5: (((-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)),),
    6: (((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)), ((-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1))),
}


@dataclass(frozen=True, slots=True)
class FaceRead:
    """The classical reading of one face: value (None when no layout fits), confidence, pip centres."""

    value: int | None
    confidence: float
    pips: tuple[tuple[float, float], ...]
    angle: float
    centre: tuple[float, float] | None = None  # the face's centre in the patch
    short: float = 0.0  # the face's sides in die edges (a cocked die's top face is foreshortened)
    long: float = 0.0


def dominant_angle(patch_gray: np.ndarray) -> float:
    """The die's rotation (degrees, 0-90) from the orientation of the strongest edges in the patch."""
    gx = cv2.Sobel(patch_gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch_gray, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    theta = np.arctan2(gy, gx) * 4.0  # period 90 degrees becomes period 360
    c = float((mag * np.cos(theta)).sum())
    s = float((mag * np.sin(theta)).sum())
    return float(np.degrees(np.arctan2(s, c)) / 4.0) % 90.0


def layout_fit(points: np.ndarray, value: int) -> tuple[float, float]:
    """How well pips (patch pixels, die-aligned) fit the best layout of `value`: worst distance in
    pip-grid steps after centring on the pips and fitting the grid step; and that step in pixels."""
    centred = points - points.mean(axis=0)
    best, best_step = np.inf, 0.0
    for layout in LAYOUTS[value]:
        ref = np.array(layout, np.float32)
        ref = ref - ref.mean(axis=0)
        spread = float(np.abs(ref).sum())
        step = float(np.abs(centred).sum()) / spread if spread else 0.0
        if value == 1:
            step = 1.0
        elif step <= 0:
            continue
        d = np.linalg.norm(centred[:, None, :] / step - ref[None, :, :], axis=2)
        worst = float(max(d.min(axis=0).max(), d.min(axis=1).max()))
        if worst < best:
            best, best_step = worst, step
    return best, best_step


def best_layout(pips: list, areas: list, contrasts: list, unit: float, thr: float, face_centre
                ) -> tuple[int | None, float, tuple[int, ...]]:
    """The largest set of pips that forms a die face; its value, confidence and the pips used.

    Pips of side faces (seen at an angle) and of neighbours are left out when they do not fit;
    a pip left over inside the chosen face lowers the confidence to zero.
    """
    pts = np.array(pips, np.float32).reshape(-1, 2)
    n = len(pips)
    if n > 10:
        return None, 0.0, ()
    for k in range(min(n, 6), 0, -1):
        best = None
        for subset in combinations(range(n), k):
            sub = pts[list(subset)]
            a = [areas[i] for i in subset]
            if max(a) > 2.5 * min(a):
                continue
            fit, step = layout_fit(sub, k)
            centre = sub.mean(axis=0)
            if np.hypot(*(centre - face_centre)) > (0.15 if k == 1 else 0.3) * unit:
                continue
            if k > 1 and not (0.12 * unit <= step <= 0.36 * unit
                              and 0.3 <= 2.0 * np.sqrt(np.median(a) / np.pi) / step <= 1.2):
                continue
            if fit < 0.35 and (best is None or fit < best[0]):
                best = (fit, subset, centre, step)
        if best is None:
            continue
        fit, subset, centre, step = best
        half = 0.5 * unit
        intruders = [i for i in range(n) if i not in subset
                     and np.abs(pts[i] - centre).max() < 0.62 * unit]
        confidence = float(np.clip(1.0 - fit / 0.35, 0, 1) * 0.5
                           + np.clip((min(contrasts[i] for i in subset) - thr) / 80.0, 0, 0.5))
        if intruders or np.hypot(*(centre - face_centre)) > half:
            confidence = 0.0
        return k, confidence, subset
    return None, 0.0, ()


def face_region(dist8: np.ndarray, pips_mask: np.ndarray, unit: float) -> tuple[np.ndarray, float, float] | None:
    """The top face in the patch: pixels of the face colour (pips filled in) connected to the centre.

    Returns its centre (x, y) and its (short, long) side lengths in die edges, or None when no
    face-coloured square surrounds the centre.
    """
    face = ((dist8 < 40) | (pips_mask > 0)).astype(np.uint8)
    k = max(3, int(0.16 * unit) | 1)
    face = cv2.morphologyEx(face, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    face = cv2.morphologyEx(face, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(face, connectivity=4)
    c = FACE_PX // 2
    best, best_d = 0, np.inf
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < 0.25 * unit * unit:
            continue
        d = np.hypot(*(centroids[i] - c))
        if labels[c, c] == i:
            d = 0.0
        if d < best_d:
            best, best_d = i, d
    if best == 0 or best_d > 0.4 * unit:
        return None
    pts = np.column_stack(np.nonzero(labels == best)[::-1]).astype(np.float32)
    (_, _), (w, h), _ = cv2.minAreaRect(pts)
    return centroids[best], min(w, h) / unit, max(w, h) / unit


def pip_sized(w: float, h: float, area: float, unit: float) -> bool:
    """A spot (bounding box `w` x `h`, `area` pixels) a pip's size and shape, give or take: 0.06-0.3 die edges across
    (`unit`: pixels per die edge), at most 2.2 times as long as wide."""
    return (0.06 * unit) ** 2 <= area <= (0.3 * unit) ** 2 and max(w, h) <= 2.2 * min(w, h)


def read_face(frame: np.ndarray, x: float, y: float, die: float, angle: float | None = None) -> FaceRead:
    """Read the top face of the die centred at (x, y) with edge `die` pixels."""
    if angle is None:
        around = crop(frame, x, y, die, 0.0, FACE_PX, 1.3)
        angle = dominant_angle(cv2.cvtColor(around, cv2.COLOR_BGR2GRAY))
    patch = crop(frame, x, y, die, angle, FACE_PX, SPAN)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    unit = FACE_PX / SPAN  # pixels per die edge in the patch
    c = FACE_PX // 2
    r = int(0.3 * unit)
    face = np.median(lab[c - r:c + r, c - r:c + r].reshape(-1, 3), axis=0)
    dist = np.sqrt(((lab - face) * np.array([1.0, 1.6, 1.6], np.float32)) ** 2 @ np.ones(3, np.float32))
    dist8 = np.clip(dist * 2.0, 0, 255).astype(np.uint8)
    core = dist8[5:-5, 5:-5]
    otsu, _ = cv2.threshold(core, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(float(otsu), 50.0)
    mask = np.zeros_like(dist8)
    mask[5:-5, 5:-5] = (core > thr).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    pip_ids = [i for i in range(1, n) if pip_sized(stats[i, 2], stats[i, 3], stats[i, 4], unit)
               and stats[i, 4] >= 0.45 * stats[i, 2] * stats[i, 3]]
    pip_mask = np.isin(labels, pip_ids).astype(np.uint8) if pip_ids else np.zeros_like(mask)
    region = face_region(dist8, pip_mask, unit)
    if region is None:
        return FaceRead(None, 0.0, (), angle)
    centre, short, long = region
    pips, areas, contrasts = [], [], []
    for i in pip_ids:
        if np.hypot(*(centroids[i] - centre)) > 0.66 * unit:
            continue  # beyond the face: a neighbour's pip or a side face
        pips.append(centroids[i])
        areas.append(stats[i, 4])
        contrasts.append(float(dist8[labels == i].mean()))
    value, confidence, chosen = best_layout(pips, areas, contrasts, unit, thr, centre)
    return FaceRead(value, confidence, tuple((float(pips[i][0]), float(pips[i][1])) for i in chosen), angle,
                    (float(centre[0]), float(centre[1])), short, long)
