"""A synthetic dice table (numpy + OpenCV only): felt, printed layout, walls, markers, dice in 3D, a glass dome.

`render(scene, rng)` draws a `Scene` (a layout, a pinhole camera, a look, dice with full 3D poses) as a
BGR frame and returns the ground truth of every die. Dice are cubes drawn face by face with perspective,
Lambert shading from the look's key light, shadows, rounded corners, the hidden faces' pips showing through
translucent bodies and the table's lamps mirrored in glossy faces (synthetic_dice); the table and its
walls come from synthetic_table. The frame then gets glare, uneven light, blur and noise. Looks are
drawn by `synthetic_looks`, scenes by `synthetic_scenes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .camera_model import PinholeCamera
from .die_geometry import FACE_NORMALS, corners
from .layouts import Layout
from .synthetic_dice import FACE_TEX, face_axes, face_texture, highlights, with_highlights
from .synthetic_looks import DEFAULT_LOOK, DICE, DieStyle, Look
from .synthetic_supports import Support, draw_supports
from .synthetic_table import draw_walls, table_texture

LIGHT = np.array([0.25, -0.35, 1.0]) / np.linalg.norm([0.25, -0.35, 1.0])
RED = DICE["tune"]["red"]
WHITE = DICE["tune"]["white"]
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
    look: Look = DEFAULT_LOOK  # felt, rail, walls, key light, printing
    lamps: list[tuple[np.ndarray, float, float, float, float]] = field(default_factory=list)  # mirrored in faces
    supports: list[Support] = field(default_factory=list)  # chips and coins on the felt, a die may rest on one


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
    glare: bool = False  # a lamp is mirrored in its top face


def face_frame(die: SceneDie, value: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A face of a die in the table frame: its centre, outward normal and texture axes u, v."""
    normal = np.array(FACE_NORMALS[value], float)
    u, v = face_axes(FACE_NORMALS[value])
    r = die.rotation
    return die.centre + r @ normal * (die.size_mm / 2.0), r @ normal, r @ u, r @ v


def draw_face(out: np.ndarray, scene: Scene, die: SceneDie, value: int) -> None:
    cam = scene.camera
    centre, n_t, u, v = face_frame(die, value)
    h = die.size_mm / 2.0
    pts = np.array([centre + su * h * u + sv * h * v for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
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
    shaded = tex * (0.35 + 0.7 * max(0.0, float(n_t @ np.array(scene.look.light))))
    spots = highlights(cam, scene.lamps, centre, n_t, u, v, h) if die.style.gloss > 0 else []
    if spots:
        shaded = with_highlights(shaded, spots, die.style.gloss)
        alpha = np.maximum(alpha, np.clip(shaded.max(axis=2) / 255.0 - 0.9, 0, 0.1) * 10)
    colour = cv2.warpPerspective(shaded, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
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


def draw_shadows(out: np.ndarray, cam: PinholeCamera, bodies: list[np.ndarray], light: np.ndarray) -> None:
    """The shadow the key light (`light`, a unit vector towards it) casts on the felt of each body, given by the points
    (mm, N x 3) whose hull it is: a die's corners, a chip's rims."""
    mask = np.zeros(out.shape[:2], np.float32)
    for c in bodies:
        ground = c - light[None, :] * (c[:, 2:3] / light[2])
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
    out *= (1 - 0.12 * mask)[..., None]
    out += np.array([235, 230, 225], np.float32) * 0.12 * mask[..., None]
    cv2.polylines(out, [ring.astype(np.int32)], True, (235, 235, 235), 3, cv2.LINE_AA)


def draw_glare(out: np.ndarray, glare: list) -> None:
    if not glare:
        return
    layer = np.zeros(out.shape[:2], np.float32)
    for x, y, a, b, ang in glare:
        cv2.ellipse(layer, (int(x), int(y)), (max(1, int(a)), max(1, int(b))), ang, 0, 360, 1.0, -1, cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (0, 0), 2.0) * 0.55
    out *= (1 - layer)[..., None]
    out += (255.0 * layer)[..., None]


def render(scene: Scene, rng: np.random.Generator) -> tuple[np.ndarray, list[TruthDie]]:
    """Draw the scene; return the BGR frame and the ground truth of each die."""
    cam = scene.camera
    light = np.array(scene.look.light)
    tex, to_mm = table_texture(scene.layout, scene.look)
    h = cam.table_homography() @ to_mm
    out = cv2.warpPerspective(tex, h, (cam.width, cam.height), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(30, 30, 30)).astype(np.float32)
    if scene.look.wall_mm > 0:
        draw_walls(out, cam, scene.layout, scene.look, light)
    draw_shadows(out, cam, [die.corners() for die in scene.dice] + [s.outline() for s in scene.supports], light)
    draw_supports(out, cam, scene.supports, light)
    faces = [(depth, i, value) for i, die in enumerate(scene.dice) for depth, value in visible_faces(cam, die)]
    for _, i, value in sorted(faces, reverse=True):
        draw_face(out, scene, scene.dice[i], value)
    if scene.dome and scene.layout.dome:
        draw_dome(out, scene, rng)
    draw_glare(out, scene.glare)
    gx, gy, vig = scene.light
    xx = (np.arange(cam.width, dtype=np.float32) / cam.width - 0.5)[None, :]
    yy = (np.arange(cam.height, dtype=np.float32) / cam.height - 0.5)[:, None]
    out *= (1.0 + gx * xx + gy * yy - vig * (xx * xx + yy * yy))[..., None]
    if scene.blur > 0.05:
        cv2.GaussianBlur(out, (0, 0), scene.blur, dst=out)
    if scene.noise > 0:
        add_noise(out, scene.noise, rng)
    return np.clip(out, 0, 255, out=out).astype(np.uint8), truth_of(scene)


def add_noise(out: np.ndarray, sigma: float, rng: np.random.Generator, rows: int = 90) -> None:
    """Sensor noise, drawn a band of rows at a time: the same numbers as one draw of the whole frame (the
    generator is consumed in the same order), without a float64 frame's worth of memory at once."""
    for y in range(0, out.shape[0], rows):
        band = out[y:y + rows]
        band += rng.normal(0.0, sigma, band.shape).astype(np.float32)


def truth_of(scene: Scene) -> list[TruthDie]:
    truth = []
    for die in scene.dice:
        centre, n_t, u, v = face_frame(die, die.top_value)
        x, y = scene.camera.project(centre[None])[0]
        spots = highlights(scene.camera, scene.lamps, centre, n_t, u, v, die.size_mm / 2.0) if die.style.gloss else []
        # Glare that matters: the middle of a lamp's mirror image lies on the face.
        glare = any(abs(su) < 1.0 and abs(sv) < 1.0 for su, sv, *_ in spots)
        truth.append(TruthDie(die.top_value, die.pose, float(x), float(y), (float(die.centre[0]), float(die.centre[1])),
                              die.style.name, die.tilt_deg, die.pose != "stacked_under", glare))
    return truth
