"""Where a table's lamps are mirrored in a flat die's top face, learned from the dice the lamp rules declined.

A lamp over the table is mirrored in a glossy top face at one fixed point of the plane the top faces lie in: the
point where the camera's ray to the lamp's mirror image (the lamp reflected in that plane) crosses it. Every flat
die whose top face covers that point shows the lamp there, whatever its value, colour or turn. So for a fixed camera
the lamp's image falls on the same pixels, die after die. The lamp rules (`face_checks.lamp_in_face`) tell a lamp
on some faces and not on others (unseen seeds 433 and 449: a tube lamp's band over most of an ivory face's middle, a
4 and a 5 read 2 at P 0.98-0.99; tune seed 9838: a red 4 read 5 at P 0.997, the lamp taken for its middle pip):
wrong results. The dice the rules did catch say where the lamps are; a die whose top face covers a place seen so is
declined too, caught or not. The first die under a lamp the rules miss is still missed: a place is learned only from
dice already declined.

Bounded: at most MAX_SPOTS places seen once and MAX_SPOTS learned, each kind dropping its least recently seen
(glints seen once never push a learned lamp out; a new lamp learned pushes out the lamp longest unseen). A place
counts once it was seen SIGHTINGS times, on dice lying in different places (one die the rules declined without a
lamp, read again in every frame it rests in, never declines others). Learned per reader (one camera, one
calibration), in memory only: after a restart the table learns again from its first lamp cases. A hostile light aimed
at the dice can only add places where dice are declined, never a read. Not thread-safe, as the reader that owns it
is not: the service reads a table's frames in one worker. Each place learned is logged, and handed to `when_learned`
when set (the service tells the floor: firmware_host/dice_camera.py, notice `lamp_mirrored` on `events`).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from .face_crops import crop_matrix
from .pip_reader import FACE_PX, SPAN

log = logging.getLogger(__name__)

MAX_SPOTS = 16  # places kept (a table has a few lamps; a tube lamp's band is seen as several places along it)
SIGHTINGS = 2  # times a place must be seen before dice over it are declined
SAME_PLACE = 0.3  # die edges: a lamp's image seen this close to a place kept is that place seen again
FACE_HALF = 0.5  # die edges: a place this close to a die's centre along both its edges lies on its top face
# A die centred within SAME_DIE die edges of one that saw a place before, turned the same to SAME_TURN degrees (its
# outline, modulo a quarter turn), is that die seen again: read in another frame of the same throw.
SAME_DIE = 0.1
SAME_TURN = 3.0


@dataclass(slots=True)
class Spot:
    x: float  # image pixels
    y: float
    seen: int
    last: int  # the sighting count when it was last seen (least recently seen is dropped first)
    by: list  # the dice it was seen on (the last SIGHTINGS): centre (image pixels) and turn (degrees)


class LampSpots:
    """The image places where the lamp rules saw a lamp mirrored in a die's top face; `covers` says whether a die's
    top face lies over one seen SIGHTINGS times. `die_px`: a die's edge in image pixels (the calibration's)."""

    def __init__(self, die_px: float) -> None:
        self.die_px = float(die_px)
        self._spots: list[Spot] = []
        self._sightings = 0
        # Called with a place's image point (x, y) when it is learned (in the reading thread; keep it short).
        self.when_learned: Callable[[float, float], None] | None = None

    def saw(self, x: float, y: float, die: tuple[float, float, float]) -> None:
        """A lamp's image seen at image point (x, y) on the top face of a die (its centre's x, y in image pixels and
        its outline's turn in degrees)."""
        die = tuple(float(v) for v in die)
        self._sightings += 1
        near = SAME_PLACE * self.die_px
        for s in self._spots:
            if (s.x - x) ** 2 + (s.y - y) ** 2 <= near * near:
                s.last = self._sightings
                if not any(self.same_die(die, other) for other in s.by):
                    learned = s.seen + 1 == SIGHTINGS
                    if learned:
                        self._make_room(learned=True)
                        log.warning("a lamp is mirrored in the dice's top faces at pixel (%.0f, %.0f): dice lying over "
                                    "it are declined from now on; cross-polarise or move the lamp (docs/vision.md, "
                                    "Installation)", s.x, s.y)
                    s.seen += 1
                    s.by = (s.by + [die])[-SIGHTINGS:]
                    if learned and self.when_learned is not None:
                        self.when_learned(s.x, s.y)
                return
        self._make_room(learned=False)
        self._spots.append(Spot(float(x), float(y), 1, self._sightings, [die]))

    def _make_room(self, learned: bool) -> None:
        """Room for one more place of a kind (seen once, or learned): at most MAX_SPOTS of each, the least recently
        seen of that kind goes (glints seen once never push a learned lamp out)."""
        kind = [s for s in self._spots if (s.seen >= SIGHTINGS) == learned]
        if len(kind) >= MAX_SPOTS:
            self._spots.remove(min(kind, key=lambda s: s.last))

    def same_die(self, a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
        """Two sightings of one die at rest: centred as close as SAME_DIE and turned alike (SAME_TURN)."""
        turn = abs((a[2] - b[2] + 45.0) % 90.0 - 45.0)
        return math.hypot(a[0] - b[0], a[1] - b[1]) <= SAME_DIE * self.die_px and turn <= SAME_TURN

    def covers(self, x: float, y: float, angle_deg: float) -> bool:
        """Whether the top face of a die centred at (x, y), its edges at `angle_deg`, lies over a learned place."""
        a = np.radians(angle_deg)
        c, s = float(np.cos(a)), float(np.sin(a))
        half = FACE_HALF * self.die_px
        for p in self._spots:
            dx, dy = p.x - x, p.y - y
            if p.seen >= SIGHTINGS and abs(dx * c + dy * s) <= half and abs(-dx * s + dy * c) <= half:
                return True
        return False

    def learned(self) -> list[tuple[float, float]]:
        """The places dice are declined over (image pixels)."""
        return [(p.x, p.y) for p in self._spots if p.seen >= SIGHTINGS]


def lamp_image(lum: np.ndarray, high: float, x: float, y: float, die_px: float, angle_deg: float
               ) -> tuple[float, float] | None:
    """Where a lamp the lamp rules saw lies in the frame: the middle of the largest part of the face patch (`lum`,
    `face_checks.face_patch`'s lightness of the face turned square, its brightest 2 % from `high` up) at least that
    bright, on the die's face. A mirrored lamp is the brightest thing on a glossy face. (x, y, angle_deg): the die's
    centre and turn the patch was cut at. None when nothing on the face is that bright."""
    unit, c = FACE_PX / SPAN, FACE_PX // 2
    h = int(FACE_HALF * unit)
    face = (lum[c - h:c + h, c - h:c + h] >= high).astype(np.uint8)
    n, _, stats, centres = cv2.connectedComponentsWithStats(face, connectivity=8)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    u, v = float(centres[k][0]) + c - h, float(centres[k][1]) + c - h
    back = cv2.invertAffineTransform(crop_matrix(x, y, die_px, angle_deg, FACE_PX, SPAN))
    px, py = back @ np.array([u, v, 1.0])
    return float(px), float(py)
