"""`DiceReader`: a frame (+ optional calibration) -> a `Reading` of every die's top face, pose and confidence.

Flow: foreground and candidate centres (die_finder) -> each candidate's face read by the learned
classifier (face_classifier, when weights are present) and by the classical pip reader (pip_reader)
-> one die per place (suppression of duplicates) -> pose from the geometry (pose) -> whether each value is
a read, and if not why (read_decisions) -> `Reading`.
A die is reported with a value as a read only when the readers are sure; otherwise its pose is
`uncertain`. That is how the rate of confident misreads is kept low.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .blur_check import image_blurred
from .calibration import Calibration
from .die_finder import Background, Foreground, find_foreground
from .errors import ImageError
from .face_classifier import DEFAULT_WEIGHTS, FaceClassifier
from .face_crops import CROP_PX, crop, crop_matrix
from .pose_net import DEFAULT_POSE_WEIGHTS, PoseNet, View
from .pip_reader import FACE_PX, SPAN, FaceRead, dominant_angle, read_face
from .pose import PoseContext, assign_poses, settle_touching, too_close_for_flat
from .lamp_spots import LampSpots
from .read_checks import HEAD_NOT_FLAT, not_dice_of_their_own
from .read_decisions import ReadDecisions
from .reading import Die, Pose, Reading


@dataclass(frozen=True, slots=True)
class ReaderSettings:
    """Thresholds of the reader; the defaults were chosen on the development split only."""

    work_width: int = 640  # the foreground is found on a copy this wide
    die_threshold: float = 0.5  # classifier: P(a die is centred here) to keep a candidate
    net_confidence: float = 0.7  # classifier: P(value) to call the value a read
    pip_confidence: float = 0.6  # classical reader: confidence to call the value a read
    agree_confidence: float = 0.5  # both readers agree: classifier P(value) enough for a read
    tipped_confidence: float = 0.95  # uncalibrated: a die the pose head calls tipped needs this P(value)
    touching_confidence: float = 0.97  # calibrated: a die touching another needs this P(value) (neighbour's pips)
    calibrated_confidence: float = 0.95  # calibrated: any die needs this P(value) (below it, lamps in faces misread)
    read_floor: float = 0.5  # never a read below this overall confidence, P(a die here) x P(value | die)
    one_look: float = 0.99  # a centred crop read this surely is not read again four ways round
    settled_flat: float = 0.7  # a die re-centred by the touching-dice fit: P(flat) needed to read it
    surely_flat: float = 0.9  # pose network: P(flat) above which a too-big silhouette declines the die, not tips it
    wall_flat: bool = True  # a die at a wall or the dome's glass needs AT_WALL_FLAT (read_checks.at_wall)
    views: int = 4  # calibrated: the classifier reads each die 4 ways round (4) or also mirrored (8), averaged
    # Uncalibrated (photos; `tablehw vision read` without a calibration), also mirrored: on the development photos 3
    # dice more read of 698 and no misread more; then on the held-back photos, 1 more of 337 (docs/vision.md,
    # thirty-ninth session). Not on the service's calibrated path: 4 crops more a die, and its reads are timed.
    views_uncalibrated: int = 8
    temperature: float = 1.0  # the classifier's probabilities are softened by this (fitted on tuning data)


@dataclass(slots=True)
class Found:
    """A die found while reading: where, how big, and what each reader said."""

    x: float
    y: float
    die: float
    angle: float | None
    blob: int
    isolated: bool
    p_die: float = 0.0
    probs: np.ndarray | None = None
    pose_probs: np.ndarray | None = None  # learned pose (flat, cocked, stacked, leaning, overlapped)
    face: FaceRead | None = None
    settled: bool = False  # re-centred by the silhouette fit of touching dice
    head_flat: float | None = None  # P(flat) of the face network's own pose head, on the crop(s) it was read on
    awaits_fit: bool = False  # read four ways round only after the fit of touching dice (`settle`)


def check_frame(frame: object) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        shape = getattr(frame, "shape", None)
        raise ImageError(f"expected a BGR uint8 image (H, W, 3), got {type(frame).__name__} {shape}")
    if min(frame.shape[:2]) < 32:
        raise ImageError(f"image too small to hold dice: {frame.shape[1]}x{frame.shape[0]}")
    return frame


def suppress(found: list[Found], key, radius: float) -> list[Found]:
    """Keep the best of the finds that lie within `radius` die edges of each other."""
    kept: list[Found] = []
    for f in sorted(found, key=key, reverse=True):
        if all(np.hypot(f.x - k.x, f.y - k.y) >= radius * min(f.die, k.die) for k in kept):
            kept.append(f)
    return kept


class DiceReader(ReadDecisions):
    """Reads dice from BGR frames; inject `calibration`, `classifier` and `background` as needed.

    `classifier=None` uses the classical pip reader only; the default loads the committed weights
    when they exist. `pose_net` tells how the dice lie on a calibrated table (default: the committed
    weights; None: the face classifier's pose head, or the 3D fit). `background` is a frame of the
    empty table (fixed camera), optional. A calibrated reader learns where the table's lamps are mirrored
    in top faces (`lamp_spots`) from the dice it reads, unless `learn_lamps` is False (the benchmarks' comparison).
    """

    def __init__(self, calibration: Calibration | None = None, *, classifier: FaceClassifier | None | str = "default",
                 pose_net: PoseNet | None | str = "default", background: np.ndarray | None = None,
                 settings: ReaderSettings = ReaderSettings(), learn_lamps: bool = True) -> None:
        self.calibration = calibration
        if classifier == "default":
            classifier = FaceClassifier() if DEFAULT_WEIGHTS.is_file() else None
        self.classifier = classifier
        if pose_net == "default":
            pose_net = PoseNet() if DEFAULT_POSE_WEIGHTS.is_file() and calibration is not None else None
        self.pose_net = pose_net
        self.background = background
        self.settings = settings
        self._region = None
        self._background = None  # the background prepared at work scale, on first use
        self._background_lab = None  # the background in Lab at full scale (silhouettes), on first use
        self._die_px = calibration.die_px if calibration is not None else None
        # Where the table's lamps are mirrored in top faces, learned from the dice the lamp rules declined
        # (calibrated readers: a fixed camera puts a lamp's image on the same pixels die after die).
        self.lamp_spots = LampSpots(calibration.die_px) if calibration is not None and learn_lamps else None

    def use_background(self, frame: np.ndarray | None) -> None:
        """Compare frames with this empty-table frame from now on (the service's model, refreshed)."""
        self._background = None if frame is None else Background.of(frame, self.settings.work_width)
        self._background_lab = None
        self.background = frame

    def context(self, frame: np.ndarray, fg: Foreground) -> PoseContext:
        """What the pose checks look at: the frame, its foreground, the camera, the empty table (and its Lab)."""
        if self.background is not None and self._background_lab is None:
            self._background_lab = cv2.cvtColor(self.background, cv2.COLOR_BGR2LAB)
        return PoseContext(frame, fg, self.calibration, self.background, self._background_lab)

    # --- finding ------------------------------------------------------------------------------
    def region(self, frame: np.ndarray) -> np.ndarray | None:
        """Work-scale mask of where dice are looked for (calibrated: the table and a margin around it)."""
        if self.calibration is None:
            return None
        h, w = frame.shape[:2]
        s = min(1.0, self.settings.work_width / float(w))
        key = (w, h, s)
        if self._region is None or self._region[0] != key:
            self._region = (key, self.calibration.search_mask(w, h, s))
        return self._region[1]

    def foreground(self, frame: np.ndarray) -> Foreground:
        die = self._die_px
        if self.background is not None and self._background is None:
            self._background = Background.of(self.background, self.settings.work_width)
        return find_foreground(frame, die_size=die, background=self._background,
                               work_width=self.settings.work_width, region=self.region(frame))

    def candidates(self, frame: np.ndarray, fg: Foreground) -> list[Found]:
        found = [Found(c.x, c.y, fg.die_size, c.angle, c.blob, c.isolated) for c in fg.candidates]
        if self.classifier is None:
            return self.read_classically(frame, found, fg)
        return self.read_with_classifier(frame, found)

    def read_classically(self, frame: np.ndarray, found: list[Found], fg: Foreground) -> list[Found]:
        for f in found:
            f.face = read_face(frame, f.x, f.y, f.die, f.angle)
            if f.face.value is not None and coverage(fg, f.x, f.y, f.die, f.face.angle) < 0.75:
                f.face = FaceRead(None, 0.0, (), f.face.angle)  # no die body around these "pips": glare
            f.p_die = 1.0 if f.face.value is not None else 0.0
            if f.face.value is not None and f.face.pips:
                # Centre the die on its pips: they are symmetric about the face centre.
                m = cv2.invertAffineTransform(_face_matrix(f, f.face.angle))
                px, py = np.mean(f.face.pips, axis=0)
                f.x, f.y = (m @ np.array([px, py, 1.0])).tolist()
        kept = [f for f in found if f.face.value is not None]
        return suppress(kept, lambda f: (f.face.confidence > 0, len(f.face.pips), f.face.confidence), 0.8)

    def read_with_classifier(self, frame: np.ndarray, found: list[Found]) -> list[Found]:
        net = self.classifier
        scores = net.classify(self.view_crops(frame, found, [1] * len(found)))
        # On a calibrated table the pose network and the silhouette judge the lie of every die afterwards:
        # a die alone in its blob needs no flat call from the face network's own (weaker) pose head.
        lie_judged_later = self.pose_net is not None and self.calibration is not None
        kept = []
        for i, f in enumerate(found):
            p, off = scores.probs[i], scores.offsets[i]
            if 1.0 - p[0] >= self.settings.die_threshold:
                f.x, f.y = f.x + float(off[0]) * f.die, f.y + float(off[1]) * f.die
                f.p_die = 1.0 - float(p[0])
                # Centred already and plainly read: one look is enough (saves the four-way reading).
                flat = scores.poses is None or (lie_judged_later and f.isolated) \
                    or float(scores.poses[i][0]) >= self.settings.one_look
                if flat and self.plainly_read(p, off):
                    f.probs = p
                    f.pose_probs = scores.poses[i] if scores.poses is not None else None
                kept.append(f)
        kept = suppress(kept, lambda f: f.p_die, 0.6)
        if lie_judged_later:
            self.look_again(frame, [f for f in kept if f.probs is None and f.isolated])
        # Read again, four ways round, the dice still unread (off centre, or not plainly read); on a calibrated
        # table not yet those found too close to another: the fit of touching dice may move them (`settle`).
        waiting = self.too_close(kept) if self.calibration is not None else set()
        self.read_four_ways(frame, [f for i, f in enumerate(kept) if f.probs is None and i not in waiting])
        out = []
        st = self.settings
        for i, f in enumerate(kept):
            if i in waiting:
                f.awaits_fit = True  # kept as the first look found it; judged after the fit (`settle`)
            else:
                p = f.probs
                f.p_die = 1.0 - float(p[0])
                if f.p_die < st.die_threshold:
                    continue
                sure = float(p[1:].max()) / f.p_die
                if st.agree_confidence <= sure < st.net_confidence:
                    f.face = read_face(frame, f.x, f.y, f.die, f.angle)  # a second opinion, only when needed
            if f.angle is None:
                f.angle = f.face.angle if f.face is not None else dominant_angle(
                    cv2.cvtColor(crop(frame, f.x, f.y, f.die, 0.0, 32, 1.3), cv2.COLOR_BGR2GRAY))
            out.append(f)
        return out

    @staticmethod
    def too_close(found: list[Found]) -> set[int]:
        """The unread dice found closer to another of their blob than flat dice can lie (what `settle` fits)."""
        return {i for i, f in enumerate(found) if f.probs is None and f.blob >= 0 and any(
            g is not f and g.blob == f.blob and too_close_for_flat((f.x, f.y), (g.x, g.y), f.die) for g in found)}

    def plainly_read(self, probs: np.ndarray, offset: np.ndarray) -> bool:
        """A crop centred on its die (within 0.1 die edge) whose value the network is all but sure of."""
        p_die = 1.0 - float(probs[0])
        return (float(np.hypot(*offset)) < 0.1 and p_die >= self.settings.die_threshold
                and float(probs[1:].max()) >= self.settings.one_look * p_die)

    def look_again(self, frame: np.ndarray, found: list[Found]) -> None:
        """Dice alone in their blob whose first crop was off centre: one more look where the first put them,
        read on it when it is centred and plainly read (one crop instead of four; the rest go four ways round).
        Calibrated tables only, where every die's lie is judged afterwards; not dice beside another (a single
        view of a die beside another is surer than its four views agree on: the neighbour's pips)."""
        if not found:
            return
        scores = self.classifier.classify(self.view_crops(frame, found, [1] * len(found)))
        for i, f in enumerate(found):
            p, off = scores.probs[i], scores.offsets[i]
            if self.plainly_read(p, off):
                f.x, f.y = f.x + float(off[0]) * f.die, f.y + float(off[1]) * f.die
                f.probs = p
                f.pose_probs = scores.poses[i] if scores.poses is not None else None

    def settle(self, frame: np.ndarray, fg: Foreground, found: list[Found]) -> list[Found]:
        """Dice found closer than flat dice can lie: when flat dice side by side explain their blob,
        centre them where the fit puts their top faces and read them again there (a die found twice,
        which the fit explains without, is dropped)."""
        ctx = self.context(frame, fg)
        moved, twice = settle_touching(ctx, [(f.x, f.y, f.angle or 0.0, f.blob) for f in found])
        for i, (x, y) in moved.items():
            found[i].x, found[i].y, found[i].settled, found[i].face = x, y, True, None
        # Read four ways round where they now lie the dice moved, and those that waited for the fit (unmoved:
        # kept only when the four views find a die, as any other).
        again = [f for i, f in enumerate(found) if i not in twice and (i in moved or f.awaits_fit)]
        self.read_four_ways(frame, again)
        for f in again:
            f.p_die = 1.0 - float(f.probs[0])
        return [f for i, f in enumerate(found) if i not in twice
                and (f.settled or not f.awaits_fit or f.p_die >= self.settings.die_threshold)]

    def read_four_ways(self, frame: np.ndarray, found: list[Found]) -> None:
        """Set each die's class (and pose head) probabilities, averaged over its crop turned four ways."""
        if not found:
            return
        probs, poses = self.four_ways(frame, found)
        for f, p, q in zip(found, probs, poses if poses is not None else [None] * len(found)):
            f.probs, f.pose_probs = p, q

    def four_ways(self, frame: np.ndarray, found: list[Found]) -> tuple[np.ndarray, np.ndarray | None]:
        """The face network's class and pose-head probabilities of each die, averaged over its crop turned four
        ways, and mirrored too on an uncalibrated read (`views_uncalibrated`; poses None without a pose head)."""
        views = self.settings.views if self.calibration is not None else self.settings.views_uncalibrated
        scores = self.classifier.classify(self.view_crops(frame, found, [views] * len(found)))
        probs = scores.probs.reshape(len(found), views, -1).mean(axis=1)
        poses = scores.poses.reshape(len(found), views, -1).mean(axis=1) if scores.poses is not None else None
        return probs, poses

    def head_looks_again(self, frame: np.ndarray, found: list[Found]) -> None:
        """Dice the face network's pose head found plainly not flat, perhaps on one crop: its P(flat) again,
        averaged over the crop turned four ways where the die now lies (their values are left as read)."""
        if not found:
            return
        _, poses = self.four_ways(frame, found)
        for f, q in zip(found, poses if poses is not None else []):
            f.head_flat = float(q[0])

    @staticmethod
    def view_crops(frame: np.ndarray, found: list[Found], counts: list[int]) -> np.ndarray:
        """Each die's crop, turned 0/90/180/270 degrees (and mirrored for 8) when its count asks."""
        crops = []
        for f, n in zip(found, counts):
            base = crop(frame, f.x, f.y, f.die)
            turned = [np.rot90(base, k) for k in range(min(n, 4))]
            crops += turned + ([t[:, ::-1] for t in turned] if n == 8 else [])
        if not crops:  # an empty table: nothing to classify
            return np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8)
        return np.ascontiguousarray(np.stack(crops))

    # --- reading ------------------------------------------------------------------------------
    def read(self, frame: np.ndarray) -> Reading:
        """Read every die in a BGR frame."""
        frame = check_frame(frame)
        fg = self.foreground(frame)
        found = self.candidates(frame, fg)
        if self.classifier is not None and self.calibration is not None:
            found = self.settle(frame, fg, found)
        if self.pose_net is not None and self.calibration is not None:
            view = View.of(self.calibration, frame.shape[1], frame.shape[0])
            for f, q in zip(found, self.pose_net.poses(frame, [(f.x, f.y) for f in found], fg.die_size, view)):
                f.head_flat = None if f.pose_probs is None else float(f.pose_probs[0])
                f.pose_probs = q
            self.head_looks_again(frame, [f for f in found if f.head_flat is not None and f.head_flat < HEAD_NOT_FLAT])
        dice = []
        for f in found:
            value, confidence, sure = self.value_of(f)
            if self.calibration is not None:
                # value_of's thresholds lie below the confidence a calibrated die needs: judged last (`confident`)
                sure = value is not None and (f.probs is not None or sure)
            why = "" if sure else "no_value" if value is None else "unsure"
            if f.settled and (f.pose_probs is None or float(f.pose_probs[0]) < self.settings.settled_flat):
                # placed by the fit of flat dice: read only when the pose network agrees it is flat
                sure, why = False, why or "settled_not_flat"
            angle = f.angle if f.angle is not None else (f.face.angle if f.face is not None else 0.0)
            outline = square_outline(f.x, f.y, f.die, angle)
            xs, ys = [p[0] for p in outline], [p[1] for p in outline]
            table_xy = self.calibration.to_table(f.x, f.y) if self.calibration is not None else None
            p_flat = float(f.pose_probs[0]) if f.pose_probs is not None and self.calibration is not None else None
            dice.append(Die(value, f.x, f.y, max(xs) - min(xs), max(ys) - min(ys), confidence,
                            Pose.FLAT, sure, outline, table_xy, p_flat=p_flat, declined=why))
        learned = [learned_lie(f.pose_probs) for f in found]
        ctx = self.context(frame, fg)
        dice, blobs = assign_poses(dice, ctx, learned)
        if self.calibration is not None:
            judged = [self.geometry_overrules(d, f, ctx) for d, f in zip(dice, found)]
            dice = [d for d in judged if d is not None]
        if image_blurred(frame, dice, fg.die_size):
            dice = [self.blurred_die(d) for d in dice]
        alone = not_dice_of_their_own(dice, fg.die_size) if self.calibration is None else set()
        dice = [self.decline(d, "not_a_die_alone" if i in alone else self.doubt(d, dice, ctx))
                if d.sure or d.needs_flat else d for i, d in enumerate(dice)]
        if self.calibration is not None:
            dice = [self.confident(d) for d in dice]
        dice.sort(key=lambda d: (d.y, d.x))
        return Reading(tuple(dice), tuple(blobs), fg.die_size, (frame.shape[1], frame.shape[0]),
                       self.calibration is not None)


def _face_matrix(f: Found, angle: float) -> np.ndarray:
    return crop_matrix(f.x, f.y, f.die, angle, FACE_PX, SPAN)


def learned_lie(pose_probs: np.ndarray | None) -> Pose | None:
    """The pose head's verdict: flat unless another pose is more likely (None without a pose head)."""
    if pose_probs is None:
        return None
    return LEARNED_POSES[int(np.argmax(pose_probs))]


LEARNED_POSES = (Pose.FLAT, Pose.COCKED, Pose.STACKED, Pose.OVERLAPPING, Pose.OVERLAPPING)


def coverage(fg: Foreground, x: float, y: float, die: float, angle: float) -> float:
    """Share of the die's square (edge `die`, centred at x, y) that is foreground."""
    s = fg.scale
    side = max(3, int(round(die * s * 0.8)))
    patch = cv2.warpAffine(fg.mask, crop_matrix(x * s, y * s, die * s * 0.8, angle, side, 1.0), (side, side),
                           flags=cv2.INTER_NEAREST)
    return float(np.count_nonzero(patch)) / patch.size


def square_outline(x: float, y: float, die: float, angle: float) -> tuple[tuple[float, float], ...]:
    """Corners of a square die face of edge `die` centred at (x, y), rotated by `angle` degrees."""
    (cx, cy), size, a = (x, y), (die, die), angle
    return tuple((float(px), float(py)) for px, py in cv2.boxPoints(((cx, cy), size, a)))

