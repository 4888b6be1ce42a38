"""Where dice may be: foreground against the table, the die size, and candidate die centres.

Everything here works on a small copy of the frame (a few hundred pixels wide) so it is cheap per
frame; the faces are read later from the full-resolution frame. The background is either given
(an empty-table frame, when the camera is fixed) or estimated by a wide median filter, which is
what lets the reader work on ordinary photos with no calibration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .errors import ImageError

# Foreground score: |dL| + 2 * max(|da|, |db|) in Lab against the background; chroma counts twice
# because shadows change lightness but hardly the colour.
STRONG = 45  # a pixel surely on a die
WEAK = 24  # a pixel that may belong to a die touching a strong one


@dataclass(frozen=True, slots=True)
class Candidate:
    """A place that may hold a die, in full-frame pixels; `isolated` when its blob is one die-sized part."""

    x: float
    y: float
    angle: float | None  # the blob's square orientation in degrees when it is one die; None in a cluster
    isolated: bool
    blob: int  # index of the blob (connected part of the foreground) it came from


@dataclass(frozen=True, slots=True)
class BlobShape:
    """A connected part of the foreground, in full-frame pixels."""

    x: float
    y: float
    w: float
    h: float
    area: float
    rect: tuple  # cv2.minAreaRect in full-frame pixels
    contour: np.ndarray  # full-frame pixels, int32 (N, 1, 2)


@dataclass(frozen=True, slots=True)
class Foreground:
    """The foreground of one frame: the die size, the blobs and the candidate die centres."""

    die_size: float  # die edge in full-frame pixels
    estimated: bool  # True when the die size was estimated from the frame
    blobs: tuple[BlobShape, ...]
    candidates: tuple[Candidate, ...]
    scale: float  # work image pixels per full-frame pixel
    mask: np.ndarray  # work-scale foreground mask (uint8 0/255)


def work_scale(width: int, work_width: int) -> float:
    return min(1.0, work_width / float(width))


def downscaled(frame: np.ndarray, s: float, box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """The frame at work scale `s` (INTER_AREA), or only its part within `box` (x0, y0, x1, y1, work pixels).
    Where the work size divides the frame a whole number of times, area averaging of the box's part of the frame is
    the same, bit for bit, as that part of the whole frame averaged (each work pixel averages its own block), so
    only the box is averaged (a search box of half the frame: half the cost)."""
    h, w = frame.shape[:2]
    size = (round(w * s), round(h * s))
    k = w // max(size[0], 1)
    if box is not None and k > 1 and (w, h) == (k * size[0], k * size[1]):
        x0, y0, x1, y1 = box
        return cv2.resize(frame[k * y0:k * y1, k * x0:k * x1], (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    small = frame if s == 1.0 else cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    return small if box is None else np.ascontiguousarray(small[box[1]:box[3], box[0]:box[2]])


def region_box(region: np.ndarray) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) around a region mask's pixels (the whole mask when it has none)."""
    x, y, w, h = cv2.boundingRect(region)
    return (x, y, x + w, y + h) if w else (0, 0, region.shape[1], region.shape[0])


@dataclass(frozen=True, slots=True)
class Background:
    """The empty table at work scale, prepared once: its Lab image and the edges of its own lines."""

    lab: np.ndarray
    edges: np.ndarray
    frame_size: tuple[int, int]  # width, height of the full frames it serves
    light: np.ndarray  # light_of(lightness), for relighting
    planes: tuple[np.ndarray, np.ndarray, np.ndarray]  # lab's L, a, b planes, split once

    boxes: dict = field(default_factory=dict, compare=False, repr=False)  # `inside`'s, made once per box

    @classmethod
    def of(cls, frame: np.ndarray, work_width: int) -> "Background":
        h, w = frame.shape[:2]
        return cls.of_lab(cv2.cvtColor(downscaled(frame, work_scale(w, work_width)), cv2.COLOR_BGR2LAB), (w, h))

    @classmethod
    def of_lab(cls, lab: np.ndarray, frame_size: tuple[int, int]) -> "Background":
        planes = tuple(cv2.split(lab))
        return cls(lab, lightness_edges(planes[0]), frame_size, light_of(planes[0]), planes)

    def inside(self, box: tuple[int, int, int, int]) -> "Background":
        """The empty table within `box` (x0, y0, x1, y1, work pixels), its edges and light measured there."""
        if box not in self.boxes:
            x0, y0, x1, y1 = box
            self.boxes[box] = Background.of_lab(np.ascontiguousarray(self.lab[y0:y1, x0:x1]), self.frame_size)
        return self.boxes[box]


def lightness_edges(lightness: np.ndarray) -> np.ndarray:
    kernel = np.ones((3, 3), np.uint8)
    return cv2.dilate(cv2.morphologyEx(lightness, cv2.MORPH_GRADIENT, kernel), kernel)


def light_of(lightness: np.ndarray) -> np.ndarray:
    """The slowly varying light of a lightness channel: a blurred 1/16 thumbnail (float32)."""
    h, w = lightness.shape[:2]
    size = (max(4, w // 16), max(4, h // 16))
    if w >= 64 and h >= 64:
        lightness = lightness[:size[1] * 16, :size[0] * 16]  # a whole number of cells: OpenCV's fast path, 6x faster
    return cv2.blur(cv2.resize(lightness, size, interpolation=cv2.INTER_AREA).astype(np.float32), (3, 3))


def relit(background: np.ndarray, lightness: np.ndarray, background_light: np.ndarray | None = None) -> np.ndarray:
    """The empty table's lightness plane scaled to the slowly varying light of the frame's `lightness`."""
    h, w = lightness.shape[:2]
    then = light_of(background) if background_light is None else background_light
    gain = np.clip(light_of(lightness) / np.maximum(then, 1.0), 0.5, 2.0)
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.multiply(background, gain, dtype=cv2.CV_8U)


def foreground_score(lab: np.ndarray, background: "np.ndarray | Background | None", relight: bool = True) -> np.ndarray:
    """Per-pixel difference from the table in Lab (uint8); the background is estimated when not given.

    `background` is the empty table's Lab image (or a prepared `Background`); `relight` scales its
    lightness to the frame's light first. (Each channel is worked on as a plane of its own: OpenCV is
    several times slower on the interleaved channels' strided views.)
    """
    kernel = np.ones((3, 3), np.uint8)
    shadows_known = background is not None
    bg_edges = bg_light = bg_planes = None
    if isinstance(background, Background):
        bg_edges, bg_light, bg_planes = background.edges, background.light, background.planes
        background = background.lab
    lightness, a, b = cv2.split(lab)
    # A white die on a white table differs mostly by its outline and pips: local lightness range.
    edges = cv2.morphologyEx(lightness, cv2.MORPH_GRADIENT, kernel)
    if background is None:
        h, w = lab.shape[:2]
        small = cv2.resize(lab, (max(8, w // 4), max(8, h // 4)), interpolation=cv2.INTER_AREA)
        k = max(3, (min(small.shape[:2]) // 5) | 1)
        background = cv2.resize(cv2.medianBlur(small, min(k, 31)), (w, h), interpolation=cv2.INTER_LINEAR)
        then, bg_a, bg_b = cv2.split(background)
    else:
        then, bg_a, bg_b = cv2.split(background) if bg_planes is None else bg_planes
        if relight:
            then = relit(then, lightness, bg_light)
        # Lines, grain and walls of the table have edges of their own: count only new edges.
        edges = cv2.subtract(edges, bg_edges if bg_edges is not None else lightness_edges(then))
    chroma = cv2.max(cv2.absdiff(a, bg_a), cv2.absdiff(b, bg_b))
    if shadows_known:
        # A shadow darkens the known table without changing its colour much: count a darker pixel
        # only when it is much darker than a shadow can make it.
        darker = cv2.subtract(then, lightness)
        deep = cv2.subtract(darker, cv2.multiply(then, 0.5))
        change = cv2.max(cv2.subtract(lightness, then), cv2.add(deep, deep))
    else:
        change = cv2.absdiff(lightness, then)
    score = cv2.add(change, cv2.add(chroma, chroma))
    return cv2.max(score, cv2.add(edges, edges))


def components(mask: np.ndarray, within: tuple[int, int, int, int] | None = None
               ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """cv2.connectedComponentsWithStats (8-connected) of a mostly empty mask, labelled only inside the
    box holding its pixels (4-6x faster on a table frame; the same labels, stats and centroids: the box
    starts on even pixels, so the labelling's 2x2 blocks fall as they would on the whole mask).

    `within` (x0, y0, x1, y1; x0 and y0 even) labels only the mask's pixels inside that box: the parts
    lying wholly inside it come out as on the whole mask, in the same order (other parts are left out).
    """
    h, w = mask.shape
    ox, oy, ox1, oy1 = within if within is not None else (0, 0, w, h)
    x, y, bw, bh = cv2.boundingRect(mask[oy:oy1, ox:ox1])
    if bw == 0:
        return cv2.connectedComponentsWithStats(mask, connectivity=8)
    x, y = x + ox, y + oy
    x0, y0 = x & ~1, y & ~1
    n, inner, stats, centroids = cv2.connectedComponentsWithStats(mask[y0:y + bh, x0:x + bw], connectivity=8)
    labels = np.zeros((h, w), np.int32)
    labels[y0:y + bh, x0:x + bw] = inner
    stats[1:, cv2.CC_STAT_LEFT] += x0
    stats[1:, cv2.CC_STAT_TOP] += y0
    centroids[1:] += (x0, y0)
    stats[0] = (0, 0, w, h, w * h - int(stats[1:, cv2.CC_STAT_AREA].sum()))
    return n, labels, stats, centroids


CLOSING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))


def hysteresis(score: np.ndarray, strong: int, weak: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Connected parts of the weak pixels (closed) that hold a strong pixel.

    Returns the connected components of the weak mask (n, labels, stats, centroids) and which
    labels are kept. Only the weak pixels near the strong ones are labelled first (noise specks scattered over the felt
    make the whole table's box costly to label); when a kept part reaches that box's edge it may go on
    beyond, and the whole mask is labelled instead. Either way the kept parts are the same, in the same
    order.
    """
    weak_mask = cv2.morphologyEx(cv2.threshold(score, weak, 1, cv2.THRESH_BINARY)[1], cv2.MORPH_CLOSE, CLOSING)
    strong_pixels = score > strong
    h, w = score.shape
    x, y, bw, bh = cv2.boundingRect(strong_pixels.view(np.uint8))
    if bw:
        box = (max(0, x - STRONG_REACH) & ~1, max(0, y - STRONG_REACH) & ~1,
               min(w, x + bw + STRONG_REACH), min(h, y + bh + STRONG_REACH))
        n, labels, stats, centroids = components(weak_mask, box)
        keep = kept(n, labels, strong_pixels)
        if not reaches_edge(stats[keep], box, w, h):
            return n, labels, stats, centroids, keep
    n, labels, stats, centroids = components(weak_mask)
    return n, labels, stats, centroids, kept(n, labels, strong_pixels)


STRONG_REACH = 24  # work pixels (about two dice) around the strong pixels labelled first


def kept(n: int, labels: np.ndarray, strong_pixels: np.ndarray) -> np.ndarray:
    """Which of the n labels hold a strong pixel (never the background, 0)."""
    keep = np.zeros(n, bool)
    keep[labels[strong_pixels]] = True
    keep[0] = False
    return keep


def reaches_edge(stats: np.ndarray, box: tuple[int, int, int, int], w: int, h: int) -> bool:
    """True when a part's bounding box touches an edge of `box` that is not the image's edge."""
    x0, y0, x1, y1 = box
    left, top = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    right, bottom = left + stats[:, cv2.CC_STAT_WIDTH], top + stats[:, cv2.CC_STAT_HEIGHT]
    return bool(((left <= x0) & (x0 > 0)).any() or ((top <= y0) & (y0 > 0)).any()
                or ((right >= x1) & (x1 < w)).any() or ((bottom >= y1) & (y1 < h)).any())


def filled_part(labels: np.ndarray, i: int, box, max_hole: float) -> tuple[np.ndarray, np.ndarray]:
    """Component i inside its box with its small holes (pips) filled, and its outer contour."""
    x, y, w, h = box
    part = (labels[y:y + h, x:x + w] == i).astype(np.uint8)
    contours, hierarchy = cv2.findContours(part, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    outer = max((c for c, hh in zip(contours, hierarchy[0]) if hh[3] < 0), key=cv2.contourArea)
    holes = [c for c, hh in zip(contours, hierarchy[0]) if hh[3] >= 0 and cv2.contourArea(c) < max_hole]
    if holes:
        cv2.drawContours(part, holes, -1, 1, -1)
    return part, outer


def estimate_die_size(stats: np.ndarray, image_area: int) -> float | None:
    """Median edge (sqrt of area) of compact, die-sized blobs; None when no blob looks like one die."""
    sizes = []
    for x, y, w, h, area in stats[1:]:
        if not image_area * 2e-4 <= area <= image_area * 0.03:
            continue
        if 0.7 <= w / h <= 1.43 and area / float(w * h) >= 0.55:
            sizes.append(np.sqrt(area))
    return float(np.median(sizes)) if sizes else None


# Die edges between the grid points looked at in a blob of touching dice. With the die size of a calibrated camera 0.5,
# not 0.4: on tune seeds 60, 62, 66 and 68 (400 throws each) as many throws valid and more dice read (touching dice +0
# to +5.5 points), 0 wrong results more, cocked and stacked recognised the same, a die more partly hidden under another
# missed (those throws void all the same), a fifth fewer crops; 0.6 lost dice (docs/vision.md). With a die size
# estimated from the frame (no calibration) 0.4: on the development photos 0.5 read 4 dice fewer, one confidently wrong.
CANDIDATE_STEP = 0.5
CANDIDATE_STEP_ESTIMATED = 0.4
# Die edges that must lie between two candidate centres of one blob (calibrated camera): the grid's first pixel of each
# cell and the ridge of the distance transform put points a pixel or two apart, each one crop more for the face network.
CANDIDATE_SPACING = 0.2


def cluster_points(mask: np.ndarray, d: float, step: float = CANDIDATE_STEP,
                   spacing: float = 0.0) -> list[tuple[float, float]]:
    """Candidate centres inside a blob larger than one die: a grid over its interior plus the peaks
    of its distance transform (the centres of touching dice). The mask is the blob's bounding box: it is
    padded with background first, or OpenCV measures no distance across the box's edge (a blob that fills its
    box from edge to edge, a thin streak of light, had every pixel "far inside" and every pixel a peak).
    With `spacing` (die edges), a point closer than that to one kept before it is left out."""
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    dist = cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]
    step = max(1.0, step * d)
    inner = dist >= 0.22 * d
    ys, xs = np.nonzero(inner)
    if len(xs) == 0:
        return []
    gx = np.round(xs / step).astype(np.int64)
    gy = np.round(ys / step).astype(np.int64)
    # The first pixel (in raster order) of each grid cell: np.unique gives each cell's first index.
    first = np.sort(np.unique(gy * (int(gx.max()) + 1) + gx, return_index=True)[1])
    points = list(zip(xs[first].astype(float).tolist(), ys[first].astype(float).tolist()))
    k = max(3, int(0.6 * d) | 1)
    peaks = (dist >= cv2.dilate(dist, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) & (dist >= 0.3 * d)
    ys, xs = np.nonzero(peaks)
    points += [(float(x), float(y)) for x, y in zip(xs, ys)]
    return spaced(points, spacing * d) if spacing > 0 else points


def spaced(points: list[tuple[float, float]], least: float) -> list[tuple[float, float]]:
    """The points in order, each left out when it lies closer than `least` to one kept before it."""
    kept: list[tuple[float, float]] = []
    for x, y in points:
        if all((x - a) ** 2 + (y - b) ** 2 >= least * least for a, b in kept):
            kept.append((x, y))
    return kept


def find_foreground(frame: np.ndarray, *, die_size: float | None = None,
                    background: "np.ndarray | Background | None" = None,
                    work_width: int = 640, region: np.ndarray | None = None) -> Foreground:
    """Blobs and candidate die centres of a BGR frame.

    `die_size` (full-frame pixels) comes from the calibration; without it the size is estimated
    from the compact blobs. `background` is a BGR frame of the empty table at full size. `region`
    (work-scale uint8 mask) limits where dice are looked for.
    """
    h, w = frame.shape[:2]
    s = work_scale(w, work_width)
    shape = (round(h * s), round(w * s)) + frame.shape[2:]
    if isinstance(background, np.ndarray):
        background = Background.of(background, work_width)
    if background is not None and background.lab.shape != shape:
        raise ImageError(f"background is {background.frame_size[0]}x{background.frame_size[1]}, frame is {w}x{h}")
    if region is None:
        score = foreground_score(cv2.cvtColor(downscaled(frame, s), cv2.COLOR_BGR2LAB), background)
    else:
        # Only the box around the search region is downscaled and compared with the table (most of the cost).
        x0, y0, x1, y1 = box = region_box(region)
        inside = cv2.cvtColor(downscaled(frame, s, box), cv2.COLOR_BGR2LAB)
        score = np.zeros(shape[:2], np.uint8)
        table = None if background is None else background.inside(box)
        score[y0:y1, x0:x1] = cv2.bitwise_and(foreground_score(inside, table), region[y0:y1, x0:x1])
    n, labels, stats, centroids, keep = hysteresis(score, STRONG, WEAK)
    max_hole = max(16, score.size // 800)
    mask = np.zeros(score.shape, np.uint8)
    parts = {}
    for i in np.nonzero(keep)[0]:
        x, y, bw, bh, _ = stats[i]
        part, outer = filled_part(labels, i, (x, y, bw, bh), max_hole)
        mask[y:y + bh, x:x + bw] |= part * 255
        stats[i, cv2.CC_STAT_AREA] = int(np.count_nonzero(part))
        parts[i] = (part, outer)
    estimated = die_size is None
    d = die_size * s if die_size is not None else estimate_die_size(stats[keep | (np.arange(n) == 0)], mask.size)
    if d is None:
        d = max(8.0, 0.06 * min(shape[:2]))
    blobs: list[BlobShape] = []
    candidates: list[Candidate] = []
    for i, (part, outer) in parts.items():
        x, y, bw, bh, area = stats[i]
        if area < 0.3 * d * d:
            continue
        contour = outer + np.array([x, y], np.int32)
        rect = cv2.minAreaRect(contour)
        index = len(blobs)
        full = (contour.astype(np.float32) / s).astype(np.int32)
        (rx, ry), (rw, rh), ra = rect
        blobs.append(BlobShape((x + bw / 2) / s, (y + bh / 2) / s, bw / s, bh / s, area / (s * s),
                               ((rx / s, ry / s), (rw / s, rh / s), ra), full))
        # One die: its top face, the sides perspective shows and a rim of shadow and blur.
        one_die = 0.45 * d * d <= area <= 2.9 * d * d and 1 / 1.5 <= rw / max(rh, 1) <= 1.5 \
            and area >= 0.7 * rw * rh
        if one_die:
            m = cv2.moments(part, binaryImage=True)
            cx, cy = x + m["m10"] / m["m00"], y + m["m01"] / m["m00"]
            candidates.append(Candidate(cx / s, cy / s, float(ra), True, index))
            # A known die size is the top face alone: the blob adds the sides perspective shows.
            if area <= (2.9 if not estimated else 1.6) * d * d:
                continue
        step, spacing = (CANDIDATE_STEP_ESTIMATED, 0.0) if estimated else (CANDIDATE_STEP, CANDIDATE_SPACING)
        for px, py in cluster_points(part, d, step, spacing):
            candidates.append(Candidate((px + x) / s, (py + y) / s, None, False, index))
    return Foreground(d / s, estimated, tuple(blobs), tuple(candidates), s, mask)
