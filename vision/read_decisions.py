"""Whether each value the reader found is a read, and when it is not, why (`Die.declined`).

`ReadDecisions` is the part of `DiceReader` that judges each die once it is found and its faces looked at: its lie
(the pose network and the silhouette under the calibrated camera), the checks of vision/read_checks.py (a
neighbour, the frame's edge) and of vision/face_checks.py (a lamp, more pips than the value), and last the confidence
its value needs. It is a mixin, as gpiozero's are: it uses the reader's `settings`, `calibration` and `lamp_spots`,
and the reader's methods may be replaced one by one (the tests do).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .lamp_spots import lamp_image
from .pose import PoseContext
from .pose_net import POSES
from .face_checks import FacePatch, face_patch, lamp_in_face, more_pips_than_value, outline_angle
from .read_checks import (EMPTY_SILHOUETTE, FLAT_SILHOUETTE, HEAD_NOT_FLAT, at_wall, crowded, flat_needed,
                          not_surely_flat, partial, silhouette_ratio, stack_unsure)
from .reading import Die, Pose

if TYPE_CHECKING:
    from .dice_reader import Found

TIPPED = (Pose.COCKED, Pose.STACKED, Pose.OVERLAPPING)
TIPPED_ALONE = (Pose.COCKED, Pose.STACKED, Pose.COCKED, Pose.COCKED)  # not flat, with no die beside it to lean on
# Declines the frames of dice at rest may lift when they agree (`at_rest.agree`): the pose network's doubt, the
# confidence. A check that declines outright afterwards names itself instead.
SOFT_DECLINES = ("", "not_surely_flat", "confidence")


class ReadDecisions:
    """Judges each die the reader found: a read, or declined and why (`DiceReader`'s, see the module)."""

    def trust(self, d: Die) -> bool:
        """Whether a die's lie lets its value be read. On a calibrated table (the product's path) a value is
        read only on a die lying flat, or flat beside another, and only at the confidence `needed` (judged
        last, in `confident`). Never on a die tipped, stacked or leaning: from above, its most exposed face
        cannot be ranked surely against the side faces perspective shows (on the tune looks, cocked dice read
        at P >= 0.95 were wrong one time in eight); craps then voids `uncertain` and the dealer reads the most
        exposed face. Uncalibrated (photos, no camera model): a die the pose head calls tipped needs P >=
        tipped_confidence, one touching another no more than any die (the stricter rules declined one die
        in fourteen of the development photos, all read right); never a die leaning on another."""
        if d.lie is Pose.OVERLAPPING:
            return False
        if self.calibration is None:
            return d.lie not in TIPPED or d.confidence >= self.settings.tipped_confidence
        return d.lie not in TIPPED

    def needed(self, d: Die) -> float:
        """Calibrated: the P a die's value must reach to be read: calibrated_confidence (on the tune looks,
        every die read wrong below it had a lamp mirrored in its top face: it greys or hides a pip), more
        beside another die (touching_confidence: the neighbour's pips)."""
        st = self.settings
        return st.touching_confidence if d.lie is Pose.TOUCHING else st.calibrated_confidence

    def confident(self, d: Die) -> Die:
        """Calibrated: the last check. A die that passed every other one but is read under the confidence it
        needs is declined, and says so (`needs_confidence`): frames that agree may read it on their mean."""
        needed = self.needed(d)
        if not (d.sure or d.needs_flat) or d.value is None or d.confidence >= needed:
            return d
        return replace(d, sure=False, needs_confidence=needed, declined=d.declined or "confidence")

    def doubt(self, d: Die, dice: list[Die], ctx: PoseContext) -> str:
        """Why a die with a value must still be declined (a `DECLINED` key; "" when nothing doubts it: the checks
        are vision/read_checks.py's)."""
        h, w = ctx.frame.shape[:2]
        if not self.trust(d):
            return "not_flat"
        if partial(d, w, h):
            return "partial"
        if self.calibration is None:
            return ""
        if crowded(d, dice, ctx.fg.die_size):
            return "crowded"
        patch = face_patch(ctx.frame, d, ctx.fg.die_size)
        if lamp_in_face(ctx.frame, d, ctx.fg.die_size, patch):
            self.learn_lamp(d, patch, ctx.fg.die_size)
            return "lamp"
        if more_pips_than_value(patch, d.value):
            return "more_pips"
        if self.lamp_spots is not None and self.lamp_spots.covers(d.x, d.y, outline_angle(d)):
            return "lamp_spot"
        return ""

    @staticmethod
    def blurred_die(d: Die) -> Die:
        """A die of a blurred image (vision/blur_check.py: the camera out of focus, a dirty lens, a shake), declined
        outright over any reason found before: neither its value nor its lie can be told. Not known to be tipped, it
        is kept flat (or touching), so its throw is void `uncertain`, the dealer's call, not void for a lie the blur
        made."""
        return replace(d, lie=Pose.FLAT if d.lie in TIPPED else d.lie, sure=False, needs_flat=0.0,
                       needs_confidence=0.0, declined="blurred")

    @staticmethod
    def decline(d: Die, why: str) -> Die:
        """The die declined outright for `why` (a `DECLINED` key; the die as it is when `why` is ""). `why` replaces
        a doubt the frames' agreement could have lifted (SOFT_DECLINES); any other reason given before is kept."""
        if not why:
            return d
        return replace(d, sure=False, needs_flat=0.0, declined=why if d.declined in SOFT_DECLINES else d.declined)

    def learn_lamp(self, d: Die, patch: FacePatch | None, die_px: float) -> None:
        """A die the lamp rules declined: where its lamp lies is kept (`lamp_spots`), so dice over it later are
        declined too, whether the rules see the lamp on them or not."""
        if self.lamp_spots is None or patch is None:
            return
        turn = outline_angle(d)
        at = lamp_image(patch.lum, patch.high, d.x, d.y, die_px, turn)
        if at is not None:
            self.lamp_spots.saw(*at, (d.x, d.y, turn))

    def geometry_overrules(self, d: Die, f: Found, ctx: PoseContext) -> Die | None:
        """The lie the geometry and the pose network give a die (`lie_by_geometry`; None: no die there); a die
        still called flat or touching that the face network's own pose head (a narrower crop, trained apart)
        finds plainly not flat (`HEAD_NOT_FLAT`) is declined outright, not named tipped: the networks disagree."""
        out = self.lie_by_geometry(d, f, ctx)
        if out is None:
            return None
        if out.lie in (Pose.FLAT, Pose.TOUCHING) and f.head_flat is not None and f.head_flat < HEAD_NOT_FLAT:
            return self.decline(out, "networks_disagree")
        return out

    def lie_by_geometry(self, d: Die, f: Found, ctx: PoseContext) -> Die | None:
        """A die called flat whose silhouette is too big for a flat die there under the calibrated camera
        stands higher or leans (stacked, cocked): it takes the pose network's likeliest other pose. When the
        pose network is sure the die is flat, the two disagree: the die is declined (`uncertain`), not tipped
        (on the tuning split, every die so found was flat: a shadow or a lamp's glow on the felt). A find where
        the frame hardly differs from the empty table (less than EMPTY_SILHOUETTE of a die's outline) is not a
        die at all (printing on the felt read as pips, a glint on the dome): None, neither read nor counted (it
        made a throw void off the table, unseen seed 189; were a die ever lost so, the count voids the throw).
        A die that may be tipped, the pose network unsure it is flat (`not_surely_flat`), is declined too, and so
        is a die it names stacked unsurely whose silhouette is no stack's (`stack_unsure`)."""
        p_flat = None if f.pose_probs is None else float(f.pose_probs[0])
        wall = self.settings.wall_flat and at_wall(d.table_xy, self.calibration)
        if d.lie is Pose.TOUCHING and not_surely_flat(d.lie, p_flat, None, wall):
            return self.not_flat_enough(d, None, wall)
        if d.lie is Pose.STACKED and f.pose_probs is not None \
                and stack_unsure(float(f.pose_probs[POSES.index("stacked")]), silhouette_ratio(d, ctx)):
            return self.decline(replace(d, lie=Pose.FLAT), "stack_unsure")  # not known to be tipped; not read
        if d.lie is not Pose.FLAT:
            return d
        ratio = silhouette_ratio(d, ctx)
        if ratio is not None and ratio < EMPTY_SILHOUETTE:
            return None
        if ratio is None or ratio <= FLAT_SILHOUETTE:
            return self.not_flat_enough(d, ratio, wall) if not_surely_flat(d.lie, p_flat, ratio, wall) else d
        if f.pose_probs is not None and float(f.pose_probs[0]) >= self.settings.surely_flat:
            return replace(d, sure=False, declined=d.declined or "too_big_for_flat")
        tipped = Pose.COCKED if f.pose_probs is None else TIPPED_ALONE[int(np.argmax(f.pose_probs[1:]))]
        return replace(d, lie=tipped)

    @staticmethod
    def not_flat_enough(d: Die, ratio: float | None, wall: bool = False) -> Die:
        """Declined for the pose network's doubt (`not_surely_flat`); a die read until then says the P(flat) it
        needed, so frames of dice at rest that agree on it may read it on their mean (`at_rest.agree`)."""
        return replace(d, sure=False, needs_flat=flat_needed(d.lie, ratio, wall) if d.sure else 0.0,
                       declined=d.declined or "not_surely_flat")

    def value_of(self, f: Found) -> tuple[int | None, float, bool]:
        """The value, its confidence, and whether it is a read."""
        st = self.settings
        face = f.face
        if f.probs is None:
            sure = face is not None and face.value is not None and face.confidence >= st.pip_confidence
            return (face.value if face else None), (face.confidence if face else 0.0), sure
        probs = softened(f.probs, st.temperature)
        p_die = 1.0 - float(probs[0])
        value = int(np.argmax(probs[1:])) + 1
        p = float(probs[value]) / max(p_die, 1e-6)
        agree = face is not None and face.value == value and face.confidence >= st.pip_confidence
        sure = (p >= st.net_confidence or (agree and p >= st.agree_confidence)) and p * p_die >= st.read_floor
        return value, p * p_die, sure


def softened(probs: np.ndarray, temperature: float) -> np.ndarray:
    """Probabilities with their logits divided by `temperature` (> 1 makes them less sure)."""
    if temperature == 1.0:
        return probs
    logits = np.log(np.maximum(probs, 1e-12)) / temperature
    e = np.exp(logits - logits.max())
    return e / e.sum()
