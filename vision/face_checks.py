"""What a die's top face shows that its value read cannot be trusted for: a lamp mirrored in it (a bright spot, a
middle pip that is no pip, places where pips hide lit or washed out) or more pips than the value. The checks look at
the face turned square (`face_patch`, the classical reader's patch); each returns True when the die must be declined.
vision/read_checks.py holds the checks of a die against the others, the frame and the camera model."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .face_crops import crop
from .pip_reader import FACE_PX, SPAN, pip_sized
from .reading import Die

LAMP_BLOB = 2.5  # light pips: a bright spot this many times the face's other bright spots is a lamp mirrored
# Light pips, a face read 3 or 5: its middle spot unlike its corner pips (area and peak brightness over theirs,
# elongation less theirs) is a lamp mirrored where a pip would be. Ranges of the middle pips of right reads.
MIDDLE_AREA = (0.7, 1.4)
MIDDLE_PEAK = (0.9, 1.12)
MIDDLE_ELONGATION = 0.25
# Dark pips, a face read 2 or 4: the lightness of its middle varies less than this (standard deviation over the
# face's contrast) unless a lamp hides a middle pip there. Tune looks, seeds 33-34 and 9970-9971 (a die under a lamp
# in every throw but 9971), dice read 2 or 4 right: 0.005 at the median, 4 of 534 with no lamp in the face at 0.025
# or more; 3s and 5s read 2 or 4 under a lamp: 35 of 49 over it, the 4 read at P >= 0.9 among them (0.037-0.049).
MIDDLE_PLAIN = 0.025
# die edges: a light-pipped 3's or 5's middle pip lies this close to the centre of its other pips. Tune looks, dice
# read 3 or 5 right: at most 0.021 on seed 9990 (a die under a lamp in every throw); on seed 9992, 99% under 0.029,
# the two beyond (to 0.058) declined by middle_unlike_corners too. Read 3 or 5 wrong under a lamp: 0.037-0.098.
MIDDLE_OFFSET = 0.03
# a dark-pipped face read 2 or 4 whose middle, or for a 4 whose two opposite side middles (where a 6's middle pips
# are), are lighter than its face by this share of its contrast has a lamp's image lying over pips it hides. Tune
# looks (seeds 9993, tube lamps twice as long, and 9994), white dice read right with no lamp in the face: middle at
# most 0.027 (4s) and 0.012 (2s), side pairs at most 0.019; with a lamp, side pairs at most 0.026
EMPTY_LIT = 0.04
# a dark-pipped face read 2 or 4 whose middle is darker than the ring around it by this share of its contrast has a
# pip under a lamp there. Tune looks, seeds 9995-9997 (9995, 9997: a die under a lamp in every throw, tube lamps twice
# as long) and 9998 (pale dice of the training tools, a lamp in every throw): white and pale dice read 2 or 4 right at
# most 0.007 darker there (1,329 dice); the 3s and 5s read 2 or 4 at P >= 0.9 under a lamp, 0.017 or more (8 dice).
MIDDLE_DIP = 0.012
# The face patch's blurred lightness (0-255) at which a place of a dark-pipped face is washed out: as light as the
# camera can measure, a plateau of clipped pixels wider than the blur, where a lamp's image can hide a dark pip
# outright. Tune looks (seeds 9990, 9992, 9994, as the service reads: 687 white dice read right) lose 3 reads to it
# (two white 3s of one overexposed P'ai Kao throw, and one more). Fortieth session: an ivory 4 read 2 at P 0.972 on
# unseen seed 751 (so decided since), a lamp's image over its other two corners and most of the face, which then
# sets the face's colour, so that `empty_places_lit` cannot see it.
WASHED = 254.0


@dataclass(frozen=True, slots=True)
class FacePatch:
    """A die's top face turned square, in the classical reader's patch (pip_reader): its blurred lightness
    (`lum`), the face's colour (the middle's median), its darkest and brightest 2 %."""

    lum: np.ndarray
    colour: float
    low: float
    high: float
    spots: tuple  # OpenCV's connected components (labels, stats, centres) of the spots of the pips' colour

    @property
    def dark_pips(self) -> bool:
        """Dark pips on a light face (the face lies nearer its brightest than its darkest)."""
        return dark_on_light(self.colour, self.low, self.high)


def dark_on_light(colour: float, low: float, high: float) -> bool:
    """Dark pips on a light face: the face's colour lies nearer its brightest 2 % than its darkest."""
    return colour - low > high - colour


def face_patch(frame: np.ndarray, die: Die, die_px: float) -> FacePatch | None:
    """The face patch of a die found with an outline (None without one)."""
    if not die.outline:
        return None
    patch = crop(frame, die.x, die.y, die_px, outline_angle(die), FACE_PX, SPAN)
    lum = cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32), (0, 0), 1.0)
    unit, c = FACE_PX / SPAN, FACE_PX // 2
    h, r = int(0.42 * unit), int(0.3 * unit)
    colour = quantile(np.sort(lum[c - r:c + r, c - r:c + r], axis=None), 0.5)
    face = np.sort(lum[c - h:c + h, c - h:c + h], axis=None)
    low, high = quantile(face, 0.02), quantile(face, 0.98)
    # The spots of the pips' colour: darker, or lighter, than half-way from the face's colour to its darkest or
    # brightest 2 % (the lamp rules' bright spots of a light-pipped face, and the pip count's spots).
    if dark_on_light(colour, low, high):
        mask = lum < colour - 0.5 * (colour - low)
    else:
        mask = lum > colour + 0.5 * (high - colour)
    _, labels, stats, centres = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return FacePatch(lum, colour, low, high, (labels, stats, centres))


def outline_angle(die: Die) -> float:
    """The turn of a die's top face in the image (degrees): its outline's first edge."""
    (x0, y0), (x1, y1) = die.outline[0], die.outline[1]
    return math.degrees(math.atan2(y1 - y0, x1 - x0))


def lamp_in_face(frame: np.ndarray, die: Die, die_px: float, patch: FacePatch | None = None) -> bool:
    """A lamp mirrored in the glossy top face of a die with light pips: a bright spot much larger than the
    face's other bright spots (its pips) — a spot that can be read as a pip, or hide one. The reader's
    value is not trusted then (tune looks, seeds 31-32: 5 of the 6 light-pipped dice read wrong showed one).
    A lamp image the size of a pip is told from a pip only in the middle of a face read 3 or 5, by its
    corner pips (`middle_unlike_corners`); elsewhere it is not. Dark pips on a light face are left to the
    confidence floor (a lamp over a dark pip greys it: the classifier is unsure), but for a lamp over the middle
    pip of a 3 or a 5: it hides the pip outright and the face reads 2 or 4 at P up to 0.98, so a face read 2 or 4
    must have a plain middle (`middle_plain`), no darker than the ring around it (`middle_dipped`), and no lighter
    than the face where a higher value has pips (`empty_places_lit`). A lamp over another dark pip is not seen (tune
    looks, seeds 33-34: 4 white dice read a pip or more short) unless it washes the face out there to the camera's
    ceiling (`washed_where_pips_hide`, any value but 5 and 6).
    Looks at the face patch (`face_patch`, given or made here): a spot is brighter than half-way from the face
    colour to the face's brightest 2 %."""
    if patch is None:
        patch = face_patch(frame, die, die_px)
    if patch is None:
        return False
    lum, colour, low = patch.lum, patch.colour, patch.low
    unit, c = FACE_PX / SPAN, FACE_PX // 2
    h = int(0.42 * unit)
    if patch.dark_pips:
        return washed_where_pips_hide(lum, die.value) or die.value in (2, 4) and (
            not middle_plain(lum, colour, low) or middle_dipped(lum, low)
            or empty_places_lit(lum, colour, low, die.value))
    labels, stats, centres = patch.spots  # its bright spots
    inside = [k for k in spots_on_face(stats, centres, (c - h, c + h), (c - int(0.6 * unit), c + int(0.6 * unit)))
              if stats[k, cv2.CC_STAT_AREA] >= 3]
    areas = sorted((int(stats[k, cv2.CC_STAT_AREA]) for k in inside), reverse=True)
    if len(areas) >= 2 and areas[0] > LAMP_BLOB * float(np.median(areas[1:])):
        return True
    if die.value not in (3, 5):
        return False
    spots = Spots(labels, stats, centres, inside)
    return middle_unlike_corners(lum - colour, spots, c, 0.15 * unit) or middle_off_centre(spots, die.value, unit)


_C = FACE_PX // 2
_YY, _XX = np.mgrid[:FACE_PX, :FACE_PX]


def _disc(dx: float, dy: float, radius: float) -> np.ndarray:
    """A disc of the face patch (lamp_in_face's): centre (dx, dy) from the patch's middle, and radius, in die edges."""
    unit = FACE_PX / SPAN
    return (_XX - _C - dx * unit) ** 2 + (_YY - _C - dy * unit) ** 2 <= (radius * unit) ** 2


MIDDLE = _disc(0.0, 0.0, 0.14)  # a middle pip's place in the face patch
AROUND_MIDDLE = _disc(0.0, 0.0, 0.165) & ~_disc(0.0, 0.0, 0.12)  # a ring about it, inside a 6's and a 4's pips
CORNER = 0.27  # die edges from a face's middle to a pip's place along each side: the pips' grid step
DIAGONALS = ((_disc(-CORNER, -CORNER, 0.06), _disc(CORNER, CORNER, 0.06)),
             (_disc(CORNER, -CORNER, 0.06), _disc(-CORNER, CORNER, 0.06)))
# The middles of a face's opposite sides, in pairs, where a 6's middle pips lie.
SIDE_PAIRS = ((_disc(0, -CORNER, 0.06), _disc(0, CORNER, 0.06)), (_disc(-CORNER, 0, 0.06), _disc(CORNER, 0, 0.06)))


def middle_plain(lum: np.ndarray, colour: float, low: float) -> bool:
    """A face patch (`lum`: lamp_in_face's blurred lightness of the face turned square) whose middle is plain face,
    as a 2's or a 4's is: its lightness there varies less than MIDDLE_PLAIN of the face's contrast (`colour`, the
    face, over `low`, its dark pips). A lamp mirrored over a 3's or a 5's middle pip hides the pip but not all of
    it: the pip's rim and the lamp's own image make the middle uneven."""
    return float(lum[MIDDLE].std()) < MIDDLE_PLAIN * max(1.0, colour - low)


def middle_dipped(lum: np.ndarray, low: float) -> bool:
    """A dark-pipped face read 2 or 4 (`lum`, `low` as in `middle_plain`) whose middle is darker than the ring just
    around it (`AROUND_MIDDLE`, its median) by MIDDLE_DIP of the contrast: a pip under a lamp's image there, the lamp
    bright all round it and the pip still greying its middle (tune seed 9995, throw 574: a white 3 read 2 at P 0.983
    under an oval lamp image, a wrong cussec result). A 2's or a 4's middle is plain face, as light as around it or
    lighter (a face darkens towards its edges). A translucent die whose opposite face's middle pip shows through is
    declined too (a 2's opposite is a 5, a 4's a 3)."""
    around = float(np.median(lum[AROUND_MIDDLE]))
    return around - float(lum[MIDDLE].mean()) > MIDDLE_DIP * max(1.0, around - low)


def empty_places_lit(lum: np.ndarray, colour: float, low: float, value: int) -> bool:
    """A dark-pipped face read 2 or 4 (`lum`, `colour`, `low` as in `middle_plain`) lighter than its face by EMPTY_LIT
    of its contrast where it has no pip but a higher value would: its middle, or for a 4 both middles of two opposite
    sides. A lamp's image (a tube lamp's band) lies over pips there and hides them, evenly enough to pass
    `middle_plain` (nineteenth session, unseen seed 439: an ivory 6 read 4 at P 0.996 under a band along its middle,
    a wrong cussec result). A 2's and a 4's face there is plain, as light as the rest. Not seen: a lamp's image over
    most of the face's middle, which then sets `colour` (unseen seed 449: an ivory 5 read 2 at P 0.981)."""
    contrast = max(1.0, colour - low)

    def lit(place: np.ndarray) -> bool:
        return float(lum[place].mean()) - colour > EMPTY_LIT * contrast

    return lit(MIDDLE) or value == 4 and any(lit(a) and lit(b) for a, b in SIDE_PAIRS)


def washed_where_pips_hide(lum: np.ndarray, value: int | None) -> bool:
    """A dark-pipped face (`lum` as in `middle_plain`) washed out (WASHED) at every place where a higher value has the
    pips this one lacks: the camera cannot tell whether dark pips lie under a lamp's image there. A 1 is a 3 or a 5
    with a diagonal washed; a 2 a 3 with its middle, or a 4 (a 5, a 6) with its other diagonal; a 3 a 5 with its other
    diagonal; a 4 a 5 with its middle, or a 6 with two opposite side middles. (A 2's or a 3's pips lie on the darker
    diagonal.) A 5 and a 6 are no higher value with pips hidden."""
    def washed(place: np.ndarray) -> bool:
        return float(lum[place].mean()) >= WASHED

    def pair(places: tuple[np.ndarray, np.ndarray]) -> bool:
        return washed(places[0]) and washed(places[1])

    if value == 1:
        return any(pair(d) for d in DIAGONALS)
    if value == 4:
        return washed(MIDDLE) or any(pair(p) for p in SIDE_PAIRS)
    if value not in (2, 3):
        return False
    shade = [float(lum[a].mean() + lum[b].mean()) for a, b in DIAGONALS]
    empty = DIAGONALS[0] if shade[0] > shade[1] else DIAGONALS[1]
    return pair(empty) or value == 2 and washed(MIDDLE)


def more_pips_than_value(patch: FacePatch | None, value: int | None) -> bool:
    """A face holding more pip-like spots than the value read: the face network counted short. Seen on dice of
    colours neither look split has (tune probe, seed 9999: light saturated bodies with dark pips from the training
    tools' `random_die_style`): a plain cyan 4 read 2 at P 0.998, 29 dice read wrong in 800 throws, every one a 4
    read 2; the count declines 27. Light pips are counted the same way (issue 18's other renderer: red dice with
    light pips, 4s read 2): on our renderer no light-pipped die read wrong has been seen, and the count cost 1 of
    589 and 3 of 872 such dice read right on tune probes (seeds 9996 and 9988). Only more spots, never fewer: a lamp
    greys or hides a pip (the lamp rules' case), and a grey pip alone is no reason to doubt a read."""
    return patch is not None and value is not None and pip_spots(patch) > value


def pip_spots(patch: FacePatch) -> int:
    """How many pip-like spots a face patch holds: darker (dark pips) or lighter (light pips) than half-way from the
    face's colour to its darkest or brightest 2 %, 0.06-0.3 die edges across, at most 2.2 times as long as wide, their
    middles on the face and not reaching past it (a side face's pips, a neighbour's)."""
    unit = FACE_PX / SPAN
    _, stats, centres = patch.spots
    on_face = spots_on_face(stats, centres, (_C - 0.42 * unit, _C + 0.42 * unit), (_C - 0.6 * unit, _C + 0.6 * unit))
    return sum(1 for k in on_face if pip_sized(*stats[k, 2:5], unit))


def spots_on_face(stats: np.ndarray, centres: np.ndarray, middle: tuple[float, float], face: tuple[float, float]
                  ) -> list[int]:
    """The connected components (OpenCV's `stats` and `centres`, label 0 the background) on a face patch's face: the
    middle within the square `middle` (low, high pixels on both axes), and not reaching beyond the square `face`
    (printing on the felt, a neighbour's pips, a side face's pips, a die found off its centre reach out)."""
    (near, far), (lo, hi) = middle, face
    return [k for k, ((x, y, w, h, _), (cx, cy)) in enumerate(zip(stats[1:], centres[1:]), start=1)
            if near <= cx <= far and near <= cy <= far and x >= lo and y >= lo and x + w <= hi and y + h <= hi]


@dataclass(frozen=True, slots=True)
class Spots:
    """The bright spots of a face patch: its connected-component labels, their stats and centres (OpenCV's), and
    which of them lie on the face."""

    labels: np.ndarray
    stats: np.ndarray
    centres: np.ndarray
    on_face: list[int]


def middle_unlike_corners(above: np.ndarray, spots: Spots, c: int, reach: float) -> bool:
    """A light-pipped face read 3 or 5 whose middle spot (within `reach` of the patch centre `c`) is not a pip
    like its corner pips: larger or smaller, brighter or dimmer, or longer — a lamp mirrored in the middle of
    a 2 or a 4 (tune looks, seeds 31-34: the 6 light-pipped dice read 3 or 5 wrong all showed one; of the
    945 read right, 32 were declined, 31 of them with a lamp in the face). Pips alike in a die's face are
    what a pip is; a lamp is not painted to match them."""
    if len(spots.on_face) < 2:
        return False
    shapes = []
    for k in spots.on_face:
        x, y, w, h = spots.stats[k, :4]
        mask = (spots.labels[y:y + h, x:x + w] == k).astype(np.uint8)
        m = cv2.moments(mask, binaryImage=True)
        a = m["m00"]
        mu20, mu02, mu11 = m["mu20"] / a, m["mu02"] / a, m["mu11"] / a
        spread = math.hypot((mu20 - mu02) / 2.0, mu11)
        long, short = (mu20 + mu02) / 2.0 + spread, max((mu20 + mu02) / 2.0 - spread, 1e-3)
        distance = math.hypot(spots.centres[k][0] - c, spots.centres[k][1] - c)
        shapes.append((distance, a, float(above[y:y + h, x:x + w][mask > 0].max()), math.sqrt(long / short)))
    shapes.sort()
    distance, area, peak, elongation = shapes[0]
    if distance > reach:
        return False  # no spot in the middle
    corners = np.array(shapes[1:])
    area_ratio = area / float(np.median(corners[:, 1]))
    peak_ratio = peak / max(float(np.median(corners[:, 2])), 1e-3)
    return (not MIDDLE_AREA[0] <= area_ratio <= MIDDLE_AREA[1] or not MIDDLE_PEAK[0] <= peak_ratio <= MIDDLE_PEAK[1]
            or elongation - float(np.median(corners[:, 3])) > MIDDLE_ELONGATION)


def middle_off_centre(spots: Spots, value: int, unit: float) -> bool:
    """A light-pipped face read 3 or 5, with as many bright spots on it as that, whose middle spot (the one nearest
    their mean) lies more than MIDDLE_OFFSET die edges (`unit` pixels) from the centre of the others: a die's middle
    pip is drilled midway between its corner pips; a lamp's image lies where the lamp's mirror puts it, which the face
    network still reads as a middle pip some way off the middle. Faces with another count of spots are left to the
    other rules."""
    if len(spots.on_face) != value:
        return False
    centres = spots.centres[spots.on_face]
    middle = int(np.argmin(np.hypot(*(centres - centres.mean(axis=0)).T)))
    others = np.delete(centres, middle, axis=0)
    return float(np.hypot(*(centres[middle] - others.mean(axis=0)))) > MIDDLE_OFFSET * unit


def quantile(ordered: np.ndarray, q: float) -> float:
    """np.percentile's linear quantile of values already sorted (np.percentile sorts again: 10x slower here)."""
    at = q * (len(ordered) - 1)
    i = int(at)
    j = min(i + 1, len(ordered) - 1)
    return float(ordered[i] + (ordered[j] - ordered[i]) * (at - i))
