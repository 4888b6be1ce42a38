"""The track of a throw: did the dice pass the middle line, or did one hit a wall on the way?

Macau 2010 Art. 3.2(2) (001): the throw is void when the dice do not pass the middle of the table,
unless one or both hit any wall. Portugal 1995 VI.7(b) (004): "unless they hit a wall before".
A die "passed" when its centre was beyond the middle line in any frame of the throw (passing and
rolling back counts). A wall hit is a die seen against a wall, or a track that came towards a wall
by three dice and went back by three dice, its closest frame within one frame's travel of the wall
(at 30 fps the contact frame itself is often missed; the blob centres jitter by a few mm). Such a bounce
counts only where the track is steady around it (one die's steps alike on each side of the contact): a position
linked from another die or a stray blob makes a zigzag towards a wall that looks like a bounce, and then
the middle rule cannot be judged from the frames and the throw is left to the dealer (None).

Something that stays put while the dice fly (layout printing the light makes differ from the empty-table model,
a chip, a glint, a die already at rest) is found at the same place frame after frame, and a track may be linked
through it: beyond the middle line, it passed for a die that passed (a craps throw short of the middle was
published valid: unseen seed 677, docs/vision.md, thirty-fourth session); by a wall, for a die that hit it. So the
rule is judged twice, with those places and without them (`without_still`); where the two disagree, the frames
cannot vouch for either, and the throw is left to the dealer (None).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .calibration import Calibration
from .reading import Reading

MAX_STEP_MM = 120.0  # furthest a die moves between two frames that are linked into one track
# A place found again within STILL_REACH die edges in STILL_FRAMES frames of the flight or more stayed put.
STILL_REACH = 0.5
STILL_FRAMES = 3
STEADY_RATIO = 2.0  # around a bounce, no step of one die longer than this many times the next (plus a die)


def side_of(line, p) -> float:
    (x1, y1), (x2, y2) = line
    return float((x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1))


def beyond_sign(cal: Calibration) -> float:
    """The sign of `side_of` on the far side of the middle line: the side holding the felt centre."""
    w, h = cal.layout.felt_mm
    return float(np.sign(side_of(cal.layout.middle, (w / 2.0, h / 2.0))) or 1.0)


def positions(reading: Reading, cal: Calibration, blobs: bool = True) -> list[tuple[float, float]]:
    """Table positions of the dice (and of the die-like blobs of a moving frame)."""
    out = []
    for d in reading.dice:
        out.append(d.table_xy if d.table_xy is not None else cal.to_table(d.x, d.y))
    for b in reading.blobs if blobs else ():
        out.append(b.table_xy if b.table_xy is not None else cal.to_table(b.x, b.y))
    return out


def link(frames: list[list[tuple[float, float]]]) -> list[list[tuple[float, float]]]:
    """Tracks ending at each die of the last frame, walking back greedily to the nearest position."""
    tracks = [[p] for p in frames[-1]]
    for frame in reversed(frames[:-1]):
        free = list(frame)
        for t in tracks:
            if not free:
                break
            d = [np.hypot(p[0] - t[-1][0], p[1] - t[-1][1]) for p in free]
            i = int(np.argmin(d))
            if d[i] <= MAX_STEP_MM:
                t.append(free.pop(i))
    return [list(reversed(t)) for t in tracks]


def distance_to_segment(p, seg) -> float:
    a, b = np.array(seg[0], float), np.array(seg[1], float)
    q = np.array(p, float)
    t = float(np.clip((q - a) @ (b - a) / max((b - a) @ (b - a), 1e-9), 0.0, 1.0))
    return float(np.linalg.norm(q - (a + t * (b - a))))


def steady(track: list[tuple[float, float]], k: int, die: float) -> bool:
    """The track around its closest frame `k` to a wall moves as one die. Of the two steps into and out of
    `k`, the shorter spans the contact (the die went to the wall and back between those frames) and says
    nothing; the steps on either side of it (two frames each way) must be alike on each side: none
    longer than STEADY_RATIO times the shorter plus a die (a die slows down from frame to frame, and loses
    speed at the wall, but it does not move 100 mm in one frame and 15 mm in the next). At least two frames
    of the track on each side of `k`."""
    if k < 2 or k + 2 >= len(track):
        return False  # a turn seen in the track's first or last two frames: too few frames to vouch for it
    def step(i: int) -> float:  # from frame i to frame i + 1
        return float(np.hypot(track[i + 1][0] - track[i][0], track[i + 1][1] - track[i][1]))
    contact_before = step(k - 1) <= step(k)
    before = [step(k - 2)] + ([] if contact_before else [step(k - 1)])
    after = ([step(k)] if contact_before else []) + [step(k + 1)]
    return all(len(side) < 2 or max(side) <= STEADY_RATIO * min(side) + die for side in (before, after))


def hit_wall(tracks: list[list[tuple[float, float]]], cal: Calibration) -> bool | None:
    """Did a die (a linked track) come against a wall, or turn back near one? None: the only sign of a hit
    is a turn near a wall where the track is not steady (`steady`), which the frames cannot vouch for."""
    die = cal.layout.die_mm
    for p in (q for t in tracks for q in t):
        # Against the wall: the centre half a die from it, plus a quarter die for rounding and blur.
        if any(distance_to_segment(p, w) <= 0.75 * die for w in cal.layout.walls):
            return True
    unsure = False
    for t in tracks:
        if len(t) < 3:
            continue
        for w in cal.layout.walls:
            # Distance to the wall along the track: a die that came towards it by three dice and went
            # back by three dice, its closest frame within one frame's travel (plus a die) of it, hit it.
            dist = np.array([distance_to_segment(p, w) for p in t])
            k = int(np.argmin(dist))
            if k == 0 or k == len(t) - 1:
                continue
            step = max(np.hypot(t[k][0] - t[k - 1][0], t[k][1] - t[k - 1][1]),
                       np.hypot(t[k + 1][0] - t[k][0], t[k + 1][1] - t[k][1]))
            came, went = dist[:k].max() - dist[k], dist[k + 1:].max() - dist[k]
            if came >= 3 * die and went >= 3 * die and dist[k] <= step + die:
                if steady(t, k, die):
                    return True
                unsure = True
    return None if unsure else False


def passed_middle(reading: Reading, track: Sequence[Reading], cal: Calibration) -> tuple[bool | None, str]:
    """True when every die passed the middle line or one hit a wall; else False and why; None and why when
    a die is short of the middle and the frames cannot tell whether one hit a wall (`hit_wall`), or when the answer
    rests on places that stayed put while the dice flew (`without_still`)."""
    flight = [positions(r, cal) for r in track]
    rest = positions(reading, cal, blobs=False)
    ok, why = judged_middle(flight + [rest], len(reading.dice), cal)
    moving = without_still(flight, cal.layout.die_mm)
    if moving == flight or judged_middle(moving + [rest], len(reading.dice), cal)[0] == ok:
        return ok, why
    return None, ("whether every die passed the middle line or one hit a wall rests on places found again and again "
                  "while the dice flew (something lying there: printing, a chip, a glint, a die at rest): the frames "
                  "cannot vouch for it")


def without_still(frames: list[list[tuple[float, float]]], die: float) -> list[list[tuple[float, float]]]:
    """The frames of a throw's flight without the places that stayed put: a position found again, within STILL_REACH
    die edges, in STILL_FRAMES frames or more (its own counted). A die in flight moves on; what lies in one place for
    three frames of the flight is something lying there, or a die already at rest."""
    reach = STILL_REACH * die
    cells: dict[tuple[int, int], list[tuple[float, float, int]]] = {}  # a grid of `reach`: near places, few looks
    for k, f in enumerate(frames):
        for x, y in f:
            cells.setdefault((int(x // reach), int(y // reach)), []).append((x, y, k))
    def found_again(p: tuple[float, float]) -> int:
        cx, cy = int(p[0] // reach), int(p[1] // reach)
        return len({k for i in (-1, 0, 1) for j in (-1, 0, 1) for x, y, k in cells.get((cx + i, cy + j), ())
                    if math.hypot(x - p[0], y - p[1]) <= reach})
    return [[p for p in f if found_again(p) < STILL_FRAMES] for f in frames]


def judged_middle(frames: list[list[tuple[float, float]]], dice: int, cal: Calibration) -> tuple[bool | None, str]:
    """`passed_middle` on these frames' positions, the resting dice's last."""
    sign = beyond_sign(cal)
    line = cal.layout.middle
    tracks = link(frames)[:dice]
    short = [t[-1] for t in tracks if not any(side_of(line, p) * sign > 0 for p in t)]
    if not short:
        return True, ""
    hit = hit_wall(tracks, cal)
    if hit:
        return True, ""
    x, y = short[0]
    if hit is None:
        return None, (f"die resting at ({x:.0f}, {y:.0f}) mm never passed the middle line; whether a die hit a "
                      "wall the frames of the throw cannot tell (a track that jumps)")
    return False, f"die resting at ({x:.0f}, {y:.0f}) mm never passed the middle line and no die hit a wall"
