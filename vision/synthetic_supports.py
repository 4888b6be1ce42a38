"""Small things on the felt a die can come to rest tipped on: a gaming chip, a short stack of them, a coin.

A die rests on an edge only when something holds it there: a wall, the dome's glass, another die, or
something small under its raised edge. The renderer's walls and dice are drawn already; a `Support` is the
last of these, a cylinder lying on the felt, drawn after the shadows and before the dice (a die resting on it
hides the part under it). Used by the probe of dice tipped towards the camera's foot when the probe gives
the tipped die what holds it, by the probe of cocked dice held as real dice are (`synthetic_held`), by the probe of
flat dice beside a chip, and by the pose network's training frames (`make_synthetic_set.py --held-cocked`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .camera_model import PinholeCamera

# Chip colours (BGR): red, green, black, blue, purple, yellow, pink, and a coin's brass and silver.
CHIP_COLOURS = ((40, 40, 190), (60, 140, 40), (35, 35, 35), (160, 80, 30), (120, 40, 110), (40, 190, 220),
                (160, 120, 230))
COIN_COLOURS = ((70, 150, 190), (175, 175, 170))
COIN_HEIGHT_MM = 3.0  # thicker than this, a support is a chip or a stack of them
RIM_POINTS = 48
SHIFT = 4  # OpenCV's fixed-point bits for the polygons (1/16 pixel)


@dataclass(frozen=True, slots=True)
class Support:
    """A cylinder lying on the felt: centre (mm), radius and height (mm), colour (BGR), chip (edge spots) or coin."""

    x: float
    y: float
    radius: float
    height: float
    colour: tuple[int, int, int]
    chip: bool = True

    def rim(self, z: float, share: float = 1.0) -> np.ndarray:
        """Points (mm) of the circle at height `z` and `share` of its radius."""
        t = np.linspace(0.0, 2.0 * math.pi, RIM_POINTS, endpoint=False)
        r = share * self.radius
        return np.stack([self.x + r * np.cos(t), self.y + r * np.sin(t), np.full_like(t, z)], 1)

    def outline(self) -> np.ndarray:
        """Its bottom and top rims: the points whose hull it is (its shadow: synthetic.draw_shadows)."""
        return np.vstack([self.rim(0.0), self.rim(self.height)])


def random_support(x: float, y: float, height: float, rng: np.random.Generator, coin: bool | None = None) -> Support:
    """A chip (or a short stack of chips) or a coin, of `height` mm, centred at (x, y): a coin when `coin`, a chip when
    not, either half of the time when None."""
    if (rng.random() < 0.5) if coin is None else not coin:
        colour = CHIP_COLOURS[int(rng.integers(0, len(CHIP_COLOURS)))]
        return Support(x, y, float(rng.uniform(18.0, 20.0)), height, colour, chip=True)
    colour = COIN_COLOURS[int(rng.integers(0, len(COIN_COLOURS)))]
    return Support(x, y, float(rng.uniform(10.0, 14.0)), height, colour, chip=False)


def _polygon(cam: PinholeCamera, points: np.ndarray) -> np.ndarray:
    return np.round(cam.project(points) * (1 << SHIFT)).astype(np.int32)


def draw_supports(out: np.ndarray, cam: PinholeCamera, supports: list[Support], light: np.ndarray) -> None:
    """Each support's side and top face, the top shaded by the key light (`light`, a unit vector towards it); a chip
    gets light spots on its edge and a ring on its top, as casino chips have. (Their shadows are the dice's:
    synthetic.draw_shadows.)"""
    lit = 0.35 + 0.7 * max(0.0, float(light[2]))
    for s in supports:
        colour = np.array(s.colour, np.float32)
        top = _polygon(cam, s.rim(s.height))
        side = cv2.convexHull(_polygon(cam, s.outline()))
        cv2.fillConvexPoly(out, side, tuple(float(c) for c in colour * 0.55), cv2.LINE_AA, shift=SHIFT)
        cv2.fillConvexPoly(out, top, tuple(float(c) for c in np.minimum(colour * lit, 255.0)), cv2.LINE_AA,
                           shift=SHIFT)
        if s.chip:
            spot = (235.0, 235.0, 235.0)
            for k in range(6):  # six edge spots, seen on the top's rim
                a0, a1 = (k + 0.2) * math.pi / 3, (k + 0.5) * math.pi / 3
                arc = [(s.x + f * s.radius * math.cos(a), s.y + f * s.radius * math.sin(a), s.height)
                       for f, a in ((1.0, a0), (1.0, a1), (0.82, a1), (0.82, a0))]
                cv2.fillConvexPoly(out, _polygon(cam, np.array(arc)), spot, cv2.LINE_AA, shift=SHIFT)
            cv2.polylines(out, [_polygon(cam, s.rim(s.height, 0.62))], True, spot, 1, cv2.LINE_AA, shift=SHIFT)
