"""Random scenes for the renderer: dice flat, cocked, stacked, leaning, touching, off the felt; throws with tracks.

A `TableRig` is one table under one fixed camera (layout, camera pose, look, lamps); its empty frame
calibrates the reader as on a real table. `random_rig(game, rng, split=...)` draws its look from the
`tune` or the `unseen` looks (synthetic_looks). `random_scene` makes one throw's resting dice of a
given kind (`valid`, `at_wall` — valid, one die lying flat against a wall or the dome —, `cocked` — tipped
against something small or against a wall or the dome —,
`stacked`, `overlapping`, `touching`, `off_table`, `not_past_middle`, `wall_bounce`); some throws put
a die where a lamp is mirrored in its top face. `throw_track` gives the table positions of the dice
in the frames before they stopped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .camera_model import PinholeCamera, axis_rotation, rotation
from .die_geometry import resting_rotation
from .layouts import Layout, layout_for
from .synthetic import Scene, SceneDie
from .synthetic_looks import DieStyle, Look, random_look
from .synthetic_supports import Support

KINDS = ("valid", "cocked", "stacked", "overlapping", "touching", "off_table", "not_past_middle", "wall_bounce",
         "at_wall")
DICE_PER_GAME = {"craps": 2, "banca-francesa": 3, "cussec": 3, "paikao": 4}


def placed(x: float, y: float, rot: np.ndarray, style: DieStyle, pose: str, size: float, base: float = 0.0) -> SceneDie:
    """A die whose lowest corner rests at height `base`."""
    die = SceneDie(np.array([x, y, 0.0]), rot, style, pose, size)
    die.centre[2] = base - die.corners()[:, 2].min()
    return die


@dataclass(frozen=True)
class TableRig:
    """One table under one fixed camera."""

    game: str
    layout: Layout
    camera: PinholeCamera
    look: Look
    glare: tuple = ()  # highlights of the table's fixed lights (and of the glass dome): x, y, a, b, angle (px)
    lamps: tuple = ()  # lamps mirrored in glossy faces: (position mm, radius mm, aspect, angle, power)
    lamp_spots: tuple = ()  # where each lamp is mirrored in a flat die's top face (table mm)

    @property
    def felt(self) -> tuple[int, int, int]:
        return self.look.felt

    @property
    def style(self) -> DieStyle:
        return self.look.style

    def on_felt(self, felt: tuple[int, int, int], name: str) -> "TableRig":
        """The same table, camera and dice on another felt (BGR), of the family `name`."""
        return replace(self, look=replace(self.look, felt=felt, felt_name=name))

    def scene(self, dice: list[SceneDie], rng: np.random.Generator, *, clean: bool = False,
              supports: list[Support] | None = None) -> Scene:
        """The dice (and any chips or coins, `supports`) on this table; `clean` (the calibration frame) has no light
        change and Scene's own noise and blur (sigma 3 and 0.6: one photo); other scenes draw noise sigma 1-5, blur
        0-1 and a light change."""
        s = Scene(self.layout, self.camera, dice, dome=self.layout.dome is not None, glare=list(self.glare),
                  look=self.look, lamps=list(self.lamps), supports=list(supports or []))
        if not clean:
            s.noise = float(rng.uniform(1.0, 5.0))
            s.blur = float(rng.uniform(0.0, 1.0))
            s.light = (float(rng.uniform(-0.25, 0.25)), float(rng.uniform(-0.25, 0.25)), float(rng.uniform(0, 0.5)))
        return s


def random_rig(game: str, rng: np.random.Generator, style: DieStyle | None = None, split: str = "tune") -> TableRig:
    """A table of `game` under a camera 0.8-1.2 m above it, with a look of `split` (dice of `style` if given)."""
    layout = layout_for(game)
    w, h = layout.felt_mm
    span = (w + 2 * layout.rail_mm + 110.0, h + 2 * layout.rail_mm + 110.0)
    centre = (w / 2 + rng.uniform(-5, 5), h / 2 + rng.uniform(-5, 5))
    tilt = tuple(float(t) for t in rng.uniform(-0.025, 0.025, 3))
    cam = PinholeCamera.over(centre, span, height_mm=float(rng.uniform(800, 1200)), tilt=tilt)
    look = random_look(split, game, rng, style)
    rig = TableRig(game, layout, cam, look, random_glare(cam, layout, rng))
    lamps, spots = [], []
    x0, y0, x1, y1 = area(rig)
    for lamp in look.lamps:
        # Hung where a flat die's top face at the target mirrors it into the camera.
        target = np.array([x0 + lamp.target[0] * (x1 - x0), y0 + lamp.target[1] * (y1 - y0), layout.die_mm])
        ray = target - cam.position
        reach = (lamp.height_mm - target[2]) / -ray[2]
        pos = target + reach * np.array([ray[0], ray[1], -ray[2]])
        lamps.append((pos, lamp.radius_mm, lamp.aspect, lamp.angle, lamp.power))
        spots.append((float(target[0]), float(target[1])))
    return TableRig(game, layout, cam, look, rig.glare, tuple(lamps), tuple(spots))


def camera_leaning(rig: TableRig, degrees: float, towards: float) -> TableRig:
    """The same table under its camera leaning `degrees` off straight down towards `towards` (radians, in the
    table's frame), moved back at the same height so that it still looks at the same point of the table (an
    installation's camera mounted off the vertical). The lamps stay where they hang."""
    cam = rig.camera
    spin = math.atan2(cam.tilt[1, 0], cam.tilt[0, 0])  # the camera's turn about its axis is kept
    level = np.array([math.sin(towards), -math.cos(towards), 0.0])  # the lean turns about this horizontal axis
    lean = axis_rotation(level, math.radians(degrees))
    leaning = PinholeCamera(cam.width, cam.height, cam.focal_px, cam.position, rotation(0.0, 0.0, spin) @ lean)
    axis, old = leaning.optical_axis, cam.optical_axis
    h = cam.position[2]
    looked_at = cam.position[:2] + h * old[:2] / -old[2]
    position = np.array([*(looked_at - h * axis[:2] / -axis[2]), h])
    return replace(rig, camera=PinholeCamera(cam.width, cam.height, cam.focal_px, position, leaning.tilt))


def random_glare(cam: PinholeCamera, layout: Layout, rng: np.random.Generator) -> tuple:
    """Highlights of the lights on the felt, more of them on a glass dome; never on a marker
    (installers keep the lights off them, or the table could not be calibrated)."""
    n = int(rng.integers(0, 3)) + (2 if layout.dome else 0)
    markers = cam.project(np.array([(x, y, 0.0) for x, y in layout.markers.values()]))
    clear = 2.0 * layout.marker_mm * cam.focal_px / cam.position[2] + 45.0
    out = []
    while len(out) < n:
        x, y = rng.uniform(0.2, 0.8) * cam.width, rng.uniform(0.2, 0.8) * cam.height
        if np.min(np.hypot(markers[:, 0] - x, markers[:, 1] - y)) < clear:
            continue
        out.append((float(x), float(y), float(rng.uniform(6, 40)), float(rng.uniform(2, 8)), float(rng.uniform(0, 180))))
    return tuple(out)


def area(rig: TableRig) -> tuple[float, float, float, float]:
    """Where resting dice go: (x0, y0, x1, y1) mm inside the felt, past the middle, or inside the dome."""
    d = rig.layout.die_mm
    if rig.layout.dome:
        (cx, cy), r = rig.layout.dome
        q = (r - 1.2 * d) / math.sqrt(2)
        return cx - q, cy - q, cx + q, cy + q
    w, h = rig.layout.felt_mm
    x0 = rig.layout.middle[0][0] + 1.5 * d if rig.layout.middle else 1.5 * d
    return x0, 1.5 * d, w - 1.5 * d, h - 1.5 * d


def free_spots(rig: TableRig, n: int, rng: np.random.Generator, box=None, gap: float = 2.2,
               taken: list[tuple[float, float]] | None = None) -> list[tuple[float, float]]:
    """`n` places in `box` (default: where resting dice go) at least `gap` dice apart, the first ones `taken`."""
    x0, y0, x1, y1 = box or area(rig)
    d = rig.layout.die_mm
    spots: list[tuple[float, float]] = list(taken or [])
    for _ in range(2000):
        if len(spots) == n:
            break
        p = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
        if all(math.dist(p, q) > gap * d for q in spots):
            spots.append(p)
    if len(spots) < n:
        raise RuntimeError("no room for the dice")
    return spots


def under_lamp(rig: TableRig, rng: np.random.Generator) -> list[tuple[float, float]]:
    """Sometimes (the look's `under_lamp` share of throws) the first die lands where a lamp is mirrored."""
    if not rig.lamp_spots or rng.random() >= rig.look.under_lamp:
        return []
    x, y = rig.lamp_spots[int(rng.integers(0, len(rig.lamp_spots)))]
    r, a = rng.uniform(0.0, 0.45) * rig.layout.die_mm, rng.uniform(0, 2 * math.pi)
    return [(x + r * math.cos(a), y + r * math.sin(a))]


def cocked_die(rig: TableRig, x: float, y: float, rng: np.random.Generator, tilt_range: tuple[float, float]
               ) -> tuple[SceneDie, bool]:
    """A die resting on one edge, tipped `tilt_range` degrees: half of the time leaning on a wall (or the
    dome), else on something small beside it (a chip) at (x, y). Returns the die and whether it leans on a wall."""
    d = rig.layout.die_mm
    tilt = math.radians(rng.uniform(*tilt_range))
    top = int(rng.integers(1, 7))
    walls = wall_places(rig)
    if walls and rng.random() < 0.5:
        (wx, wy), (nx, ny) = walls[int(rng.integers(0, len(walls)))](rng)
        towards = math.atan2(-ny, -nx)  # tipped towards the wall it leans on
        yaw = towards + int(rng.integers(0, 4)) * math.pi / 2 + rng.uniform(-0.12, 0.12)
        rot = resting_rotation(top, yaw, tilt, towards)
        return against((wx, wy), (nx, ny), placed(0.0, 0.0, rot, rig.style, "cocked", d)), True
    yaw = rng.uniform(0, 2 * math.pi)
    rot = resting_rotation(top, yaw, tilt, yaw + int(rng.integers(0, 4)) * math.pi / 2)
    return placed(x, y, rot, rig.style, "cocked", d), False


def tipped_to_nadir(rig: TableRig, x: float, y: float, rng: np.random.Generator, spread: float = 4.0) -> SceneDie:
    """A die at (x, y) on one edge, tipped towards the point under the camera by about the angle the camera sees
    it at (+-`spread` degrees, at least 8): its top face then looks straight at the camera and no side face shows,
    as a flat die's under the camera. A flat die there would show the side faces turned to the camera's foot, so
    only their absence tells it is tipped (the cocked die the pose network took for flat most often: tune seed
    9813, 217 of 300 seen flat before it was trained on them; tune seed 9811, 1 of 96 tipped the other way). For
    training frames (`make_synthetic_set.py --nadir-cocked`) and its probe (`synthetic_eval.probe_tipped_to_nadir`);
    `evaluate_synthetic`'s throws are drawn as before."""
    cx, cy, cz = (float(v) for v in rig.camera.position)
    view = math.degrees(math.atan2(math.hypot(x - cx, y - cy), cz))
    tilt = max(8.0, view + rng.uniform(-spread, spread))
    towards = math.atan2(cy - y, cx - x) + math.radians(rng.uniform(-spread, spread))
    yaw = towards + int(rng.integers(0, 4)) * math.pi / 2
    rot = resting_rotation(int(rng.integers(1, 7)), yaw, math.radians(tilt), towards)
    return placed(x, y, rot, rig.style, "cocked", rig.layout.die_mm)


def valid_with_one_tipped_to_nadir(rig: TableRig, rng: np.random.Generator) -> list[SceneDie]:
    """A valid throw's resting dice, one of them (drawn) put back where it lay but tipped towards the camera's foot
    (`tipped_to_nadir`)."""
    dice = random_scene(rig, "valid", rng)
    k = int(rng.integers(0, len(dice)))
    dice[k] = tipped_to_nadir(rig, float(dice[k].centre[0]), float(dice[k].centre[1]), rng)
    return dice


def wall_places(rig: TableRig) -> list:
    """For each wall a die can lean on: a function rng -> (a point of the wall, its normal into the table)."""
    d = rig.layout.die_mm
    x0, y0, x1, y1 = area(rig)
    places = []
    if rig.layout.dome:
        (cx, cy), r = rig.layout.dome

        def on_dome(rng):
            a = rng.uniform(0, 2 * math.pi)
            return (cx + r * math.cos(a), cy + r * math.sin(a)), (-math.cos(a), -math.sin(a))
        return [on_dome]
    w, h = rig.layout.felt_mm
    for (ax, ay), (bx, by) in rig.layout.walls:
        ex, ey = bx - ax, by - ay
        length = math.hypot(ex, ey)
        nx, ny = -ey / length, ex / length
        if nx * (w / 2 - ax) + ny * (h / 2 - ay) < 0:
            nx, ny = -nx, -ny

        def on_wall(rng, a=(ax, ay), e=(ex, ey), n=(nx, ny)):
            for _ in range(50):
                t = rng.uniform(0.1, 0.9)
                p = (a[0] + t * e[0], a[1] + t * e[1])
                # Along the wall, inside where resting dice go (past the middle line for craps).
                if x0 - d <= p[0] + n[0] * d <= x1 + d and y0 - d <= p[1] + n[1] * d <= y1 + d:
                    return p, n
            return (a[0] + 0.5 * e[0], a[1] + 0.5 * e[1]), n
        places.append(on_wall)
    return places


def flat_at_wall(rig: TableRig, rng: np.random.Generator) -> SceneDie:
    """A die lying flat against a wall (or the dome's glass), as dice often rest after hitting it: half of the time
    with a face flush against it, else turned any way with a corner or edge touching it."""
    d = rig.layout.die_mm
    walls = wall_places(rig)
    (wx, wy), (nx, ny) = walls[int(rng.integers(0, len(walls)))](rng)
    if rng.random() < 0.5:
        yaw = math.atan2(-ny, -nx) + rng.uniform(-0.08, 0.08)
    else:
        yaw = rng.uniform(0, 2 * math.pi)
    die = placed(0.0, 0.0, resting_rotation(int(rng.integers(1, 7)), yaw), rig.style, "flat", d)
    # Its corner nearest the wall just off it (1 mm inside the dome: the glass curves in where a straight wall
    # would not).
    return against((wx, wy), (nx, ny), die, gap=1.0 if rig.layout.dome else 0.3)


def against(point: tuple[float, float], normal: tuple[float, float], die: SceneDie, gap: float = 0.0) -> SceneDie:
    """`die` (placed at the origin) moved so that its corner nearest the wall through `point` lies `gap` mm off it,
    on the side `normal` (into the table) points to."""
    nx, ny = normal
    reach = float(max(-(c[0] * nx + c[1] * ny) for c in die.corners())) + gap
    die.centre[0], die.centre[1] = point[0] + nx * reach, point[1] + ny * reach
    return die


def flat(rig: TableRig, x: float, y: float, rng: np.random.Generator, pose: str = "flat") -> SceneDie:
    return placed(x, y, resting_rotation(int(rng.integers(1, 7)), rng.uniform(0, 2 * math.pi)), rig.style, pose,
                  rig.layout.die_mm)


def random_scene(rig: TableRig, kind: str, rng: np.random.Generator,
                 cocked_tilt: tuple[float, float] = (15.0, 40.0)) -> list[SceneDie]:
    """The resting dice of one throw of `kind` (see KINDS); a cocked die is tipped by `cocked_tilt` degrees."""
    n = DICE_PER_GAME[rig.game]
    d = rig.layout.die_mm
    if kind == "not_past_middle" or kind == "wall_bounce":
        w, h = rig.layout.felt_mm
        mid = rig.layout.middle[0][0]
        spots = free_spots(rig, n, rng, (1.5 * d, 1.5 * d, mid - 1.0 * d, h - 1.5 * d))
        return [flat(rig, x, y, rng) for x, y in spots]
    if kind == "cocked":
        # Resting on one edge (against a chip stack, a wall or the dome), tipped 15-40 degrees: past
        # 40 the top face and a side face are almost equally exposed, which no reader (or dealer) can rank.
        x, y = free_spots(rig, 1, rng)[0]
        die, _ = cocked_die(rig, x, y, rng, cocked_tilt)
        spots = free_spots(rig, n, rng, taken=[(float(die.centre[0]), float(die.centre[1]))])
        return [die] + [flat(rig, x, y, rng) for x, y in spots[1:]]
    if kind == "at_wall":
        # A valid throw, one die resting flat against a wall or the dome (no die tipped: the wall alone says nothing
        # of a die's pose).
        die = flat_at_wall(rig, rng)
        spots = free_spots(rig, n, rng, taken=[(float(die.centre[0]), float(die.centre[1]))])
        return [die] + [flat(rig, x, y, rng) for x, y in spots[1:]]
    spots = free_spots(rig, n, rng, taken=under_lamp(rig, rng))
    dice = [flat(rig, x, y, rng) for x, y in spots]
    if kind == "valid":
        return dice
    if kind == "off_table":
        w, h = rig.layout.felt_mm
        side = int(rng.integers(0, 4))
        off = rig.layout.rail_mm * 0.5 + rng.uniform(-0.15, 0.15) * rig.layout.rail_mm
        t = rng.uniform(0.2, 0.8)
        x, y = [(t * w, -off), (w + off, t * h), (t * w, h + off), (-off, t * h)][side]
        if rig.layout.middle and x < rig.layout.middle[0][0] + d:
            x, y = (w + off, t * h)
        if rig.layout.dome:
            (cx, cy), r = rig.layout.dome
            a = rng.uniform(0, 2 * math.pi)
            x, y = cx + (r + 1.2 * d) * math.cos(a), cy + (r + 1.2 * d) * math.sin(a)
        dice[0] = flat(rig, x, y, rng, "off_table")
        return dice
    if kind == "touching":
        x, y = spots[0]
        yaw = rng.uniform(0, 2 * math.pi)
        a = yaw + rng.integers(0, 4) * math.pi / 2
        dice[0] = placed(x, y, resting_rotation(int(rng.integers(1, 7)), yaw), rig.style, "touching", d)
        x2, y2 = x + 1.02 * d * math.cos(a), y + 1.02 * d * math.sin(a)
        dice[1] = placed(x2, y2, resting_rotation(int(rng.integers(1, 7)), yaw + rng.uniform(-0.05, 0.05)),
                         rig.style, "touching", d)
        return dice
    if kind == "stacked":
        x, y = spots[0]
        dice[0] = flat(rig, x, y, rng, "stacked_under")
        # The upper die anywhere over the lower one's middle, turned on it by any angle (0-45 degrees
        # covers every turn of a square); nearly aligned stacks right under the camera hide their sides.
        off = rng.uniform(0.0, 0.3) * d
        a = rng.uniform(0, 2 * math.pi)
        yaw = rng.uniform(-math.radians(45), math.radians(45))
        top_yaw = float(np.arctan2(dice[0].rotation[1, 0], dice[0].rotation[0, 0])) + yaw
        dice[1] = placed(x + off * math.cos(a), y + off * math.sin(a),
                         resting_rotation(int(rng.integers(1, 7)), top_yaw), rig.style, "stacked", d, base=d)
        return dice
    if kind == "overlapping":
        x, y = spots[0]
        yaw = rng.uniform(0, 2 * math.pi)
        dice[0] = placed(x, y, resting_rotation(int(rng.integers(1, 7)), yaw), rig.style, "overlapped", d)
        a = yaw + rng.integers(0, 4) * math.pi / 2 + rng.uniform(-0.3, 0.3)
        tilt = math.radians(rng.uniform(22, 38))
        # The leaning die stands beside the other, tipped towards it so its upper edge rests on it.
        dist = d * (0.5 + 0.5 * math.cos(tilt) + 0.5 * math.sin(tilt)) - 0.12 * d
        rot = resting_rotation(int(rng.integers(1, 7)), a, tilt, a + math.pi)
        dice[1] = placed(x + dist * math.cos(a), y + dist * math.sin(a), rot, rig.style, "overlapping", d)
        return dice
    raise ValueError(f"unknown scene kind {kind!r}; known: {', '.join(KINDS)}")


def throw_track(rig: TableRig, dice: list[SceneDie], kind: str, rng: np.random.Generator,
                frames: int = 8) -> list[list[tuple[float, float]]]:
    """Table positions (mm) of each die in the frames of the throw before the resting frame.

    Dice enter from the thrower's side (x < 0). For `wall_bounce` one die reaches the far wall and
    comes back; otherwise the dice roll straight to where they rest.
    """
    w, h = rig.layout.felt_mm
    d = rig.layout.die_mm
    track = []
    for i in range(frames):
        t = (i + 1) / (frames + 1)
        row = []
        for j, die in enumerate(dice):
            x1, y1 = float(die.centre[0]), float(die.centre[1])
            x0, y0 = -20.0, float(np.clip(y1 + rng.uniform(-30, 30), 1.5 * d, h - 1.5 * d))
            if kind == "wall_bounce" and j == 0:
                apex = w - d / 2.0
                if t < 0.5:
                    x, y = x0 + (apex - x0) * (t / 0.5), y0 + (y1 - y0) * t
                else:
                    x, y = apex + (x1 - apex) * ((t - 0.5) / 0.5), y0 + (y1 - y0) * t
            else:
                x, y = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
            row.append((x, y))
        track.append(row)
    return track
