"""The layout's ArUco markers in a calibration photo: found under several detector settings, corners fitted,
a missing marker looked for where the others put it, and why it was not found when it is not.

Rails differ: dark or light wood, labels and printing beside the markers. The detector finds a marker
by the closed dark square of its border inside a white margin. Letters touching the border join its
contour, and the square test rejects it; a marker printed on a label's edge, the dark rail against its
other sides, has no closed outline at all. So the detector runs under several settings (wider threshold
windows and a looser polygon test; thin dark strokes closed away; contrast equalised) until every
marker is found; a marker found only on a prepared image has its corners fitted to its own bits in the
photo (`align`). A marker still missing is looked for where the others put it (two or more: their
homography; one alone: its own scale and turn, searched wider): fitted there, it counts only if its bits
read its own id with no bit wrong. With no marker found at all, or one still missing where the others put it,
the photo is searched whole for the missing markers' printed patterns. Otherwise the calibration says, per marker,
what it saw there.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

from .layouts import ARUCO_DICTIONARY, Layout

DICTIONARY = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
CELLS = DICTIONARY.markerSize + 2  # bits and the black border around them, per side
CELL_PX = 8  # cell size of the marker read back square
MIN_SIDE_PX = 16  # below this a marker's cells are a few pixels: not read
SEARCH_CELLS = 6  # a missing marker is looked for this many cells around where the others put it
# ... and this many around where one marker alone puts it: its own corners say the scale and the turn, not the
# camera's tilt, so the others lie up to 7.5 cells off that (tune rigs of tests/vision/marker_tables.py)
SEARCH_CELLS_FROM_ONE = 10


def marker_corners_mm(layout: Layout, marker: int) -> np.ndarray:
    """The four corners (mm) of a marker, in ArUco order: top-left, top-right, bottom-right, bottom-left."""
    cx, cy = layout.markers[marker]
    s = layout.marker_mm / 2.0
    return np.array([(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)], np.float64)


def _parameters(**changes) -> cv2.aruco.DetectorParameters:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    for name, value in changes.items():
        setattr(params, name, value)
    return params


def _close(size: int):
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (size, size))
    return lambda gray: cv2.morphologyEx(gray, cv2.MORPH_CLOSE, kernel)


def _equalise(gray: np.ndarray) -> np.ndarray:
    return cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8)).apply(gray)


LOOSE = {"adaptiveThreshWinSizeMin": 3, "adaptiveThreshWinSizeMax": 63, "adaptiveThreshWinSizeStep": 6,
         "polygonalApproxAccuracyRate": 0.05}
# (what the pass does, how the photo is prepared (None: as it is), detector settings), tried in turn until
# every marker is found. Markers found on a prepared image have their corners refined on the photo.
PASSES = (
    ("default", None, {}),
    ("more thresholds, looser squares", None, LOOSE),
    ("thin dark strokes closed (3 px)", _close(3), LOOSE),
    ("thin dark strokes closed (5 px)", _close(5), LOOSE),
    ("contrast equalised", _equalise, LOOSE),
)


def grey(image: np.ndarray) -> np.ndarray:
    """A BGR image in grey (a grey one as it is)."""
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


def unreadable(expected: np.ndarray, width: int, height: int) -> str | None:
    """Why a marker whose corners would lie at `expected` (pixels) cannot be read in a frame of this size; None: it
    can be looked at."""
    if expected.min() < 0 or (expected[:, 0] >= width).any() or (expected[:, 1] >= height).any():
        return "outside the image (the camera does not see it)"
    if side_px(expected) < MIN_SIDE_PX:
        return f"{side_px(expected):.0f} px wide, too small to read (at least {MIN_SIDE_PX} px)"
    return None


def side_px(corners: np.ndarray) -> float:
    return float(np.mean(np.hypot(*(np.roll(corners, -1, axis=0) - corners).T)))


def align(gray: np.ndarray, corners: np.ndarray, marker: int, search_cells: int = 1) -> np.ndarray | None:
    """The marker's corners fitted to its own pattern of bits in the photo: the printed marker is first slid
    over the photo within `search_cells` cells of `corners` (normalised correlation, in the marker's own
    frame), then its homography is fitted to the photo (ECC). The bits' edges place the corners even where
    the border has no white margin to stand out from. None when it does not converge."""
    c = CELL_PX
    size = CELLS * c
    template = DICTIONARY.generateImageMarker(marker, size)
    pad = search_cells * c
    frame = np.array([(pad, pad), (pad + size, pad), (pad + size, pad + size), (pad, pad + size)], np.float32)
    to_image = cv2.getPerspectiveTransform(frame, corners.astype(np.float32))
    region = cv2.warpPerspective(gray, to_image, (size + 2 * pad, size + 2 * pad),
                                 flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    _, score, _, (dx, dy) = cv2.minMaxLoc(cv2.matchTemplate(region, template, cv2.TM_CCOEFF_NORMED))
    if score < 0.5:
        return None
    square = np.array([(0, 0), (size, 0), (size, size), (0, size)], np.float32)
    start = cv2.perspectiveTransform((square + (dx, dy)).reshape(-1, 1, 2), to_image).reshape(4, 2)
    warp = cv2.getPerspectiveTransform(square, start.astype(np.float32)).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 60, 1e-5)
    try:
        _, warp = cv2.findTransformECC(template, gray, warp, cv2.MOTION_HOMOGRAPHY, criteria, None, 3)
    except cv2.error:
        return None
    return cv2.perspectiveTransform(square.reshape(-1, 1, 2), warp).reshape(4, 2).astype(np.float64)


def detect_sightings(image: np.ndarray, wanted: set[int] | None = None, passes: tuple = PASSES
                     ) -> dict[int, list[np.ndarray]]:
    """Every place each ArUco id was read in a BGR (or grey) image, first sighting first: id -> list of 4x2
    corner pixels (sub-pixel, on the image itself). Printing on the felt can read as a marker too (letters
    of a rendered tune table read as marker 1), so an id may be seen more than once. Passes of other
    settings run while a marker of `wanted` (default: ids 0-3) is missing; a prepared pass only adds ids not
    seen yet (fitting a sighting's corners to its bits costs an image alignment)."""
    wanted = {0, 1, 2, 3} if wanted is None else wanted
    gray = grey(image)
    seen: dict[int, list[np.ndarray]] = {}
    for _, prepare, settings in passes:
        detector = cv2.aruco.ArucoDetector(DICTIONARY, _parameters(**settings))
        corners, ids, _ = detector.detectMarkers(gray if prepare is None else prepare(gray))
        for i, c in zip(ids.ravel() if ids is not None else (), corners):
            c = c.reshape(4, 2).astype(np.float64)
            if prepare is not None:
                if int(i) in seen:
                    continue
                # A marker only a prepared image shows has an outline the photo does not: fit its bits instead.
                c = align(gray, c, int(i))
                if c is None:
                    continue
            places = seen.setdefault(int(i), [])
            if all(np.hypot(*(c.mean(axis=0) - o.mean(axis=0))) > 0.5 * side_px(o) for o in places):
                places.append(c)
        if wanted <= set(seen):
            break
    return seen


def detect_markers(image: np.ndarray, wanted: set[int] | None = None, passes: tuple = PASSES) -> dict[int, np.ndarray]:
    """ArUco markers in a BGR (or grey) image: id -> 4x2 corner pixels of its first sighting
    (`detect_sightings`; `passes`: the detector settings tried, PASSES[:1] the default alone)."""
    return {i: places[0] for i, places in detect_sightings(image, wanted, passes).items()}


def layout_error_mm(layout: Layout, found: dict[int, np.ndarray]) -> tuple[np.ndarray | None, float]:
    """The homography (image px -> table mm) of the markers found and how far (RMS, mm) their corners then lie
    from the layout's; (None, inf) when they cannot place one."""
    ids = sorted(m for m in found if m in layout.markers)
    if len(ids) < 2:
        return None, float("inf")
    src = np.concatenate([found[m] for m in ids])
    dst = np.concatenate([marker_corners_mm(layout, m) for m in ids])
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None:
        return None, float("inf")
    back = cv2.perspectiveTransform(src.reshape(-1, 1, 2), hom).reshape(-1, 2)
    return hom, float(np.sqrt(np.mean(np.sum((back - dst) ** 2, axis=1))))


MAX_SIGHTINGS = 3  # sightings of one id weighed against each other (the first ones)


def fitting_sightings(layout: Layout, seen: dict[int, list[np.ndarray]]) -> tuple[dict[int, np.ndarray], list[str]]:
    """One sighting per marker of the layout: where an id was read more than once, the sightings that lie
    together as the layout says (the least RMS error); and a note for each id read more than once. With
    fewer than three markers seen nothing can be weighed: the first sighting is kept."""
    ids = sorted(m for m in seen if m in layout.markers)
    options = [seen[m][:MAX_SIGHTINGS] for m in ids]
    first = {m: places[0] for m, places in zip(ids, options)}
    if len(ids) < 3 or all(len(places) == 1 for places in options):
        return first, []
    best = min(itertools.product(*options), key=lambda combo: layout_error_mm(layout, dict(zip(ids, combo)))[1])
    chosen = dict(zip(ids, best))
    notes = []
    for m, places in zip(ids, options):
        if len(places) > 1:
            others = ", ".join(f"({c.mean(axis=0)[0]:.0f}, {c.mean(axis=0)[1]:.0f})" for c in places
                               if c is not chosen[m])
            x, y = chosen[m].mean(axis=0)
            notes.append(f"marker {m} read at ({x:.0f}, {y:.0f}) px, where the others put it; also read at "
                         f"{others} px (printing read as a marker): not used")
    return chosen, notes


@dataclass(frozen=True, slots=True)
class MarkerLook:
    """What is at a marker's expected place: its bits read back, and how its surroundings look."""

    bits: np.ndarray | None  # inner bits (markerSize square), None when not readable
    border_black: float  # share of the border cells read black (1.0 for a marker)
    contrast: float  # grey levels between the white and the black cells
    dark_margin: tuple[str, ...]  # sides where something dark touches the border (no white margin there)
    side_px: float


def look_at(gray: np.ndarray, corners: np.ndarray) -> MarkerLook:
    """Read the marker square at `corners` (ArUco order), and the white margin a cell wide around it."""
    side = side_px(corners)
    size = CELLS * CELL_PX
    # The square and one more cell all round: the margin that must be white.
    canon = np.array([(CELL_PX, CELL_PX), (size + CELL_PX, CELL_PX), (size + CELL_PX, size + CELL_PX),
                      (CELL_PX, size + CELL_PX)], np.float32)
    warp = cv2.getPerspectiveTransform(corners.astype(np.float32), canon)
    square = cv2.warpPerspective(gray, warp, (size + 2 * CELL_PX, size + 2 * CELL_PX), flags=cv2.INTER_LINEAR)
    inner = square[CELL_PX:CELL_PX + size, CELL_PX:CELL_PX + size]
    level, _ = cv2.threshold(inner, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    m = int(CELL_PX * 0.25)
    means = np.array([[inner[r * CELL_PX + m:(r + 1) * CELL_PX - m, c * CELL_PX + m:(c + 1) * CELL_PX - m].mean()
                       for c in range(CELLS)] for r in range(CELLS)])
    cells = means > level
    border = np.concatenate([cells[0], cells[-1], cells[1:-1, 0], cells[1:-1, -1]])
    white, black = means[cells], means[~cells]
    contrast = float(white.mean() - black.mean()) if white.size and black.size else 0.0
    ring = {"top": square[m:CELL_PX - m, CELL_PX:-CELL_PX], "bottom": square[-CELL_PX + m:-m, CELL_PX:-CELL_PX],
            "left": square[CELL_PX:-CELL_PX, m:CELL_PX - m], "right": square[CELL_PX:-CELL_PX, -CELL_PX + m:-m]}
    dark = tuple(name for name, band in ring.items() if float(np.mean(band <= level)) > 0.15)
    return MarkerLook(cells[1:-1, 1:-1].astype(np.uint8), float(np.mean(~border)), contrast, dark, side)


def recover(image: np.ndarray, layout: Layout, found: dict[int, np.ndarray], whole_photo: bool = True
            ) -> tuple[dict[int, np.ndarray], set[int], dict[int, str]]:
    """Markers of the layout the detector missed, looked for where the found ones (at least one) put them;
    each marker recovered helps place the others. With none found, or some still missing after that (two
    markers on one side of the table put the far side's tens of pixels off: marker tables seed 4034), the
    photo is searched whole for the missing markers' patterns (`search_whole_photo`; `whole_photo` False: only
    where the others put them). What is found so must still fit the layout with the others (`calibrate`).
    Returns the markers recovered (corners fitted to their bits), those of them found by the whole-photo
    search, and, for each marker still missing, why."""
    gray = grey(image)
    known = {m: c for m, c in found.items() if m in layout.markers}
    recovered: dict[int, np.ndarray] = {}
    searched: set[int] = set()
    why: dict[int, str] = {}  # per missing marker, what the search where the others put it saw
    searched_whole = not whole_photo
    while True:
        missing = sorted(set(layout.markers) - set(known))
        if not missing:
            return recovered, searched, {}
        if known:
            to_image, search = where_the_others_put(layout, known)
            why = {}
            for m in missing:
                expected = cv2.perspectiveTransform(marker_corners_mm(layout, m).reshape(-1, 1, 2),
                                                    to_image).reshape(4, 2)
                corners, why[m] = look_for(gray, layout, m, expected, search)
                if corners is not None:
                    recovered[m] = known[m] = corners
            if not all(why[m] for m in missing):
                continue  # each marker found helps place the rest
        if searched_whole:
            return recovered, searched, why or {m: "not seen, and no other marker found to say where it should be"
                                                for m in missing}
        searched_whole = True
        elsewhere = search_whole_photo(gray, set(missing))
        if not elsewhere:
            return recovered, searched, {m: f"{why[m]}; its pattern found nowhere else in the photo" if why else
                                         f"not seen: no square with a white margin read as marker {m}, its pattern "
                                         f"found nowhere in the photo, and no other marker found to say where it "
                                         f"should be (markers need a white margin a cell, "
                                         f"{layout.marker_mm / CELLS:.0f} mm, wide)" for m in missing}
        recovered.update(elsewhere)
        searched.update(elsewhere)
        known.update(elsewhere)


TEMPLATE_CELL_PX = 3  # cell size of the printed markers matched over the whole photo, scaled down to it
SEARCH_STEP = 1.12  # marker sides tried, each this much larger than the last, from MIN_SIDE_PX to a quarter frame
SEARCH_SCORE = 0.6  # least normalised correlation of a place worth fitting
SEARCH_PEAKS = 3  # places kept per marker, turn and side


def search_whole_photo(gray: np.ndarray, wanted: set[int]) -> dict[int, np.ndarray]:
    """Markers found by their printed pattern alone, anywhere in the photo: for when none has a closed outline
    (every marker on a label's edge against a dark rail, tune seeds 600-1099 of tests/vision/marker_tables.py:
    10 such rigs, all four markers found on each, about 0.8 s). Each marker, turned four ways, is matched over
    the photo at every side from MIN_SIDE_PX up (normalised correlation, the photo scaled so that a cell is
    TEMPLATE_CELL_PX); the best places are fitted to the marker's bits (`align`) and kept only when its 16 bits
    read its id unturned with none wrong and its border reads black, as a marker found where others put it."""
    t = CELLS * TEMPLATE_CELL_PX
    templates = {(m, k): np.rot90(DICTIONARY.generateImageMarker(m, t), k) for m in sorted(wanted) for k in range(4)}
    h, w = gray.shape[:2]
    places = []
    side = float(MIN_SIDE_PX)
    while side <= min(h, w) / 4:
        f = t / side
        small = cv2.resize(gray, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
        for (m, _), template in templates.items():
            score_map = cv2.matchTemplate(small, template, cv2.TM_CCOEFF_NORMED)
            for _ in range(SEARCH_PEAKS):
                _, score, _, (x, y) = cv2.minMaxLoc(score_map)
                if score < SEARCH_SCORE:
                    break
                places.append((score, m, x / f, y / f, side))
                score_map[max(0, y - t // 2):y + t // 2 + 1, max(0, x - t // 2):x + t // 2 + 1] = -1.0
        side *= SEARCH_STEP
    found: dict[int, np.ndarray] = {}
    for _, m, x, y, s in sorted(places, key=lambda p: -p[0]):
        if m in found:
            continue
        square = np.array([(x, y), (x + s, y), (x + s, y + s), (x, y + s)], np.float64)
        for turn in range(4):  # which image corner is the marker's first
            corners = align(gray, np.roll(square, turn, axis=0), m)
            if corners is not None and reads_as(gray, corners, m):
                found[m] = corners
                break
    return found


def reads_as(gray: np.ndarray, corners: np.ndarray, m: int) -> bool:
    """The square at `corners` is marker m (`is_marker`)."""
    return is_marker(look_at(gray, corners), m)


def is_marker(look: MarkerLook, m: int) -> bool:
    """What `look_at` read is marker m unturned: every bit right and the border black."""
    ok, idx, rotation = DICTIONARY.identify(look.bits, 0.0)
    return bool(ok) and idx == m and rotation == 0 and look.border_black == 1.0


def where_the_others_put(layout: Layout, known: dict[int, np.ndarray]) -> tuple[np.ndarray, int]:
    """Table mm -> image px from the markers found, and how many cells around its prediction a missing marker is
    looked for. Two or more: their homography. One alone (the others on a label's edge against a dark rail, no
    closed outline): its scale, turn and place (a similarity; its four corners are too close together to say the
    camera's tilt), searched wider; a second marker found so brings the homography in."""
    ids = sorted(known)
    src = np.concatenate([marker_corners_mm(layout, m) for m in ids])
    dst = np.concatenate([known[m] for m in ids])
    if len(ids) >= 2:
        return cv2.findHomography(src, dst, 0)[0], SEARCH_CELLS
    similarity, _ = cv2.estimateAffinePartial2D(src.astype(np.float32), dst.astype(np.float32))
    return np.vstack([similarity, (0.0, 0.0, 1.0)]), SEARCH_CELLS_FROM_ONE


def look_for(gray: np.ndarray, layout: Layout, m: int, expected: np.ndarray,
             search_cells: int = SEARCH_CELLS) -> tuple[np.ndarray | None, str]:
    """Marker m near `expected` (corners from the other markers; looked for `search_cells` cells around): its
    corners when its bits read m with no bit wrong, else None and what was seen there."""
    h, w = gray.shape[:2]
    where = f"expected at ({expected[:, 0].mean():.0f}, {expected[:, 1].mean():.0f}) px"
    why = unreadable(expected, w, h)
    if why is not None:
        return None, f"{where}: {why}"
    corners = align(gray, expected, m, search_cells=search_cells)
    corners = expected if corners is None else corners
    look = look_at(gray, corners)
    if is_marker(look, m):
        return corners, ""
    ok, idx, rotation = DICTIONARY.identify(look.bits, 0.0)
    margin = (f"; something dark touches its border on the {', '.join(look.dark_margin)} (keep a white margin a "
              f"cell, {layout.marker_mm / CELLS:.0f} mm, wide around each marker)" if look.dark_margin else "")
    if look.contrast < 40:
        seen = f"black and white differ by only {look.contrast:.0f} grey levels (covered, glare or too dark?)"
    elif ok and idx != m:
        seen = f"its bits read marker {idx}: a wrong marker printed or placed there?"
    elif ok:
        seen = f"it reads as marker {idx} turned {rotation * 90} degrees: printed or placed turned"
    else:
        seen = f"{DICTIONARY.getDistanceToId(look.bits, m, False)} of its {look.bits.size} bits read wrong"
    return None, f"{where}: {seen}{margin}"
