"""Looks of rendered tables (felt, rail and walls, dice, lights, printing) in two splits: tuned on, never tuned on.

Every factor of a look comes in families, and each family belongs to one split only: the networks are
trained and the reader's thresholds chosen on `tune` looks; `unseen` looks (other felt and rail colours,
other dice, key light from other directions, other lamps, other printing) are only ever used to report
figures. A look is drawn per table rig (`random_look(split, game, rng)`); the seeds are split too
(see docs/vision.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

SPLITS = ("tune", "unseen")


@dataclass(frozen=True, slots=True)
class DieStyle:
    """How a die looks: body and pip colours (BGR), opacity, pips of the hidden faces showing through a
    translucent body (`ghost`, 0-1), rounded corners (`rounding`, radius in die edges) and how glossy its
    faces are (`gloss`: strength of the lamps mirrored in them, 0 = matte)."""

    name: str
    body: tuple[int, int, int]
    pips: tuple[int, int, int]
    alpha: float  # 1 = opaque; translucent dice let the felt through
    ghost: float = 0.0
    rounding: float = 0.0
    gloss: float = 0.0


@dataclass(frozen=True, slots=True)
class Lamp:
    """A lamp over the table whose mirror image shows in glossy die faces. It hangs where a flat die's top
    face at `target` (0-1 across the area dice rest in) mirrors it into the camera; `radius_mm` is its
    half length, `aspect` length / width (a tube is long), `angle` its turn (radians)."""

    target: tuple[float, float]
    height_mm: float
    radius_mm: float
    aspect: float
    angle: float
    power: float


@dataclass(frozen=True, slots=True)
class Look:
    """Everything that makes one table look like itself, apart from its layout and camera."""

    split: str
    felt_name: str
    felt: tuple[int, int, int]
    rail: tuple[int, int, int]
    wall: tuple[int, int, int]
    wall_mm: float  # height of the walls above the felt
    style: DieStyle
    light: tuple[float, float, float]  # unit vector towards the key light
    lamps: tuple[Lamp, ...]
    font: int  # cv2 Hershey font of the printed layout
    words: tuple[str, ...]  # what is printed on the felt
    printed_dice: bool  # pictures of dice printed on the felt (proposition bets)
    under_lamp: float  # share of throws with a die where a lamp is mirrored (glare on its top face)

    @property
    def name(self) -> str:
        return f"{self.split}:{self.felt_name}/{self.style.name}"


# --- the families, each in one split only ---------------------------------------------------------------
FELTS = {
    "tune": {"green": (60, 110, 25), "burgundy": (45, 35, 120), "tan": (110, 150, 175)},
    "unseen": {"blue": (125, 62, 18), "grey": (92, 94, 90), "purple": (95, 40, 80)},
}
RAILS = {
    "tune": {"wood": (40, 70, 110), "walnut": (28, 42, 66)},
    "unseen": {"black": (26, 26, 28), "oxblood": (32, 30, 82)},
}
DICE = {
    "tune": {
        "red": DieStyle("red", (38, 36, 196), (245, 245, 245), 0.82, 0.35, 0.02, 0.8),
        "white": DieStyle("white", (232, 234, 236), (25, 25, 25), 1.0, 0.0, 0.12, 0.5),
        "green": DieStyle("green", (70, 140, 20), (240, 240, 240), 0.8, 0.35, 0.02, 0.8),
    },
    "unseen": {
        "crimson": DieStyle("crimson", (48, 24, 168), (240, 242, 246), 0.76, 0.4, 0.07, 0.9),
        "ivory": DieStyle("ivory", (200, 226, 238), (35, 30, 30), 1.0, 0.0, 0.15, 0.5),
        "blue": DieStyle("blue", (165, 85, 25), (240, 240, 240), 0.8, 0.35, 0.04, 0.8),
    },
}
# Translucent casino dice for craps; any of the split's dice elsewhere. No dice of the felt's own colour.
CASINO_DICE = {"tune": ("red", "green"), "unseen": ("crimson", "blue")}
CLASHES = {"green": {"green"}, "burgundy": {"red"}, "blue": {"blue"}, "purple": {"crimson"}}
# The key light's direction (azimuth, degrees): the two splits light the table from different quadrants.
LIGHT_AZIMUTHS = {"tune": ((0.0, 90.0), (180.0, 270.0)), "unseen": ((90.0, 180.0), (270.0, 360.0))}
FONTS = {"tune": (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX),
         "unseen": (cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)}
WORDS = {"tune": ("PASS LINE", "FIELD", "4", "5", "SIX", "8", "NINE", "10", "COME"),
         "unseen": ("DON'T PASS BAR", "BIG 6", "BIG 8", "2", "3", "12", "11", "ANY SEVEN", "HARDWAYS")}
# Lamps: how long their mirror images are (aspect) and how big; unseen lamps include long tubes.
LAMP_ASPECT = {"tune": (1.0, 2.5), "unseen": (1.0, 5.0)}
LAMP_RADIUS_MM = {"tune": (6.0, 28.0), "unseen": (5.0, 35.0)}


def jitter(colour: tuple[int, int, int], rng: np.random.Generator, spread: int) -> tuple[int, int, int]:
    return tuple(int(c) for c in np.clip(np.array(colour) + rng.integers(-spread, spread + 1, 3), 0, 255))


def key_light(split: str, rng: np.random.Generator) -> tuple[float, float, float]:
    lo, hi = LIGHT_AZIMUTHS[split][int(rng.integers(0, 2))]
    az = math.radians(rng.uniform(lo, hi))
    elevation = math.radians(rng.uniform(55.0, 80.0))
    c = math.cos(elevation)
    return (c * math.cos(az), c * math.sin(az), math.sin(elevation))


def random_look(split: str, game: str, rng: np.random.Generator, style: DieStyle | None = None) -> Look:
    """A look of `split` for a table of `game`; `style` forces the dice (else drawn from the split)."""
    if split not in SPLITS:
        raise ValueError(f"unknown look split {split!r}; known: {', '.join(SPLITS)}")
    felt_name = sorted(FELTS[split])[int(rng.integers(0, len(FELTS[split])))]
    rail_name = sorted(RAILS[split])[int(rng.integers(0, len(RAILS[split])))]
    if style is None:
        names = CASINO_DICE[split] if game == "craps" else tuple(sorted(DICE[split]))
        names = [n for n in names if n not in CLASHES.get(felt_name, ())]
        base = DICE[split][names[int(rng.integers(0, len(names)))]]
        style = DieStyle(base.name, jitter(base.body, rng, 12), base.pips, base.alpha,
                         float(np.clip(base.ghost + rng.uniform(-0.15, 0.15), 0.0, 0.6)) if base.ghost else 0.0,
                         float(np.clip(base.rounding + rng.uniform(-0.03, 0.03), 0.0, 0.2)),
                         float(np.clip(base.gloss + rng.uniform(-0.2, 0.2), 0.0, 1.0)))
    rail = jitter(RAILS[split][rail_name], rng, 10)
    n_lamps = int(rng.integers(1, 4))
    lo, hi = LAMP_ASPECT[split]
    rlo, rhi = LAMP_RADIUS_MM[split]
    return Look(
        split, felt_name, jitter(FELTS[split][felt_name], rng, 18), rail,
        tuple(int(c * 0.75) for c in rail), float(rng.uniform(25.0, 60.0)), style, key_light(split, rng),
        tuple(Lamp((float(rng.uniform(0.05, 0.95)), float(rng.uniform(0.05, 0.95))), float(rng.uniform(1400, 2600)),
                   float(rng.uniform(rlo, rhi)), float(rng.uniform(lo, hi)), float(rng.uniform(0, math.pi)),
                   float(rng.uniform(0.6, 1.0))) for _ in range(n_lamps)),
        FONTS[split][int(rng.integers(0, len(FONTS[split])))], WORDS[split], bool(rng.random() < 0.5),
        float(rng.uniform(0.2, 0.4)))


# The look of scenes built without one: the renderer's first table (green felt, wood rail, no lamps, flat walls).
DEFAULT_LOOK = Look("tune", "green", (60, 110, 25), (40, 70, 110), (25, 40, 60), 0.0, DICE["tune"]["red"],
                    (0.25 / 1.0886, -0.35 / 1.0886, 1.0 / 1.0886), (), cv2.FONT_HERSHEY_SIMPLEX, (), False, 0.0)
