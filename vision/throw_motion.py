"""A rendered throw at 30 fps: the dice roll in tumbling, bounce off the far wall, slow down and settle.

`render_throw(rig, rest, rng)` gives the frames a camera over the table would see: the empty table,
the dice rolling from the thrower's side to the far wall and back to where they rest (each die
turning about the axis it rolls on, so it comes to rest showing its resting face), then the dice at
rest with fresh sensor noise in every frame. `last_moving` is the index of the last frame in which
a die is not yet where it rests: the clock of the "last motion -> result" benchmark starts there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .camera_model import axis_rotation
from .die_geometry import resting_centre
from .synthetic import SceneDie, render
from .synthetic_scenes import TableRig

ROLL_RADIUS = 0.6  # die edges: a tumbling cube turns about one radian per 0.6 edge of travel


@dataclass(frozen=True)
class ThrowFrames:
    """The frames of one throw and what they show."""

    before: list[np.ndarray]  # the empty table before the throw
    moving: list[np.ndarray]  # the dice rolling, bouncing and slowing down
    still: list[np.ndarray]  # the dice at rest (a camera keeps sending these, each with its own noise)
    rest: list[SceneDie]  # the dice where they came to rest (the truth)

    @property
    def last_moving(self) -> int:
        """Index (in before + moving + still) of the last frame in which a die still moves."""
        return len(self.before) + len(self.moving) - 1


def rolling_axis(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The axis a die rolling from a to b (table mm) turns about: level, across the direction of travel."""
    d = b - a
    n = float(np.hypot(d[0], d[1])) or 1.0
    return np.array([-d[1] / n, d[0] / n, 0.0])


def rolled_die(rest: SceneDie, path: list[np.ndarray], travelled: float) -> SceneDie:
    """The die `travelled` mm along `path` (polyline ending where it rests), turned by the distance still
    to roll on each leg, so that it arrives in its resting orientation."""
    legs = [(a, b, float(np.hypot(*(b - a)))) for a, b in zip(path, path[1:])]
    radius = ROLL_RADIUS * rest.size_mm
    rotation = rest.rotation
    left = sum(length for _, _, length in legs) - travelled
    where = path[-1]
    for a, b, length in reversed(legs):
        share = min(left, length)
        if share > 0:
            # Rolling forwards turns the die about the leg's axis; undo what is still to roll.
            rotation = axis_rotation(rolling_axis(a, b), -share / radius) @ rotation
            where = b - (b - a) * (share / length) if length else b
        left -= share
        if left <= 0:
            break
    centre = resting_centre(float(where[0]), float(where[1]), rotation, rest.size_mm)
    return SceneDie(centre, rotation, rest.style, "moving", rest.size_mm)


def throw_paths(rig: TableRig, rest: list[SceneDie], rng: np.random.Generator) -> list[list[np.ndarray]]:
    """Per die: from the thrower's side to the far wall (x = felt width) and back to its resting place."""
    w, h = rig.layout.felt_mm
    d = rig.layout.die_mm
    paths = []
    for die in rest:
        end = np.array([float(die.centre[0]), float(die.centre[1])])
        start = np.array([float(rng.uniform(0.03, 0.12) * w), float(np.clip(end[1] + rng.uniform(-60, 60), d, h - d))])
        bounce = np.array([w - 0.5 * d, float(np.clip((start[1] + end[1]) / 2 + rng.uniform(-40, 40), d, h - d))])
        paths.append([start, bounce, end])
    return paths


def render_throw(rig: TableRig, rest: list[SceneDie], rng: np.random.Generator, *, fps: float = 30.0,
                 seconds: float = 1.2, before: int = 6, still: int = 8) -> ThrowFrames:
    """The frames of a throw ending in `rest` (dice of a `random_scene`). The dice slow down steadily
    (rolling friction: distance covered ~ 1 - (1 - t)^1.5) and stop at the end of `seconds`."""
    paths = throw_paths(rig, rest, rng)
    lengths = [sum(float(np.hypot(*(b - a))) for a, b in zip(p, p[1:])) for p in paths]
    n = max(2, int(round(seconds * fps)))
    lit = rig.scene([], rng)  # one light for the whole throw: the table's lamps do not change mid-throw
    frames_before = [render(lit, rng)[0] for _ in range(before)]
    moving = []
    for i in range(n):
        u = i / n  # the frame after the last one (u = 1) shows the dice at rest
        dice = [rolled_die(r, p, length * (1.0 - (1.0 - u) ** 1.5)) for r, p, length in zip(rest, paths, lengths)]
        moving.append(render(replace(lit, dice=dice), rng)[0])
    frames_still = [render(replace(lit, dice=list(rest)), rng)[0] for _ in range(still)]
    return ThrowFrames(frames_before, moving, frames_still, rest)
