"""Fit 3D die poses to the silhouette seen by a calibrated camera: flat, cocked, stacked or leaning.

The camera (from the calibration and its height) predicts the outline of a die in any pose: the
convex hull of its eight projected corners. For each group of touching dice, the fitter compares
the observed silhouette with the outlines of competing explanations and keeps the one that covers
it best (intersection over union). A flat die is always tried first and kept when it explains the
silhouette well; the costlier hypotheses are only searched when it does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product
from typing import NamedTuple

import cv2
import numpy as np

from .camera_model import PinholeCamera
from .die_geometry import UNIT_CORNERS

TOP_CORNERS = np.nonzero(UNIT_CORNERS[:, 2] > 0)[0]
# The moves a coordinate search tries from a pose, in steps of (x, y, yaw): all 26 neighbours, or the 6 along the axes.
ALL_MOVES = tuple(m for m in product((-1, 0, 1), repeat=3) if m != (0, 0, 0))
AXIS_MOVES = ((-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1))


class DiePose(NamedTuple):
    """A die on the table: centre (mm), yaw and tilt (radians), the edge it rests on, its base height.

    A named tuple: the fit keeps its scores under tuples of poses and asks for them tens of thousands of
    times a read; a tuple's hash is computed in C (a frozen dataclass's, in Python, took a tenth of the
    fit's profiled time)."""

    x: float
    y: float
    yaw: float
    tilt: float = 0.0
    edge: int = 0  # which bottom edge it is tipped over (0-3)
    base: float = 0.0  # height of its lowest corner (a die on another die: one die edge)

    def corners(self, size: float) -> np.ndarray:
        return corners_of([self], size)[0]

    def moved(self, dx: float, dy: float, dyaw: float) -> "DiePose":
        return DiePose(self.x + dx, self.y + dy, self.yaw + dyaw, self.tilt, self.edge, self.base)


def corners_of(poses: list[DiePose], size: float, turned: dict | None = None) -> np.ndarray:
    """The eight corners (mm) of each pose, (N, 8, 3), computed for the whole batch at once (the fit
    asks for the outlines of a die's neighbouring poses together). Element by element, no matrix
    product: a pose's corners are the same numbers whether it is asked for alone or in a batch. The turn of
    the corners about the centre is worked out once for each orientation (a search's neighbouring poses
    share their yaws), and kept in `turned` when given (one die size per dict: the fitter's)."""
    turned = {} if turned is None else turned
    keys = [(p.yaw, p.tilt, p.edge) for p in poses]
    new = list(dict.fromkeys(k for k in keys if k not in turned))
    if new:
        rots = np.array([tipped_rotation(yaw, tilt, yaw + edge * math.pi / 2) if tilt else flat_rotation(yaw)
                         for yaw, tilt, edge in new])
        u = UNIT_CORNERS * (size / 2.0)
        local = (rots[:, None, :, 0] * u[None, :, 0, None] + rots[:, None, :, 1] * u[None, :, 1, None]
                 + rots[:, None, :, 2] * u[None, :, 2, None])
        for key, corners, low in zip(new, local, local[:, :, 2].min(axis=1).tolist()):
            turned[key] = (corners, low)
    local = np.array([turned[k][0] for k in keys])
    lift = [p.base - turned[k][1] for p, k in zip(poses, keys)]
    centres = np.array([[p.x, p.y, z] for p, z in zip(poses, lift)])
    return local + centres[:, None, :]


def pixels_of(camera: PinholeCamera, points: np.ndarray) -> np.ndarray:
    """camera.project for an (..., 3) array of table points. Each point's three products are summed on their own
    (a broadcast product summed over its last axis, not a matrix product: see corners_of), so its pixels are the
    same numbers alone or in a batch; the same numbers too as the nine products and six sums written out before
    (2026-11-29: bit for bit on 8,960 values of random batches), in a third of the time."""
    c = ((points - camera.position)[..., None, :] * camera.rotation).sum(axis=-1)
    return c[..., :2] / c[..., 2:] * camera.focal_px + (camera.width / 2.0, camera.height / 2.0)


def flat_rotation(yaw: float) -> list[list[float]]:
    c, s = math.cos(yaw), math.sin(yaw)
    return [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]


def tipped_rotation(yaw: float, tilt: float, towards: float) -> np.ndarray:
    """Same as resting_rotation(1, yaw, tilt, towards), without the general face alignment (fast path)."""
    c, s = math.cos(yaw), math.sin(yaw)
    r = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    if tilt:
        ax, ay = -math.sin(towards), math.cos(towards)
        k = np.array([[0.0, 0.0, ay], [0.0, 0.0, -ax], [-ay, ax, 0.0]])
        r = (np.eye(3) + math.sin(tilt) * k + (1 - math.cos(tilt)) * (k @ k)) @ r
    return r


@dataclass(frozen=True, slots=True)
class Fit:
    kind: str  # flat, cocked, stacked, leaning
    iou: float
    poses: tuple[DiePose, ...]


class SilhouetteFitter:
    """Scores die poses against an observed silhouette (a binary window of the frame)."""

    def __init__(self, camera: PinholeCamera, die_mm: float, silhouette: np.ndarray, origin: tuple[int, int],
                 top: np.ndarray | None = None) -> None:
        self.camera = camera
        self.die = die_mm
        self.seen = (silhouette > 0).astype(np.uint8)
        self.seen_area = cv2.countNonZero(self.seen)
        # No top face told apart (dark dice whose faces are no brighter than their sides): silhouette only.
        self.top_seen = None if top is None or not top.any() else (top > 0).astype(np.uint8)
        self.top_area = 0 if self.top_seen is None else cv2.countNonZero(self.top_seen)
        self.origin = np.array(origin, np.float64)
        self.canvas = np.zeros(silhouette.shape, np.uint8)
        self.top_canvas = np.zeros(silhouette.shape, np.uint8)
        self._scores: dict[tuple[DiePose, ...], float] = {}
        self._outlines: dict[DiePose, tuple[np.ndarray, np.ndarray | None]] = {}
        self._footprints: dict[DiePose, np.ndarray] = {}
        self._pairs: dict[tuple[DiePose, DiePose], float] = {}  # interpenetration's, by pair
        self._turned: dict = {}  # corners_of's turned corners, by orientation

    def outlines(self, pose: DiePose) -> tuple[np.ndarray, np.ndarray | None]:
        """The die's outline (hull of its projected corners) and its top face's (the die's own +z face,
        the most exposed below 45 degrees of tilt; None when no top face was told apart, as it is then never
        compared), in 1/4 pixels of the window; one projection for both, kept for the fit (a search moves one
        die at a time: the others' outlines are asked for again)."""
        hulls = self._outlines.get(pose)
        if hulls is None:
            self.prepare([pose])
            hulls = self._outlines[pose]
        return hulls

    def prepare(self, poses: list[DiePose]) -> None:
        """Project the outlines of several poses in one batch (those not already kept)."""
        new = [p for p in dict.fromkeys(poses) if p not in self._outlines]
        if not new:
            return
        corners = corners_of(new, self.die, self._turned)
        quarter = np.round((pixels_of(self.camera, corners) - self.origin) * 4).astype(np.int32)
        for pose, q in zip(new, quarter):
            top = None if self.top_seen is None else cv2.convexHull(q[TOP_CORNERS])
            self._outlines[pose] = (cv2.convexHull(q), top)

    def iou(self, poses: tuple[DiePose, ...]) -> float:
        """Intersection over union of the poses' outlines with the silhouette, less a penalty for
        dice that would have to pass through each other (two dice flat on the felt cannot overlap).
        The searches ask for the same poses again and again: each answer is kept for the fit."""
        score = self._scores.get(poses)
        if score is None:
            score = self._scores[poses] = self._iou(poses)
        return score

    def _iou(self, poses: tuple[DiePose, ...]) -> float:
        hulls = [self.outlines(p) for p in poses]
        score = self.overlap(self.canvas, [outline for outline, _ in hulls], self.seen, self.seen_area)
        if self.top_seen is not None:
            tops = self.overlap(self.top_canvas, [top for _, top in hulls], self.top_seen, self.top_area)
            score = 0.5 * score + 0.5 * tops
        return score - 2.0 * self.interpenetration(poses)

    @staticmethod
    def overlap(canvas: np.ndarray, hulls: list[np.ndarray], seen: np.ndarray, seen_area: int) -> float:
        """Intersection over union of the filled hulls with `seen` (both 0/1 masks of the window)."""
        canvas.fill(0)
        for hull in hulls:
            cv2.fillConvexPoly(canvas, hull, 1, cv2.LINE_8, shift=2)
        inter = cv2.countNonZero(cv2.bitwise_and(canvas, seen))
        union = seen_area + cv2.countNonZero(canvas) - inter
        return inter / union if union else 0.0

    def interpenetration(self, poses: tuple[DiePose, ...]) -> float:
        """Footprint overlap (in die faces) of dice lying flat at the same height. A search moves one die at a
        time: each pair's share is kept for the fit (a pair apart adds 0.0, which leaves the sum as it is)."""
        flat = [p for p in poses if p.tilt == 0.0]
        total = 0.0
        pairs = self._pairs
        for i, a in enumerate(flat):
            for b in flat[i + 1:]:
                share = pairs.get((a, b))
                if share is None:
                    share = pairs[(a, b)] = self.pair_overlap(a, b)
                total += share
        return total

    def pair_overlap(self, a: DiePose, b: DiePose) -> float:
        """Two flat dice's footprint overlap in die faces, less the 0.03 a fit may leave (0.0 when apart)."""
        if a.base != b.base or math.hypot(a.x - b.x, a.y - b.y) >= 1.42 * self.die:
            return 0.0
        area, _ = cv2.intersectConvexConvex(self.footprint(a), self.footprint(b))
        return max(0.0, area / self.die ** 2 - 0.03)

    def footprint(self, p: DiePose) -> np.ndarray:
        square = self._footprints.get(p)
        if square is None:
            h = self.die / 2.0
            ch, sh = math.cos(p.yaw) * h, math.sin(p.yaw) * h
            # The corners (x + c*u - s*v, y + s*u + c*v) at (u, v) = (-h, -h), (h, -h), (h, h), (-h, h), with
            # c*h and s*h worked out once (the same numbers: a sign flip is exact).
            square = self._footprints[p] = np.array(
                [(p.x - ch + sh, p.y - sh - ch), (p.x + ch + sh, p.y + sh - ch),
                 (p.x + ch - sh, p.y + sh + ch), (p.x - ch - sh, p.y - sh + ch)], np.float32)
        return square

    def refine(self, poses: list[DiePose], i: int, step_mm: float, step_yaw: float, rounds: int = 2,
               moves: tuple[tuple[int, int, int], ...] = ALL_MOVES) -> float:
        """Coordinate search of die i's position and yaw, the others fixed; returns the best IoU. Each round
        tries the `moves` in turn, going on from each that scores better; a round without one halves the steps."""
        best = self.iou(tuple(poses))
        for _ in range(rounds):
            improved = False
            p = poses[i]
            steps = [(a * step_mm, b * step_mm, c * step_yaw) for a, b, c in moves]
            trials = [p.moved(*s) for s in steps]  # trials[k]: p moved by steps[k]
            self.prepare(trials)
            for k in range(len(steps)):
                poses[i] = trials[k]
                score = self.iou(tuple(poses))
                if score > best + 1e-6:
                    best, p, improved = score, poses[i], True
                    # The rest are tried from here, and all of them next round if none of the rest is better.
                    trials = [p.moved(*s) for s in steps]
                    self.prepare(trials)
            poses[i] = p
            if not improved:
                step_mm, step_yaw = step_mm / 2, step_yaw / 2
        return best

    def fit_flat(self, poses: list[DiePose]) -> Fit:
        """Flat dice moved one at a time to fit the silhouette. Along the axes, four rounds: on the fits of 144
        reads of touching dice (tune looks) as good as all 26 neighbours in two rounds (IoU 0.813 against 0.801),
        in half the time."""
        poses = [p._replace(tilt=0.0, base=0.0) for p in poses]
        score = 0.0
        for _ in range(2):
            for i in range(len(poses)):
                score = self.refine(poses, i, 0.12 * self.die, math.radians(6), rounds=4, moves=AXIS_MOVES)
        return Fit("flat", score, tuple(poses))

    def fit_tilted(self, poses: list[DiePose], i: int, kind: str, tilts: tuple[float, ...]) -> Fit:
        """Die i tipped over one of its edges by one of `tilts` (degrees), the others as given."""
        best = Fit(kind, -np.inf, tuple(poses))
        base = poses[i]
        for tilt, edge in product(tilts, range(4)):
            trial = list(poses)
            a = base.yaw + edge * math.pi / 2
            # Tipping over an edge moves the centre towards that edge.
            shift = 0.5 * self.die * (1 - math.cos(math.radians(tilt)))
            trial[i] = base._replace(tilt=math.radians(tilt), edge=edge, x=base.x + shift * math.cos(a),
                                     y=base.y + shift * math.sin(a))
            score = self.iou(tuple(trial))
            if score > best.iou:
                best = Fit(kind, score, tuple(trial))
        trial = list(best.poses)
        score = self.refine(trial, i, 0.1 * self.die, math.radians(5))
        return Fit(kind, score, tuple(trial))

    def fit_stacked(self, top: DiePose) -> Fit:
        """A flat die (`top`, on another die) over a flat die whose corners show around it."""
        upper = top._replace(base=self.die, tilt=0.0)
        best = Fit("stacked", -np.inf, (upper, top._replace(base=0.0)))
        for dyaw, (dx, dy) in product(np.radians([15, 30, 45, 60, 75]),
                                      [(0, 0), (0.15, 0), (-0.15, 0), (0, 0.15), (0, -0.15)]):
            lower = top._replace(x=top.x + dx * self.die, y=top.y + dy * self.die, yaw=top.yaw + dyaw, base=0.0)
            score = self.iou((upper, lower))
            if score > best.iou:
                best = Fit("stacked", score, (upper, lower))
        trial = list(best.poses)
        score = self.refine(trial, 1, 0.08 * self.die, math.radians(8))
        score = max(score, self.refine(trial, 0, 0.06 * self.die, math.radians(4)))
        return Fit("stacked", score, tuple(trial))
