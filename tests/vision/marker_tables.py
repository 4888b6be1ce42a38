"""Calibration photos drawn independently of vision.synthetic: dark or light rails, markers on paper, labels beside.

`marker_table(game, seed, rail, labels)` draws a table's rail, felt and four markers seen top-down, then
views it through a random camera (tilted, at 0.7-1.4 m) with uneven light, blur and noise. Labels:
- "beside": a white label with printing next to each marker, touching its paper or a few mm off;
- "flush": as beside, but about a third of the markers are printed on the label's edge with no paper
  of their own: the rail touches their border on three sides (the independent rigs that `calibrate`
  refused);
- None: markers on their paper alone.
The camera keeps every marker in view. Returns the photo, the layout and the camera (the truth).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.camera_model import PinholeCamera
from vision.layouts import ARUCO_DICTIONARY, Layout, layout_for
from vision.markers import marker_corners_mm

TEXTURE_PX_PER_MM = 3.0


def draw_label(tex: np.ndarray, box: tuple[tuple[int, int], tuple[int, int]], text: str) -> None:
    """White paper with black printing running to its edge (never beyond it)."""
    (x0, y0), (x1, y1) = box
    paper = np.full((y1 - y0, x1 - x0, 3), 245, np.uint8)
    scale = paper.shape[0] / 14.0
    cv2.putText(paper, text, (0, int(paper.shape[0] * 0.8)), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20),
                max(1, int(scale * 2)), cv2.LINE_AA)
    region = tex[y0:y1, x0:x1]
    region[:] = paper[:region.shape[0], :region.shape[1]]


def table_texture(layout: Layout, rng: np.random.Generator, rail: tuple, felt: tuple, margin: float,
                  labels: str | None) -> tuple[np.ndarray, np.ndarray]:
    k = TEXTURE_PX_PER_MM
    border = layout.rail_mm + 60.0
    w, h = layout.felt_mm
    tex = np.empty((int((h + 2 * border) * k), int((w + 2 * border) * k), 3), np.uint8)
    tex[:] = rail

    def px(p):
        return int(round((p[0] + border) * k)), int(round((p[1] + border) * k))

    cv2.rectangle(tex, px((0, 0)), px((w, h)), felt, -1)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    side = int(round(layout.marker_mm * k))
    flush = {m for m in layout.markers if labels == "flush" and rng.random() < 0.35}
    for m, (cx, cy) in layout.markers.items():
        paper = layout.marker_mm * (0.5 + margin)
        if m not in flush:
            cv2.rectangle(tex, px((cx - paper, cy - paper)), px((cx + paper, cy + paper)), (250, 250, 250), -1)
        x0, y0 = px((cx - layout.marker_mm / 2, cy - layout.marker_mm / 2))
        tex[y0:y0 + side, x0:x0 + side] = dictionary.generateImageMarker(m, side)[..., None]
        if labels:
            gap = layout.marker_mm / 2 - paper if m in flush else float(rng.choice([0.0, 0.0, 2.0, 4.0]))
            lw, lh = layout.marker_mm * rng.uniform(1.0, 2.2), layout.marker_mm * rng.uniform(0.35, 0.8)
            where = int(rng.integers(0, 4))
            x, y = [(cx - lw / 2, cy - paper - gap - lh), (cx - lw / 2, cy + paper + gap),
                    (cx - paper - gap - lw, cy - lh / 2), (cx + paper + gap, cy - lh / 2)][where]
            draw_label(tex, (px((x, y)), px((x + lw, y + lh))), f"T{int(rng.integers(1, 9))} M{m}")
    to_mm = np.array([[1 / k, 0, -border], [0, 1 / k, -border], [0, 0, 1]])
    return tex, to_mm


def camera_seeing_every_marker(layout: Layout, rng: np.random.Generator) -> PinholeCamera:
    w, h = layout.felt_mm
    span = (w + 2 * layout.rail_mm + rng.uniform(60, 160), h + 2 * layout.rail_mm + rng.uniform(60, 160))
    centre = (w / 2 + rng.uniform(-15, 15), h / 2 + rng.uniform(-15, 15))
    tilt = tuple(float(t) for t in rng.uniform(-0.05, 0.05, 3))
    height = float(rng.uniform(700, 1400))
    papers = np.concatenate([marker_corners_mm(layout, m) + d for m in layout.markers
                             for d in ((-30, -30), (30, 30), (-30, 30), (30, -30))])
    while True:
        cam = PinholeCamera.over(centre, span, height_mm=height, tilt=tilt)
        px = cam.project(np.c_[papers, np.zeros(len(papers))])
        if px.min() >= 5 and (px[:, 0] <= cam.width - 5).all() and (px[:, 1] <= cam.height - 5).all():
            return cam
        span = (span[0] * 1.05, span[1] * 1.05)


def marker_table(game: str, seed: int, rail: str = "dark", labels: str | None = "beside"
                 ) -> tuple[np.ndarray, Layout, PinholeCamera]:
    rng = np.random.default_rng(seed)
    layout = layout_for(game)
    cam = camera_seeing_every_marker(layout, rng)
    rail_colour = tuple(int(c) for c in (rng.integers(10, 45, 3) if rail == "dark" else rng.integers(170, 230, 3)))
    felt = tuple(int(c) for c in rng.integers(20, 140, 3))
    tex, to_mm = table_texture(layout, rng, rail_colour, felt, float(rng.uniform(0.04, 0.2)), labels)
    view = cam.table_homography() @ to_mm
    out = cv2.warpPerspective(tex, view, (cam.width, cam.height), flags=cv2.INTER_AREA,
                              borderValue=(25, 25, 25)).astype(np.float32)
    yy, xx = np.mgrid[0:cam.height, 0:cam.width].astype(np.float32)
    gx, gy = rng.uniform(-0.3, 0.3, 2)
    out *= (1 + gx * (xx / cam.width - 0.5) + gy * (yy / cam.height - 0.5))[..., None]
    out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.3)))
    out += rng.normal(0, rng.uniform(1, 6), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8), layout, cam


def felt_error_mm(cal, layout: Layout, cam: PinholeCamera, n: int = 300) -> float:
    """Worst distance (mm) between points of the felt and where the calibration puts their pixels."""
    w, h = layout.felt_mm
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(0, w, n), rng.uniform(0, h, n), np.zeros(n)])
    back = cal.points_to_table(cam.project(pts))
    return float(np.hypot(*(back - pts[:, :2]).T).max())
