"""Drawing the table for the renderer: felt, rail, printed layout (lines, words, pictures of dice), markers,
and the walls standing on the felt's edges."""

from __future__ import annotations

import json
import zlib

import cv2
import numpy as np

from .camera_model import PinholeCamera
from .layouts import ARUCO_DICTIONARY, Layout
from .synthetic_dice import PIP_STEP, PIPS
from .synthetic_looks import Look

TEXTURE_PX_PER_MM = 2.0
WALL_THICKNESS_MM = 14.0
PRINT = (220, 225, 225)

_TEXTURES: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def table_texture(layout: Layout, look: Look) -> tuple[np.ndarray, np.ndarray]:
    """The table seen straight from above at TEXTURE_PX_PER_MM, and the map texture px -> table mm."""
    key = json.dumps([layout.as_json(), look.felt, look.rail, look.font, look.words, look.printed_dice])
    if key not in _TEXTURES:
        if len(_TEXTURES) > 8:
            _TEXTURES.clear()
        _TEXTURES[key] = draw_table(layout, look, zlib.crc32(key.encode()))
    return _TEXTURES[key]


def draw_table(layout: Layout, look: Look, seed: int) -> tuple[np.ndarray, np.ndarray]:
    k = TEXTURE_PX_PER_MM
    r = layout.rail_mm + 30.0
    w, h = layout.felt_mm
    size = (int((w + 2 * r) * k), int((h + 2 * r) * k))
    tex = np.empty((size[1], size[0], 3), np.uint8)
    tex[:] = look.rail
    grain = np.random.default_rng(7).normal(0, 6, (size[1], 1, 1))
    tex[:] = np.clip(tex.astype(np.float32) + grain, 0, 255).astype(np.uint8)

    def px(p):
        return (int(round((p[0] + r) * k)), int(round((p[1] + r) * k)))

    cv2.rectangle(tex, px((0, 0)), px((w, h)), look.felt, -1)
    speckle = np.random.default_rng(11).normal(0, 5, tex.shape[:2]).astype(np.float32)
    felt_mask = np.zeros(tex.shape[:2], np.uint8)
    cv2.rectangle(felt_mask, px((0, 0)), px((w, h)), 255, -1)
    tex = np.where(felt_mask[..., None] > 0, np.clip(tex + speckle[..., None], 0, 255), tex).astype(np.uint8)
    for a, b in layout.lines:
        cv2.line(tex, px(a), px(b), PRINT, max(1, int(4 * k)), cv2.LINE_AA)
    draw_printing(tex, layout, look, np.random.default_rng(seed), px)
    if layout.middle:
        cv2.line(tex, px(layout.middle[0]), px(layout.middle[1]), (60, 200, 230), max(1, int(5 * k)), cv2.LINE_AA)
    for a, b in layout.walls:
        cv2.line(tex, px(a), px(b), look.wall, max(1, int(10 * k)), cv2.LINE_AA)
    if layout.dome:
        (cx, cy), rad = layout.dome
        cv2.circle(tex, px((cx, cy)), int(rad * k), (200, 200, 200), max(1, int(3 * k)), cv2.LINE_AA)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    side = int(round(layout.marker_mm * k))
    for marker, (cx, cy) in layout.markers.items():
        q = layout.marker_mm * 0.7
        cv2.rectangle(tex, px((cx - q, cy - q)), px((cx + q, cy + q)), (255, 255, 255), -1)
        img = cv2.aruco.generateImageMarker(dictionary, marker, side)
        x0, y0 = px((cx - layout.marker_mm / 2, cy - layout.marker_mm / 2))
        tex[y0:y0 + side, x0:x0 + side] = img[..., None]
    to_mm = np.array([[1 / k, 0, -r], [0, 1 / k, -r], [0, 0, 1]])
    return tex, to_mm


def draw_printing(tex: np.ndarray, layout: Layout, look: Look, rng: np.random.Generator, px) -> None:
    """Words and numbers of the betting layout, and pictures of dice, printed on the felt."""
    k = TEXTURE_PX_PER_MM
    w, h = layout.felt_mm
    d = layout.die_mm
    for word in look.words:
        scale = float(rng.uniform(0.8, 1.6)) * d * k / 22.0
        x, y = px((rng.uniform(0.05, 0.75) * w, rng.uniform(0.1, 0.95) * h))
        cv2.putText(tex, word, (x, y), look.font, scale, PRINT, max(1, int(scale * 2)), cv2.LINE_AA)
    if not look.printed_dice:
        return
    for _ in range(4):
        x, y = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        side = d * float(rng.uniform(0.7, 1.1))
        for j in range(2):  # a pair, as on the proposition bets
            cx = x + j * 1.2 * side
            cv2.rectangle(tex, px((cx - side / 2, y - side / 2)), px((cx + side / 2, y + side / 2)), PRINT, -1)
            for gx, gy in PIPS[int(rng.integers(1, 7))]:
                cv2.circle(tex, px((cx + gx * PIP_STEP * side / 2, y + gy * PIP_STEP * side / 2)),
                           max(1, int(0.09 * side * k)), (30, 30, 150), -1, cv2.LINE_AA)


def draw_walls(out: np.ndarray, cam: PinholeCamera, layout: Layout, look: Look, light: np.ndarray) -> None:
    """The walls on the felt's edges: the inner face (seen from above the felt) and the top, cut back
    where the calibration markers lie (installers keep the markers in view)."""
    mask = np.zeros(out.shape[:2], np.uint8)
    layer = np.zeros_like(out)
    cx, cy = layout.felt_mm[0] / 2.0, layout.felt_mm[1] / 2.0
    hgt = look.wall_mm
    for (ax, ay), (bx, by) in layout.walls:
        ex, ey = bx - ax, by - ay
        n = np.array([-ey, ex, 0.0]) / max(np.hypot(ex, ey), 1e-9)
        if n[0] * (cx - ax) + n[1] * (cy - ay) < 0:
            n = -n  # the inner face looks towards the felt
        out_x, out_y = -n[0] * WALL_THICKNESS_MM, -n[1] * WALL_THICKNESS_MM
        inner = [(ax, ay, 0.0), (bx, by, 0.0), (bx, by, hgt), (ax, ay, hgt)]
        top = [(ax, ay, hgt), (bx, by, hgt), (bx + out_x, by + out_y, hgt), (ax + out_x, ay + out_y, hgt)]
        for quad, normal in ((inner, n), (top, np.array([0.0, 0.0, 1.0]))):
            shade = 0.45 + 0.6 * max(0.0, float(normal @ light))
            pts = np.round(cam.project(np.array(quad)) * 16).astype(np.int32)
            cv2.fillConvexPoly(layer, pts, tuple(float(c) * shade for c in look.wall), cv2.LINE_AA, shift=4)
            cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA, shift=4)
    for mx, my in layout.markers.values():
        q = layout.marker_mm * 0.8
        corners = cam.project(np.array([(mx - q, my - q, 0), (mx + q, my - q, 0), (mx + q, my + q, 0),
                                        (mx - q, my + q, 0)], float))
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 0)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    out *= 1.0 - a  # in place: the same pixels, without three more frames' worth of temporaries
    layer *= a
    out += layer
