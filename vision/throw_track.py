"""The track of a throw: did the dice pass the middle line, or did one hit a wall on the way?

Macau 2010 Art. 3.2(2) (001): the throw is void when the dice do not pass the middle of the table,
unless one or both hit any wall. Portugal 1995 VI.7(b) (004): "unless they hit a wall before".
A die "passed" when its centre was beyond the middle line in any frame of the throw (passing and
rolling back counts). A wall hit is a die seen against a wall, or a track that came towards a wall
by three dice and went back by three dice, its closest frame within one frame's travel of the wall
(at 30 fps the contact frame itself is often missed; the blob centres jitter by a few mm).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .calibration import Calibration
from .reading import Reading

MAX_STEP_MM = 120.0  # furthest a die moves between two frames that are linked into one track


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


def hit_wall(tracks: list[list[tuple[float, float]]], cal: Calibration) -> bool:
    """Did a die (a linked track) come against a wall, or turn back near one?"""
    die = cal.layout.die_mm
    for p in (q for t in tracks for q in t):
        # Against the wall: the centre half a die from it, plus a quarter die for rounding and blur.
        if any(distance_to_segment(p, w) <= 0.75 * die for w in cal.layout.walls):
            return True
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
                return True
    return False


def passed_middle(reading: Reading, track: Sequence[Reading], cal: Calibration) -> tuple[bool, str]:
    """True when every die passed the middle line or one hit a wall; else False and why."""
    frames = [positions(r, cal) for r in track] + [positions(reading, cal, blobs=False)]
    sign = beyond_sign(cal)
    line = cal.layout.middle
    tracks = link(frames)[: len(reading.dice)]
    short = [t[-1] for t in tracks if not any(side_of(line, p) * sign > 0 for p in t)]
    if not short:
        return True, ""
    if hit_wall(tracks, cal):
        return True, ""
    x, y = short[0]
    return False, f"die resting at ({x:.0f}, {y:.0f}) mm never passed the middle line and no die hit a wall"
