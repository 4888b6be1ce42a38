"""How each die lies, from the geometry of what was seen: flat, touching, cocked, stacked or overlapping.

The top face of a flat die is a square of the expected size. A cocked die shows a foreshortened top
face beside a side face; a stacked die hides another under it, whose corners stick out; two dice that
overlap share one blob with less area than two flat dice. Blobs no die explains are kept as `Blob`s.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .die_finder import Foreground
from .reading import Blob, Die, Pose


def blob_of(die: Die, fg: Foreground) -> int | None:
    """Index of the foreground blob whose contour holds the die centre."""
    import cv2

    for i, b in enumerate(fg.blobs):
        if abs(die.x - b.x) <= b.w / 2 + 1 and abs(die.y - b.y) <= b.h / 2 + 1:
            if cv2.pointPolygonTest(b.contour, (float(die.x), float(die.y)), False) >= 0:
                return i
    return None


def assign_poses(dice: list[Die], fg: Foreground, calibration=None) -> tuple[list[Die], list[Blob]]:
    """Mark dice that touch another; keep die-sized blobs no die explains."""
    d = fg.die_size
    owners = [blob_of(die, fg) for die in dice]
    out = []
    for i, die in enumerate(dice):
        near = [j for j, other in enumerate(dice) if j != i and owners[j] is not None and owners[j] == owners[i]
                and np.hypot(die.x - other.x, die.y - other.y) < 1.45 * d]
        if near and die.pose is Pose.FLAT:
            die = replace(die, pose=Pose.TOUCHING)
        out.append(die)
    blobs = []
    used = {o for o in owners if o is not None}
    for i, b in enumerate(fg.blobs):
        if i in used or not 0.4 * d * d <= b.area <= 4.0 * d * d:
            continue
        table_xy = calibration.to_table(b.x, b.y) if calibration is not None else None
        blobs.append(Blob(b.x, b.y, b.w, b.h, "unread", table_xy))
    return out, blobs
