"""Cocked dice held as a die can be held: what keeps a cube resting on one edge.

A cube tipped under 45 degrees about the edge it rests on has its centre over its own base, beyond that edge:
it falls back flat unless something holds its raised edge (the edge on its other side). So a die leaning *towards*
a wall or another die at such a tilt is not held (it falls back away from them), nor is one tipped on bare felt.
What holds it:
- something under its raised edge: a chip, a short stack of chips, a coin (drawn: `synthetic_supports`);
- a wall, the dome's glass or another die that its raised edge is pressed against, the die tipped away from it
  (wedged): friction at both contacts holds it, at a friction of 0.5 from 13 degrees of tilt, at 0.4 from 21 (the
  moments about the edge on the felt: mu_felt * (sin t + mu_die * cos t) >= (cos t - sin t) / 2); dice are wedged
  here from WEDGE_TILT.

`random_scene`'s `cocked` kind (synthetic_scenes.cocked_die) predates this: it leans its die towards a wall, or tips
it on a chip it does not draw. Kept as it is: the bench's mixes are measured with it; the probes here are the
geometries a real table shows, and since the thirty-first session the pose network is trained on them too
(`make_synthetic_set.py --held-cocked`; `chip_beside` puts chips by flat dice as well).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .die_geometry import resting_rotation
from .synthetic import SceneDie
from .synthetic_scenes import DICE_PER_GAME, TableRig, against, area, flat, free_spots, placed, wall_places
from .synthetic_supports import COIN_HEIGHT_MM, Support, random_support

WEDGE_TILT = 15.0  # degrees: dice are wedged from this tilt (see above)


def raised_edge(die: SceneDie) -> np.ndarray:
    """The middle (mm) of the raised bottom edge of a die resting on one edge, tipped under 45 degrees."""
    corners = die.corners()
    return corners[np.argsort(corners[:, 2])[2:4]].mean(axis=0)


def support_under(die: SceneDie, tilt: float, away: tuple[float, float], rng: np.random.Generator,
                  by_height: bool = True) -> Support:
    """A chip, a stack of chips or a coin under the raised edge of `die` (tipped by `tilt` radians, its raised edge
    towards the unit vector `away`): its near rim lies `reach` under the die, where the die's bottom face is
    (d - reach) sin(tilt) high, and the rest of it reaches out beyond the die. A coin only up to COIN_HEIGHT_MM
    (`by_height`; else a coin or a chip, half of the time each, as the probe of dice tipped towards the camera's foot
    first drew them)."""
    d = die.size_mm
    ex, ey, _ = raised_edge(die)
    reach = float(rng.uniform(0.1, 0.3)) * d
    height = (d - reach) * math.sin(tilt)
    kind = random_support(0.0, 0.0, height, rng, coin=height <= COIN_HEIGHT_MM if by_height else None)
    along = kind.radius - reach * math.cos(tilt)
    return Support(float(ex + away[0] * along), float(ey + away[1] * along), kind.radius, height, kind.colour,
                   kind.chip)


def rest_of_throw(rig: TableRig, held: list[SceneDie], supports: list[Support],
                  rng: np.random.Generator) -> list[SceneDie]:
    """The held dice (and what holds them) and the game's other dice lying flat, away from all of them."""
    taken = [(float(die.centre[0]), float(die.centre[1])) for die in held] + [(s.x, s.y) for s in supports]
    spots = free_spots(rig, DICE_PER_GAME[rig.game] + len(taken) - len(held), rng, taken=taken)[len(taken):]
    return held + [flat(rig, x, y, rng) for x, y in spots]


def tipped_to_nadir_held(rig: TableRig, rng: np.random.Generator, spread: float = 4.0
                         ) -> tuple[list[SceneDie], list[Support]]:
    """A valid throw's resting dice, one of them tipped towards the camera's foot as `tipped_to_nadir` tips it, held
    there: a chip or a coin under its raised edge (which lies on its side away from the camera's foot), or, from
    WEDGE_TILT, another die of the throw lying beyond it, which it is wedged against (half of the throws, where the
    tilt allows). The camera sits over the felt's middle, so no wall lies beyond a die tipped towards its foot. Not
    for dome games: under the dome no chip nor coin lies, and the camera over its middle sees the dice at angles
    under WEDGE_TILT. Returns the dice (the tipped one `cocked`, a die holding it `touching`) and the supports."""
    if rig.layout.dome is not None:
        raise ValueError(f"{rig.game}: no die rests tipped towards the camera's foot in a dome")
    d = rig.layout.die_mm
    cx, cy, cz = (float(v) for v in rig.camera.position)
    x0, y0, x1, y1 = area(rig)
    m = 1.6 * d + 40.0  # room for what holds it (a chip reaches 40 mm past the die)
    px, py = free_spots(rig, 1, rng, (x0 + m, y0 + m, x1 - m, y1 - m))[0]
    away = math.atan2(py - cy, px - cx) if math.hypot(px - cx, py - cy) > 1e-6 else rng.uniform(0, 2 * math.pi)
    ux, uy = math.cos(away), math.sin(away)
    towards = away + math.pi
    view = math.degrees(math.atan2(math.hypot(px - cx, py - cy), cz))
    tilt = math.radians(max(8.0, view + rng.uniform(-spread, spread)))
    rot = resting_rotation(int(rng.integers(1, 7)), towards + int(rng.integers(0, 4)) * math.pi / 2, tilt, towards)
    tipped = placed(px, py, rot, rig.style, "cocked", d)
    if math.degrees(tilt) >= WEDGE_TILT and rng.random() < 0.5:
        # The other die's face 0.2 mm past the raised edge, square to the direction away from the camera's foot.
        ex, ey, _ = raised_edge(tipped)
        quarter = int(rng.integers(0, 4)) * math.pi / 2
        reach = 0.2 + d / 2.0
        holder = placed(float(ex + ux * reach), float(ey + uy * reach),
                        resting_rotation(int(rng.integers(1, 7)), away + quarter), rig.style, "touching", d)
        return rest_of_throw(rig, [tipped, holder], [], rng), []
    supports = [support_under(tipped, tilt, (ux, uy), rng, by_height=False)]
    return rest_of_throw(rig, [tipped], supports, rng), supports


def cocked_held(rig: TableRig, rng: np.random.Generator, tilt_range: tuple[float, float] = (15.0, 40.0)
                ) -> tuple[list[SceneDie], list[Support], str]:
    """A valid throw's resting dice, one of them cocked as real dice are, tipped `tilt_range` degrees (from
    WEDGE_TILT when wedged): wedged against a wall (or, in a dome, the glass: every throw there), tipped away from
    it towards the table's middle, half of the time; else its raised edge on a chip, a stack of chips or a coin,
    tipped any way. Returns the dice (the cocked one first), the supports, and what holds the die ("wall", "dome",
    "chip or coin")."""
    d = rig.layout.die_mm
    top = int(rng.integers(1, 7))
    walls = wall_places(rig)
    if rig.layout.dome is not None or rng.random() < 0.5:
        tilt = math.radians(rng.uniform(max(WEDGE_TILT, tilt_range[0]), tilt_range[1]))
        (wx, wy), (nx, ny) = walls[int(rng.integers(0, len(walls)))](rng)
        towards = math.atan2(ny, nx)  # away from the wall, into the table: the raised edge pressed on the wall
        rot = resting_rotation(top, towards + int(rng.integers(0, 4)) * math.pi / 2, tilt, towards)
        # 1 mm off the dome's glass (it curves in where a straight wall would not), 0.2 mm off a wall.
        die = against((wx, wy), (nx, ny), placed(0.0, 0.0, rot, rig.style, "cocked", d),
                      gap=1.0 if rig.layout.dome else 0.2)
        return rest_of_throw(rig, [die], [], rng), [], "dome" if rig.layout.dome else "wall"
    tilt = math.radians(rng.uniform(*tilt_range))
    x0, y0, x1, y1 = area(rig)
    m = 40.0
    px, py = free_spots(rig, 1, rng, (x0 + m, y0 + m, x1 - m, y1 - m))[0]
    towards = rng.uniform(0, 2 * math.pi)
    rot = resting_rotation(top, towards + int(rng.integers(0, 4)) * math.pi / 2, tilt, towards)
    die = placed(px, py, rot, rig.style, "cocked", d)
    supports = [support_under(die, tilt, (-math.cos(towards), -math.sin(towards)), rng)]
    return rest_of_throw(rig, [die], supports, rng), supports, "chip or coin"


def chip_beside(rig: TableRig, dice: list[SceneDie], rng: np.random.Generator, supports: Sequence[Support] = ()
                ) -> list[Support]:
    """A chip, a short stack of chips or a coin lying on the felt 0.5-6 mm beside one of the flat dice, clear of the
    other dice and of `supports`, as chips lie about a real layout. For training (a network taught dice held up by
    chips must not learn that a chip by a die means it is tipped) and for `probe_chip_beside`. None in a dome (no chip
    lies under it), nor when no place is free (20 tries)."""
    flat_dice = [die for die in dice if die.pose in ("flat", "touching")]
    if rig.layout.dome is not None or not flat_dice:
        return []
    d = rig.layout.die_mm
    x0, y0, x1, y1 = area(rig)
    die = flat_dice[int(rng.integers(0, len(flat_dice)))]
    coin = bool(rng.random() < 0.5)
    height = float(rng.uniform(2.0, COIN_HEIGHT_MM)) if coin else 3.3 * int(rng.integers(1, 5))
    for _ in range(20):
        a = rng.uniform(0, 2 * math.pi)
        kind = random_support(0.0, 0.0, height, rng, coin=coin)
        reach = kind.radius + 0.75 * d  # 0.75 die edges: past the die's corners, however it is turned
        dist = reach + float(rng.uniform(0.5, 6.0))
        x, y = float(die.centre[0] + dist * math.cos(a)), float(die.centre[1] + dist * math.sin(a))
        clear = (all(math.hypot(x - o.centre[0], y - o.centre[1]) >= reach + 0.5 for o in dice if o is not die)
                 and all(math.hypot(x - s.x, y - s.y) >= kind.radius + s.radius + 0.5 for s in supports))
        if clear and x0 <= x <= x1 and y0 <= y <= y1:
            return [Support(x, y, kind.radius, height, kind.colour, kind.chip)]
    return []
