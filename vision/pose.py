"""How each die lies: flat, touching, cocked, stacked or overlapping, from the silhouette seen.

With a calibrated camera of known height the silhouette of every group of touching dice is fitted
in 3D (pose_fit): flat dice first; if flat dice do not explain it, a die tipped on an edge (cocked),
a die on another (stacked) or a die leaning on its neighbour (overlapping). Without that camera
only `touching` is told (dice sharing one blob). Blobs no die explains are kept as `Blob`s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .calibration import Calibration
from .die_finder import Foreground, foreground_score
from .pose_fit import DiePose, Fit, SilhouetteFitter
from .reading import Blob, Die, Pose

CROWDED = 0.9  # die edges: flat dice lie at least 1 apart; a find this close to another is not a die of its own
# A blob larger than the dice found in it explain (die faces of silhouette: each die up to OBJECT_PER_DIE, a flat
# die's sides and rim included, plus OBJECT_MARGIN) holds something else they lie against: kept as an "object". On
# the tune looks (seed 8300, 400 throws) a blob of one die reached 4.7 (a stacked or overlapping pair), of two 5.1.
OBJECT_PER_DIE = 2.5
OBJECT_MARGIN = 1.5
FLAT_OK = 0.86  # a flat-die explanation this good is accepted without trying others
BETTER_BY = 0.04  # another explanation must beat the flat one by this much
SILHOUETTE_LEVEL = 40  # foreground score of a die pixel at full resolution


@dataclass(slots=True)
class PoseContext:
    frame: np.ndarray
    fg: Foreground
    calibration: Calibration | None
    background: np.ndarray | None
    background_lab: np.ndarray | None = None  # the background in Lab, when the reader keeps it converted


def blob_of(die: Die, fg: Foreground) -> int | None:
    """Index of the foreground blob whose contour holds the die centre."""
    for i, b in enumerate(fg.blobs):
        if abs(die.x - b.x) <= b.w / 2 + 1 and abs(die.y - b.y) <= b.h / 2 + 1:
            if cv2.pointPolygonTest(b.contour, (float(die.x), float(die.y)), False) >= 0:
                return i
    return None


def top_faces(window: np.ndarray, mask: np.ndarray, die_px: float) -> np.ndarray | None:
    """The brightest, face-lit parts of the silhouette (light from above): the top faces."""
    if not mask.any():
        return None
    value = window.max(axis=2)
    level, _ = cv2.threshold(value[mask > 0].reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    top = ((value > level) & (mask > 0)).astype(np.uint8)
    k = max(3, int(0.25 * die_px) | 1)
    top = cv2.morphologyEx(top, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(top)
    cv2.drawContours(filled, [c for c in contours if cv2.contourArea(c) >= 0.2 * die_px ** 2], -1, 1, -1)
    return filled & (mask > 0)


def silhouette(ctx: PoseContext, blob: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The blob's silhouette at full resolution (shadows left out when the empty table is known)."""
    b = ctx.fg.blobs[blob]
    pad = 0.6 * ctx.fg.die_size
    h, w = ctx.frame.shape[:2]
    x0, y0 = max(0, int(b.x - b.w / 2 - pad)), max(0, int(b.y - b.h / 2 - pad))
    x1, y1 = min(w, int(b.x + b.w / 2 + pad) + 1), min(h, int(b.y + b.h / 2 + pad) + 1)
    if ctx.background is None:
        s = ctx.fg.scale
        small = ctx.fg.mask[int(y0 * s):int(np.ceil(y1 * s)), int(x0 * s):int(np.ceil(x1 * s))]
        return cv2.resize(small, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR), (x0, y0)
    lab = cv2.cvtColor(ctx.frame[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)
    bg = (cv2.cvtColor(ctx.background[y0:y1, x0:x1], cv2.COLOR_BGR2LAB) if ctx.background_lab is None
          else ctx.background_lab[y0:y1, x0:x1].copy())
    gain = float(np.median(ring_of(lab[..., 0]))) / max(float(np.median(ring_of(bg[..., 0]))), 1.0)
    bg[..., 0] = np.clip(bg[..., 0] * gain, 0, 255).astype(np.uint8)
    score = foreground_score(lab, bg, relight=False)
    mask = (score > SILHOUETTE_LEVEL).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    big = [c for c in contours if cv2.contourArea(c) >= 0.25 * ctx.fg.die_size ** 2]
    cv2.drawContours(filled, big, -1, 1, -1)
    return filled, (x0, y0)


def ring_of(plane: np.ndarray) -> np.ndarray:
    """The pixels of a plane's outer two rows and columns (all of it when it is that small)."""
    if min(plane.shape) <= 4:
        return plane.ravel()
    return np.concatenate([plane[:2].ravel(), plane[-2:].ravel(), plane[2:-2, :2].ravel(), plane[2:-2, -2:].ravel()])


def initial_pose(die: Die, cal: Calibration) -> DiePose:
    """Where a flat die would be whose top face is centred where the die was seen."""
    a = math.atan2(die.outline[1][1] - die.outline[0][1], die.outline[1][0] - die.outline[0][0]) if die.outline else 0.0
    return flat_pose_at(die.x, die.y, a, cal)


def flat_pose_at(x: float, y: float, angle: float, cal: Calibration) -> DiePose:
    """The flat die whose top face is centred at pixel (x, y), its edge at `angle` radians in the image."""
    cam = cal.camera
    top = cal.layout.die_mm

    def on_plane(u: float, v: float, z: float) -> np.ndarray:
        ray = cam.pixel_to_ray @ np.array([u, v, 1.0])
        t = (z - cam.position[2]) / ray[2]
        return cam.position + t * ray

    c = on_plane(x, y, top)
    p = on_plane(x + 10 * math.cos(angle), y + 10 * math.sin(angle), top)
    return DiePose(float(c[0]), float(c[1]), math.atan2(p[1] - c[1], p[0] - c[0]))


def top_centre_px(pose: DiePose, cal: Calibration) -> tuple[float, float]:
    """Where the centre of a flat die's top face is seen in the image."""
    u, v = cal.camera.project(np.array([[pose.x, pose.y, pose.base + cal.layout.die_mm]]))[0]
    return float(u), float(v)


def fit_group(fitter: SilhouetteFitter, group: list[Die], cal: Calibration) -> tuple[Fit, int | None]:
    """The best explanation of a group of dice; and which die is tipped (cocked/leaning), if any."""
    poses = [initial_pose(d, cal) for d in group]
    flat = fitter.fit_flat(poses)
    if flat.iou >= FLAT_OK:
        return flat, None
    best, tipped = flat, None
    if len(group) == 1:
        cocked = fitter.fit_tilted(list(flat.poses), 0, "cocked", (10, 15, 20, 26, 32, 38, 44))
        stacked = fitter.fit_stacked(flat.poses[0])
        for fit in (cocked, stacked):
            if fit.iou > best.iou + BETTER_BY and fit.iou > best.iou:
                best, tipped = fit, 0
    else:
        for i in range(len(group)):
            leaning = fitter.fit_tilted(list(flat.poses), i, "leaning", (15, 22, 29, 36, 43))
            if leaning.iou > best.iou + BETTER_BY and leaning.iou > best.iou:
                best, tipped = leaning, i
    return best, tipped


def assign_poses(dice: list[Die], ctx: PoseContext, learned: list[Pose | None] | None = None
                 ) -> tuple[list[Die], list[Blob]]:
    """Set each die's `lie` (from the learned pose head when given, else the 3D fit when the camera
    is known); keep die-sized blobs no die explains (`unread`), and blobs larger than their dice explain
    (`object`: the dice lie against something that is not a die)."""
    fg, cal = ctx.fg, ctx.calibration
    owners = [blob_of(d, fg) for d in dice]
    out = list(dice)
    groups: dict[int, list[int]] = {}
    for i, o in enumerate(owners):
        # A die outside every blob is a group of its own (key below 0).
        groups.setdefault(o if o is not None else -1 - i, []).append(i)
    for blob, members in groups.items():
        lies = {i: Pose.TOUCHING if any(j != i and np.hypot(dice[i].x - dice[j].x, dice[i].y - dice[j].y)
                                        < 1.45 * fg.die_size for j in members) else Pose.FLAT for i in members}
        if learned and all(learned[i] is not None for i in members):
            for i in members:
                if learned[i] is not Pose.FLAT:
                    lies[i] = learned[i]
                    gaps = [np.hypot(dice[i].x - o.x, dice[i].y - o.y) / fg.die_size
                            for j, o in enumerate(dice) if j != i]
                    if lies[i] is Pose.OVERLAPPING and all(g >= 1.6 for g in gaps):
                        lies[i] = Pose.COCKED  # tipped, but with no die beside it to lean on
                    # A find closer than CROWDED is the die's own side face (never a read), not a die.
                    if lies[i] is Pose.COCKED and any(CROWDED <= g < 1.45 for g in gaps):
                        lies[i] = Pose.OVERLAPPING  # tipped against the die beside it: it leans on it
            for i in members:
                out[i] = replace(out[i], lie=lies[i])
            continue
        if cal is not None and cal.camera is not None and blob >= 0:
            mask, origin = silhouette(ctx, blob)
            window = ctx.frame[origin[1]:origin[1] + mask.shape[0], origin[0]:origin[0] + mask.shape[1]]
            top = top_faces(window, mask, fg.die_size) if ctx.background is not None else None
            fitter = SilhouetteFitter(cal.camera, cal.layout.die_mm, mask, origin, top)
            fit, tipped = fit_group(fitter, [dice[i] for i in members], cal)
            if fit.kind == "cocked":
                lies[members[0]] = Pose.COCKED
            elif fit.kind == "stacked":
                lies[members[0]] = Pose.STACKED
            elif fit.kind == "leaning" and tipped is not None:
                lies[members[tipped]] = Pose.OVERLAPPING
            for k, i in enumerate(members):
                tilt = math.degrees(fit.poses[k].tilt) if k < len(fit.poses) and fit.kind != "stacked" else 0.0
                out[i] = replace(out[i], lie=lies[i], tilt_deg=round(tilt, 1))
            continue
        for i in members:
            out[i] = replace(out[i], lie=lies[i])
    blobs = []
    d = fg.die_size
    for i, b in enumerate(fg.blobs):
        found = len(groups.get(i, ()))  # the dice found in this blob
        if found and b.area > (OBJECT_PER_DIE * found + OBJECT_MARGIN) * d * d:
            why = "object"
        elif found or not 0.4 * d * d <= b.area <= 4.0 * d * d:
            continue
        else:
            why = "unread"
        table_xy = cal.to_table(b.x, b.y) if cal is not None else None
        blobs.append(Blob(b.x, b.y, b.w, b.h, why, table_xy))
    return out, blobs


SETTLE_BELOW = 0.95  # dice seen closer than this many die edges are checked against flat dice side by side
SETTLE_OK = 0.80  # flat dice explaining the silhouette this well are re-centred (the pose network then checks)
# A pair's other starting points (`starts_apart`) are tried only when the fit from where the dice were seen reaches
# this. On the fits of tune rigs 500-523 (240 reads of touching dice) the first fit of a pair was either 0.51-0.64, and
# its other starts then gained at most 0.04 (never near SETTLE_OK: the blob is not flat dice side by side), or
# 0.70 and more (gaining up to 0.17: those keep their other starts). The hopeless ones cost two fits for nothing.
# (Measured with the top faces in the score. Scored on the silhouette alone, since 2026-11-28, the same reads' first
# fits were 0.69 and more, 81 of 84 at FLAT_OK: 3 reads tried other starts, against 10 before.)
STARTS_WORTH = 0.65


def settle_touching(ctx: PoseContext, seen: list[tuple[float, float, float, int]]
                    ) -> tuple[dict[int, tuple[float, float]], set[int]]:
    """Where dice that touch really are. The reader centres a die from a crop that also shows its
    neighbour, which pulls two touching dice towards each other, closer than flat dice can lie (or finds
    one die twice). When flat dice side by side explain their blob's silhouette, their top-face centres
    are taken from that fit. `seen`: (x, y, angle in degrees, blob) per die; returns the settled centres
    by index, and the indices found twice (a die the fit explains without). Dice whose blob flat dice do
    not explain, a tipped die or a pile, are left where they were seen. A pair leaning on each other can
    be explained nearly as well: the reader reads a settled die only when the pose network also finds
    it flat."""
    cal = ctx.calibration
    if cal is None or cal.camera is None:
        return {}, set()
    by_blob: dict[int, list[int]] = {}
    for i, (_, _, _, blob) in enumerate(seen):
        if blob >= 0:
            by_blob.setdefault(blob, []).append(i)
    die = ctx.fg.die_size
    near = lambda i, j: too_close_for_flat(seen[i][:2], seen[j][:2], die)  # noqa: E731
    out: dict[int, tuple[float, float]] = {}
    twice: set[int] = set()
    for blob, members in by_blob.items():
        if not any(near(i, j) for k, i in enumerate(members) for j in members[k + 1:]):
            continue
        mask, origin = silhouette(ctx, blob)
        # The silhouette alone, not the top faces too (`top_faces`): on light-pipped coloured dice the brightest
        # parts are the pips, side faces' included, and a "top" spanning the sides pulled the fit off the dice.
        fitter = SilhouetteFitter(cal.camera, cal.layout.die_mm, mask, origin)
        options = fit_options(members, seen, near)
        best, kept = None, members
        for option in options:
            start = [flat_pose_at(seen[i][0], seen[i][1], math.radians(seen[i][2]), cal) for i in option]
            for k, trial in enumerate(starts_apart(start, cal.layout.die_mm)):
                fit = fitter.fit_flat(trial)
                if best is None or fit.iou > best.iou:
                    best, kept = fit, option
                if best.iou >= FLAT_OK:
                    break  # explained plainly: the other starting points cannot do much better
                if k == 0 and fit.iou < STARTS_WORTH:
                    break  # not flat dice side by side: the other starting points cannot reach SETTLE_OK either
            if best.iou >= FLAT_OK:
                break
        if best.iou < SETTLE_OK:
            continue
        for i, pose in zip(kept, best.poses):
            if any(near(i, j) for j in members if j != i):  # a die in the blob but apart stays as it was read
                out[i] = top_centre_px(pose, cal)
        twice |= set(members) - set(kept)
    return out, twice


def fit_options(members: list[int], seen: list[tuple[float, float, float, int]], near) -> list[list[int]]:
    """The sets of a blob's finds to fit as flat dice, in the order tried (the first explained plainly is kept).
    Two finds: both. Three or more with some close to another: without each find close to another (found twice),
    the find nearest another first (the likelier second look at one die), then every find as found. On tune
    seeds 60 and 62 (800 throws, the top faces then in the score) no blob of three finds was explained plainly by
    all three (at most 0.79); in the speed bench's slowest craps frame (rig of seed 1) the fit of all three and of
    the pair keeping both looks at one die cost four fits before the right pair."""
    if len(members) < 3:
        return [members]

    def gap(k: int) -> float:  # pixels from find k to the nearest other find of the blob
        return min(math.hypot(seen[k][0] - seen[j][0], seen[k][1] - seen[j][1]) for j in members if j != k)

    doubles = sorted((k for k in members if any(near(k, j) for j in members if j != k)), key=gap)
    return [[i for i in members if i != k] for k in doubles] + [members]


def too_close_for_flat(a: tuple[float, float], b: tuple[float, float], die: float) -> bool:
    """Two dice seen (pixels) closer than flat dice side by side can lie: what the fit of touching dice looks at."""
    return bool(np.hypot(a[0] - b[0], a[1] - b[1]) < SETTLE_BELOW * die)


def starts_apart(poses: list[DiePose], die_mm: float) -> list[list[DiePose]]:
    """Starting points for fitting dice seen too close: as seen; and, for a pair, pushed apart to one die
    edge along the line between them, with their own turn and turned square to that line."""
    if len(poses) != 2:
        return [poses]
    a, b = poses
    gap = math.hypot(b.x - a.x, b.y - a.y)
    if gap >= 1.02 * die_mm or gap == 0.0:
        return [poses]
    ux, uy = (b.x - a.x) / gap, (b.y - a.y) / gap
    push = 0.5 * (1.02 * die_mm - gap)
    a2 = a._replace(x=a.x - push * ux, y=a.y - push * uy)
    b2 = b._replace(x=b.x + push * ux, y=b.y + push * uy)
    line = math.atan2(uy, ux)
    return [poses, [a2, b2], [a2._replace(yaw=line), b2._replace(yaw=line)]]
