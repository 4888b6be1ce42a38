"""Drawing one die for the renderer: face textures (pips, rounded corners, the hidden faces' pips showing
through a translucent body) and the lamps mirrored in its glossy faces."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from .camera_model import PinholeCamera
from .die_geometry import FACE_NORMALS
from .synthetic_looks import DieStyle

FACE_TEX = 64
PIPS = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)], 6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}
PIP_STEP = 0.54  # pip grid step in half-faces (face coordinates run -1..1)
PIP_RADIUS = 0.095  # in face edges


def face_axes(normal: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The face's own axes (its texture's x and y) in the die's frame."""
    n = np.array(normal, float)
    u = np.array([0.0, 0.0, 1.0]) if abs(n[2]) < 0.5 else np.array([1.0, 0.0, 0.0])
    u = u - n * (u @ n)
    u /= np.linalg.norm(u)
    return u, np.cross(n, u)


def to_tex(s: float) -> float:
    """Face coordinate (-1..1) -> texture pixel."""
    return (s + 1.0) * 0.5 * (FACE_TEX - 1)


def ghost_layer(value: int) -> np.ndarray:
    """Where the pips of the other faces show through a translucent die seen through face `value`:
    the opposite face's pips (mirrored, faint), the side faces' pips as streaks along the edges."""
    t = FACE_TEX
    layer = np.zeros((t, t), np.float32)
    n = np.array(FACE_NORMALS[value], float)
    u, v = face_axes(FACE_NORMALS[value])
    r = PIP_RADIUS * t * 16
    for other, normal in FACE_NORMALS.items():
        m = np.array(normal, float)
        if other == value:
            continue
        mu, mv = face_axes(normal)
        for gx, gy in PIPS[other]:
            p = m + PIP_STEP * gx * mu + PIP_STEP * gy * mv
            depth = 1.0 - float(p @ n)  # 0 on this face, 2 on the opposite one
            su, sv = float(p @ u), float(p @ v)
            if other + value == 7:
                centre = (int(round(to_tex(su) * 16)), int(round(to_tex(sv) * 16)))
                cv2.circle(layer, centre, int(0.9 * r), 0.85, -1, cv2.LINE_AA, shift=4)
                continue
            # A side face's pip, seen through the body near the edge it lies under, squashed towards it.
            inward = 0.12 * depth
            su, sv = su - np.sign(su) * inward * (abs(su) > 0.99), sv - np.sign(sv) * inward * (abs(sv) > 0.99)
            axes = (int(0.35 * r), int(r)) if abs(su) > abs(sv) else (int(r), int(0.35 * r))
            cv2.ellipse(layer, (int(round(to_tex(su) * 16)), int(round(to_tex(sv) * 16))), axes, 0, 0, 360,
                        0.5 * (1.0 - depth / 3.0), -1, cv2.LINE_AA, shift=4)
    return cv2.GaussianBlur(layer, (0, 0), 1.6)


@lru_cache(maxsize=64)
def face_texture(style: DieStyle, value: int) -> tuple[np.ndarray, np.ndarray]:
    """A die face (FACE_TEX square): colour, and per-pixel opacity (pips opaque, rounded corners clear)."""
    t = FACE_TEX
    tex = np.empty((t, t, 3), np.float32)
    tex[:] = style.body
    alpha = np.full((t, t), style.alpha, np.float32)
    yy, xx = np.mgrid[0:t, 0:t].astype(np.float32) / (t - 1) - 0.5
    bevel = max(0.06, style.rounding)
    edge = np.clip((0.5 - np.maximum(np.abs(xx), np.abs(yy))) / bevel, 0, 1)  # rounded edges look darker
    tex *= (0.72 + 0.28 * edge)[..., None]
    if style.ghost > 0:
        g = (style.ghost * ghost_layer(value))[..., None]
        tex = tex * (1.0 - g) + np.array(style.pips, np.float32) * g
    for gx, gy in PIPS[value]:
        centre = (int(round(to_tex(PIP_STEP * gx) * 16)), int(round(to_tex(PIP_STEP * gy) * 16)))
        cv2.circle(tex, centre, int(PIP_RADIUS * t * 16), style.pips, -1, cv2.LINE_AA, shift=4)
        cv2.circle(alpha, centre, int(PIP_RADIUS * t * 16), 1.0, -1, cv2.LINE_AA, shift=4)
    if style.rounding > 0:
        r = style.rounding
        cx, cy = np.abs(xx) - (0.5 - r), np.abs(yy) - (0.5 - r)
        outside = (cx > 0) & (cy > 0) & (np.hypot(cx, cy) > r)
        alpha[outside] = 0.0
    return tex, alpha


def highlights(cam: PinholeCamera, lamps: list[tuple[np.ndarray, float, float, float, float]], centre: np.ndarray,
               normal: np.ndarray, u: np.ndarray, v: np.ndarray, half: float) -> list[tuple]:
    """The lamps mirrored in a flat glossy face: (su, sv, radius, aspect, angle, power) in face coordinates.

    `lamps`: (position mm, radius mm, aspect, angle, power); `centre`, `normal`, `u`, `v`: the face in the
    table frame, `half` its half edge (mm).
    """
    out = []
    cam_pos = cam.position
    to_cam = float((cam_pos - centre) @ normal)
    if to_cam <= 0:
        return out
    for pos, radius, aspect, angle, power in lamps:
        to_lamp = float((pos - centre) @ normal)
        if to_lamp <= 0:
            continue
        mirrored = pos - 2.0 * to_lamp * normal
        ray = mirrored - cam_pos
        t = -to_cam / float(ray @ normal)
        p = cam_pos + t * ray - centre
        su, sv = float(p @ u) / half, float(p @ v) / half
        size = radius * to_cam / (to_cam + to_lamp) / half
        if abs(su) > 1 + size or abs(sv) > 1 + size:
            continue
        axis = np.array([np.cos(angle), np.sin(angle), 0.0])
        out.append((su, sv, size, aspect, float(np.arctan2(axis @ v, axis @ u)), power))
    return out


def with_highlights(tex: np.ndarray, spots: list[tuple], gloss: float) -> np.ndarray:
    """The face texture with the lamps' mirror images: white, saturated in the middle, soft at the rim."""
    layer = np.zeros(tex.shape[:2], np.float32)
    for su, sv, size, aspect, angle, power in spots:
        a = max(1, int(size * (FACE_TEX - 1) * 0.5 * 16))
        b = max(1, int(a / aspect))
        cv2.ellipse(layer, (int(round(to_tex(su) * 16)), int(round(to_tex(sv) * 16))), (a, b),
                    float(np.degrees(angle)), 0, 360, power, -1, cv2.LINE_AA, shift=4)
    layer = np.clip(cv2.GaussianBlur(layer, (0, 0), 1.5) * 1.6 * gloss, 0.0, 1.0)[..., None]
    return tex * (1.0 - layer) + 255.0 * layer
