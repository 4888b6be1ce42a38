"""Why a value found is still not a read: checks on each die of a reading against the others, the frame and
the camera model. Each returns True when the die must be declined (`uncertain`); none ever makes a read."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .calibration import Calibration
from .pose import CROWDED, PoseContext, blob_of, flat_pose_at, silhouette
from .reading import Die, Pose
from .throw_track import distance_to_segment

DUPLICATE = 0.95  # die edges: a weaker find of the same value this close to a die is that die seen twice ...
DUPLICATE_SURE = 0.9  # ... unless it is read this surely (a die seen again off its centre is read less surely)
TOO_CLOSE = 0.68  # die edges: a find with two others this close sits between two dice
FLAT_SILHOUETTE = 1.3  # a die alone whose silhouette is this much larger than a flat die's there is not flat
EMPTY_SILHOUETTE = 0.35  # ... and one whose silhouette is this much smaller is no die (the empty table is there)
FLAT_ALONE = 0.75  # a die called flat is read only when the pose network finds it flat this surely ...
LEANING_SILHOUETTE = 1.25  # ... and, when its silhouette is this much larger than a flat die's, ...
SURELY_FLAT_ALONE = 0.97  # ... this surely (cocked and stacked dice of the tune looks sat at 1.27-1.28)
TOUCHING_FLAT = 0.85  # a die touching another is read only when the pose network finds it flat this surely
# Die edges between a die's table position and a wall or the dome's glass: there a cocked die can be held, wedged
# against it and tipped towards the table's middle (vision/synthetic_held.py) ...
AT_WALL = 1.1
AT_WALL_FLAT = 0.9  # ... so a die called flat there is read only when the pose network finds it flat this surely
HEAD_NOT_FLAT = 0.3  # a die the face network's pose head finds flat less surely is declined, pose network or not
STACK_SURE = 0.9  # a die the pose network names stacked less surely than this ...
STACK_SILHOUETTE = 1.15  # ... whose silhouette is under this many times a flat die's there: the dealer's call


def crowded(die: Die, dice: list[Die], die_px: float) -> bool:
    """On a calibrated table the die size is known: two dice lying flat cannot have their centres closer
    than one die edge. A die found within 0.9 edges of another is the side face of a tipped die, or
    part of a pile: never a read (on ordinary photos dice of several sizes lie closer; not applied)."""
    return any(o is not die and float(np.hypot(die.x - o.x, die.y - o.y)) < CROWDED * die_px for o in dice)


def duplicate(die: Die, dice: list[Die], die_px: float) -> bool:
    """A second, weaker find of the same value within DUPLICATE die edges of a die, read less surely than
    DUPLICATE_SURE: the same die seen again off its centre (at its edge). Uncalibrated photos hold dice of
    several sizes side by side (the estimated die size is a median), so a surely read neighbour stays."""
    return die.confidence < DUPLICATE_SURE and any(
        o is not die and o.value == die.value and o.confidence > die.confidence
        and float(np.hypot(die.x - o.x, die.y - o.y)) < DUPLICATE * die_px for o in dice)


def not_dice_of_their_own(dice: list[Die], die_px: float) -> set[int]:
    """Uncalibrated photos: the finds that cannot be dice of their own. A find with two others closer than
    TOO_CLOSE die edges sits between two dice (its crop shows half of each: two halves of a 4 look like a 4);
    a weaker find of the same value at a die's edge is that die again (`duplicate`). Two finds that close
    can be two small dice (photos hold dice of several sizes; the die size is a median): both are kept."""
    between = {i for i, d in enumerate(dice)
               if sum(float(np.hypot(d.x - o.x, d.y - o.y)) < TOO_CLOSE * die_px for o in dice if o is not d) >= 2}
    return between | {i for i, d in enumerate(dice) if duplicate(d, dice, die_px)}


def stack_unsure(p_stacked: float, ratio: float | None) -> bool:
    """A die the pose network names stacked, but not surely, whose silhouette is hardly larger than a flat die's
    there (an upper die stands one die edge higher: its sides and the lower die's widen it). The two disagree:
    the die is declined, not named stacked, so a flat die taken for a stack costs a dealer's read, not a valid
    throw voided `stacked` (issue 18; chosen on tune looks, seed 9221: 21 of 36 flat dice named stacked are here,
    3 of 191 upper dice of stacks). A stack the silhouette cannot be told for (None: a die beside it) stays."""
    return p_stacked < STACK_SURE and ratio is not None and ratio < STACK_SILHOUETTE


def not_surely_flat(lie: Pose, p_flat: float | None, ratio: float | None, wall: bool = False) -> bool:
    """A die called flat or touching that may be tipped: the pose network is unsure it is flat, or only fairly
    sure while its silhouette is larger than a flat die's there (a cocked die against a wall, or the upper
    die of a stack, whose sides and the lower die's widen it), or while it lies at a wall (`wall`: `at_wall`).
    Declined: a dealer's read is slower, a wrong published result is worse. Without the pose network nothing is
    said (uncalibrated photos)."""
    return p_flat is not None and p_flat < flat_needed(lie, ratio, wall)


def flat_needed(lie: Pose, ratio: float | None, wall: bool = False) -> float:
    """The P(flat) the pose network must give a die of this lie and silhouette ratio (and at a wall, `wall`) for it
    to be read (0.0: nothing needed, a lie `not_surely_flat` says nothing of)."""
    if lie is Pose.TOUCHING:
        needed = TOUCHING_FLAT
    elif lie is Pose.FLAT:
        needed = SURELY_FLAT_ALONE if ratio is not None and ratio > LEANING_SILHOUETTE else FLAT_ALONE
    else:
        return 0.0
    return max(needed, AT_WALL_FLAT) if wall else needed


def at_wall(table_xy: tuple[float, float] | None, calibration: Calibration) -> bool:
    """The die lies where a wall or the dome's glass can hold a cocked die: its table position (where its top face's
    middle is seen on the felt) within AT_WALL die edges of one. A cube tipped under 45 degrees falls back flat
    unless something holds its raised edge; a wall holds it wedged, tipped towards the table's middle, and over the
    felt's middle the camera then sees its top face head-on (chosen on tune looks: docs/vision.md, thirtieth
    session)."""
    if table_xy is None:
        return False
    layout = calibration.layout
    reach = AT_WALL * layout.die_mm
    if layout.dome is not None:
        (cx, cy), r = layout.dome
        if r - math.hypot(table_xy[0] - cx, table_xy[1] - cy) <= reach:
            return True
    return any(distance_to_segment(table_xy, w) <= reach for w in layout.walls)


def partial(die: Die, width: int, height: int) -> bool:
    """A die whose face runs off the frame is only partly seen."""
    return any(not (0.0 <= x < width and 0.0 <= y < height) for x, y in die.outline)


def silhouette_ratio(die: Die, ctx: PoseContext) -> float | None:
    """A die alone in its blob: its silhouette's area over the outline a flat die would have there under the
    calibrated camera (its top face and the sides perspective shows). None when it cannot be told (no camera
    height, no empty-table frame to leave shadows out, or other dice in the blob)."""
    cal: Calibration | None = ctx.calibration
    if cal is None or cal.camera is None or ctx.background is None or not die.outline:
        return None
    blob = blob_of(die, ctx.fg)
    if blob is None:
        return None
    b = ctx.fg.blobs[blob]
    if b.area > 4.0 * ctx.fg.die_size ** 2:
        return None  # several dice, or a die with a neighbour
    mask, _ = silhouette(ctx, blob)
    (x0, y0), (x1, y1) = die.outline[0], die.outline[1]
    pose = flat_pose_at(die.x, die.y, math.atan2(y1 - y0, x1 - x0), cal)
    hull = cv2.convexHull(cal.camera.project(pose.corners(cal.layout.die_mm)).astype(np.float32))
    return float(np.count_nonzero(mask)) / max(cv2.contourArea(hull), 1.0)
