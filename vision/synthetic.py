"""A synthetic dice table (numpy + OpenCV only): felt, layout lines, walls, markers, dice in 3D, a glass dome.

`render(scene, rng)` draws a `Scene` (a layout, a pinhole camera, dice with full 3D poses) as a BGR
frame and returns the ground truth of every die. Dice are cubes drawn face by face with perspective,
Lambert shading and shadows: translucent red dice with white pips and white dice with black pips.
The frame then gets glare, uneven light, blur and noise. Scenes are made by `synthetic_scenes`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from .camera_model import PinholeCamera
from .die_geometry import FACE_NORMALS, corners
from .layouts import ARUCO_DICTIONARY, Layout

TEXTURE_PX_PER_MM = 2.0
FACE_TEX = 64
LIGHT = np.array([0.25, -0.35, 1.0]) / np.linalg.norm([0.25, -0.35, 1.0])
PIPS = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)], 6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


@dataclass(frozen=True, slots=True)
class DieStyle:
    name: str
    body: tuple[int, int, int]  # BGR
    pips: tuple[int, int, int]
    alpha: float  # 1 = opaque; translucent dice let the felt through


RED = DieStyle("red", (38, 36, 196), (245, 245, 245), 0.82)
WHITE = DieStyle("white", (232, 234, 236), (25, 25, 25), 1.0)
STYLES = {"red": RED, "white": WHITE}


@dataclass(slots=True)
class SceneDie:
    """A die in 3D: centre (mm, z up), rotation (die frame -> table frame), style and what it is."""

    centre: np.ndarray
    rotation: np.ndarray
    style: DieStyle
    pose: str  # flat, cocked, stacked, overlapping, touching, off_table (ground truth)
    size_mm: float

    @property
    def top_value(self) -> int:
        """The most exposed top face: the face whose normal points most upwards."""
        return max(FACE_NORMALS, key=lambda v: (self.rotation @ np.array(FACE_NORMALS[v], float))[2])

    @property
    def tilt_deg(self) -> float:
        n = self.rotation @ np.array(FACE_NORMALS[self.top_value], float)
        return float(np.degrees(np.arccos(np.clip(n[2], -1, 1))))

    def corners(self) -> np.ndarray:
        return corners(self.centre, self.rotation, self.size_mm)


@dataclass(slots=True)
class Scene:
    layout: Layout
    camera: PinholeCamera
    dice: list[SceneDie]
    dome: bool = False
    noise: float = 3.0  # sigma of the sensor noise
    blur: float = 0.6  # sigma of the blur
    light: tuple[float, float, float] = (0.0, 0.0, 0.0)  # x gradient, y gradient, vignette
    glare: list[tuple[float, float, float, float, float]] = field(default_factory=list)  # x, y, a, b, angle (px)
    felt: tuple[int, int, int] = (60, 110, 25)


@dataclass(frozen=True, slots=True)
class TruthDie:
    """Ground truth of one rendered die."""

    value: int  # most exposed top face
    pose: str
    x: float  # pixel of the top face centre
    y: float
    table_xy: tuple[float, float]
    style: str
    tilt_deg: float
    visible: bool  # False when another die hides its top face (bottom of a stack)


_TEXTURES: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def table_texture(layout: Layout, felt: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The table seen straight from above at TEXTURE_PX_PER_MM, and the map texture px -> table mm."""
    key = json.dumps([layout.as_json(), felt])
    if key not in _TEXTURES:
        if len(_TEXTURES) > 8:
            _TEXTURES.clear()
        _TEXTURES[key] = draw_table(layout, felt)
    return _TEXTURES[key]


def draw_table(layout: Layout, felt: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    k = TEXTURE_PX_PER_MM
    r = layout.rail_mm + 30.0
    w, h = layout.felt_mm
    size = (int((w + 2 * r) * k), int((h + 2 * r) * k))
    tex = np.empty((size[1], size[0], 3), np.uint8)
    tex[:] = (40, 70, 110)  # wood rail
    grain = np.random.default_rng(7).normal(0, 6, (size[1], 1, 1))
    tex[:] = np.clip(tex.astype(np.float32) + grain, 0, 255).astype(np.uint8)

    def px(p):
        return (int(round((p[0] + r) * k)), int(round((p[1] + r) * k)))

    cv2.rectangle(tex, px((0, 0)), px((w, h)), felt, -1)
    speckle = np.random.default_rng(11).normal(0, 5, tex.shape[:2]).astype(np.float32)
    felt_mask = np.zeros(tex.shape[:2], np.uint8)
    cv2.rectangle(felt_mask, px((0, 0)), px((w, h)), 255, -1)
    tex = np.where(felt_mask[..., None] > 0, np.clip(tex + speckle[..., None], 0, 255), tex).astype(np.uint8)
    for a, b in layout.lines:
        cv2.line(tex, px(a), px(b), (220, 225, 225), max(1, int(4 * k)), cv2.LINE_AA)
    if layout.middle:
        cv2.line(tex, px(layout.middle[0]), px(layout.middle[1]), (60, 200, 230), max(1, int(5 * k)), cv2.LINE_AA)
    for a, b in layout.walls:
        cv2.line(tex, px(a), px(b), (25, 40, 60), max(1, int(10 * k)), cv2.LINE_AA)
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


@lru_cache(maxsize=32)
def face_texture(style: DieStyle, value: int) -> tuple[np.ndarray, np.ndarray]:
    """A die face (FACE_TEX square): colour, and per-pixel opacity (pips opaque)."""
    t = FACE_TEX
    tex = np.empty((t, t, 3), np.float32)
    tex[:] = style.body
    alpha = np.full((t, t), style.alpha, np.float32)
    yy, xx = np.mgrid[0:t, 0:t].astype(np.float32) / (t - 1) - 0.5
    edge = np.clip((0.5 - np.maximum(np.abs(xx), np.abs(yy))) / 0.06, 0, 1)  # rounded edges look darker
    tex *= (0.72 + 0.28 * edge)[..., None]
    for gx, gy in PIPS[value]:
        cx, cy = (0.5 + 0.27 * gx) * (t - 1), (0.5 + 0.27 * gy) * (t - 1)
        cv2.circle(tex, (int(round(cx * 16)), int(round(cy * 16))), int(0.095 * t * 16), style.pips, -1,
                   cv2.LINE_AA, shift=4)
        cv2.circle(alpha, (int(round(cx * 16)), int(round(cy * 16))), int(0.095 * t * 16), 1.0, -1, cv2.LINE_AA,
                   shift=4)
    return tex, alpha


def face_axes(normal: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    n = np.array(normal, float)
    u = np.array([0.0, 0.0, 1.0]) if abs(n[2]) < 0.5 else np.array([1.0, 0.0, 0.0])
    u = u - n * (u @ n)
    u /= np.linalg.norm(u)
    return u, np.cross(n, u)


def draw_face(out: np.ndarray, cam: PinholeCamera, die: SceneDie, value: int) -> None:
    n_t = die.rotation @ np.array(FACE_NORMALS[value], float)
    u, v = face_axes(FACE_NORMALS[value])
    h = die.size_mm / 2.0
    centre_local = np.array(FACE_NORMALS[value], float) * h
    local = [centre_local + su * h * u + sv * h * v for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    pts = np.array(local) @ die.rotation.T + die.centre
    img = cam.project(pts).astype(np.float32)
    x0, y0 = np.floor(img.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(img.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, out.shape[1]), min(y1, out.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    tex, alpha = face_texture(die.style, value)
    t = FACE_TEX - 1
    src = np.array([(0, 0), (t, 0), (t, t), (0, t)], np.float32)
    m = cv2.getPerspectiveTransform(src, img - np.array([x0, y0], np.float32))
    size = (x1 - x0, y1 - y0)
    shade = 0.35 + 0.7 * max(0.0, float(n_t @ LIGHT))
    colour = cv2.warpPerspective(tex * shade, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    opacity = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    region = out[y0:y1, x0:x1]
    a = opacity[..., None]
    region[:] = region * (1.0 - a) + colour * a


def visible_faces(cam: PinholeCamera, die: SceneDie) -> list[tuple[float, int]]:
    out = []
    for value, normal in FACE_NORMALS.items():
        n_t = die.rotation @ np.array(normal, float)
        centre = die.centre + n_t * die.size_mm / 2.0
        view = cam.to_camera(centre[None])[0]
        n_c = cam.rotation @ n_t
        if n_c @ view < 0:
            out.append((float(view[2]), value))
    return out


def draw_shadows(out: np.ndarray, cam: PinholeCamera, dice: list[SceneDie]) -> None:
    mask = np.zeros(out.shape[:2], np.float32)
    for die in dice:
        c = die.corners()
        ground = c - LIGHT[None, :] * (c[:, 2:3] / LIGHT[2])
        ground[:, 2] = 0.0
        hull = cv2.convexHull(cam.project(ground).astype(np.float32)).astype(np.int32)
        cv2.fillConvexPoly(mask, hull, 1.0, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 3.0)
    out *= (1.0 - 0.4 * mask)[..., None]


def draw_dome(out: np.ndarray, scene: Scene, rng: np.random.Generator) -> None:
    (cx, cy), r = scene.layout.dome
    ring = scene.camera.project(np.array([(cx + r * np.cos(t), cy + r * np.sin(t), 0.0)
                                          for t in np.linspace(0, 2 * np.pi, 64)]))
    mask = np.zeros(out.shape[:2], np.float32)
    cv2.fillPoly(mask, [ring.astype(np.int32)], 1.0, cv2.LINE_AA)
    out[:] = out * (1 - 0.12 * mask[..., None]) + np.array([235, 230, 225], np.float32) * 0.12 * mask[..., None]
    cv2.polylines(out, [ring.astype(np.int32)], True, (235, 235, 235), 3, cv2.LINE_AA)


def draw_glare(out: np.ndarray, glare: list) -> None:
    if not glare:
        return
    layer = np.zeros(out.shape[:2], np.float32)
    for x, y, a, b, ang in glare:
        cv2.ellipse(layer, (int(x), int(y)), (max(1, int(a)), max(1, int(b))), ang, 0, 360, 1.0, -1, cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (0, 0), 2.0) * 0.55
    out[:] = out * (1 - layer[..., None]) + 255.0 * layer[..., None]


def render(scene: Scene, rng: np.random.Generator) -> tuple[np.ndarray, list[TruthDie]]:
    """Draw the scene; return the BGR frame and the ground truth of each die."""
    cam = scene.camera
    tex, to_mm = table_texture(scene.layout, scene.felt)
    h = cam.table_homography() @ to_mm
    out = cv2.warpPerspective(tex, h, (cam.width, cam.height), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(30, 30, 30)).astype(np.float32)
    draw_shadows(out, cam, scene.dice)
    faces = [(depth, i, value) for i, die in enumerate(scene.dice) for depth, value in visible_faces(cam, die)]
    for _, i, value in sorted(faces, reverse=True):
        draw_face(out, cam, scene.dice[i], value)
    if scene.dome and scene.layout.dome:
        draw_dome(out, scene, rng)
    draw_glare(out, scene.glare)
    gx, gy, vig = scene.light
    yy, xx = np.mgrid[0:cam.height, 0:cam.width].astype(np.float32)
    xx, yy = xx / cam.width - 0.5, yy / cam.height - 0.5
    out *= (1.0 + gx * xx + gy * yy - vig * (xx * xx + yy * yy))[..., None]
    if scene.blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), scene.blur)
    if scene.noise > 0:
        out += rng.normal(0.0, scene.noise, out.shape).astype(np.float32)
    frame = np.clip(out, 0, 255).astype(np.uint8)
    return frame, truth_of(scene)


def truth_of(scene: Scene) -> list[TruthDie]:
    truth = []
    for die in scene.dice:
        top = die.rotation @ np.array(FACE_NORMALS[die.top_value], float)
        x, y = scene.camera.project((die.centre + top * die.size_mm / 2.0)[None])[0]
        truth.append(TruthDie(die.top_value, die.pose, float(x), float(y), (float(die.centre[0]), float(die.centre[1])),
                              die.style.name, die.tilt_deg, die.pose != "stacked_under"))
    return truth
