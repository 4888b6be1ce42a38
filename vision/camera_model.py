"""A pinhole camera over the table: table millimetres (x right, y down, z up) -> image pixels."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np


def rotation(rx: float, ry: float, rz: float) -> np.ndarray:
    """Rotation matrix from angles in radians about x, then y, then z."""
    cx, sx, cy, sy, cz, sz = np.cos(rx), np.sin(rx), np.cos(ry), np.sin(ry), np.cos(rz), np.sin(rz)
    mx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    my = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    mz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return mz @ my @ mx


def axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by `angle` radians about the unit vector `axis` (Rodrigues)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


@dataclass(frozen=True)
class PinholeCamera:
    """A camera at `position` (mm, table frame) looking down, tilted by small angles."""

    width: int
    height: int
    focal_px: float
    position: np.ndarray  # (3,) mm
    tilt: np.ndarray  # (3, 3) rotation applied after looking straight down

    @cached_property
    def rotation(self) -> np.ndarray:
        # Straight down: camera x = table x, camera y = table y, camera z (depth) = -table z.
        # Kept once made: the pose fitter projects thousands of corners per frame through it.
        return self.tilt @ np.diag([1.0, 1.0, -1.0])

    @property
    def optical_axis(self) -> np.ndarray:
        """The direction the camera looks along, in the table's frame ((0, 0, -1): straight down)."""
        return self.rotation.T @ np.array([0.0, 0.0, 1.0])

    @property
    def off_vertical_deg(self) -> float:
        """How far the camera's optical axis leans from straight down, in degrees (0: looking straight down)."""
        return float(np.degrees(np.arccos(np.clip(-self.optical_axis[2], -1.0, 1.0))))

    @property
    def intrinsics(self) -> np.ndarray:
        return np.array([[self.focal_px, 0, self.width / 2.0], [0, self.focal_px, self.height / 2.0], [0, 0, 1]])

    @cached_property
    def pixel_to_ray(self) -> np.ndarray:
        """rotation.T @ inv(intrinsics): a pixel (u, v, 1) -> the direction of its ray in the table frame."""
        return self.rotation.T @ np.linalg.inv(self.intrinsics)

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        return (np.asarray(pts, np.float64).reshape(-1, 3) - self.position) @ self.rotation.T

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Table points (N, 3) mm -> pixels (N, 2)."""
        c = self.to_camera(pts)
        return (c[:, :2] / c[:, 2:3]) * self.focal_px + np.array([self.width / 2.0, self.height / 2.0])

    def table_homography(self) -> np.ndarray:
        """Homography mapping table-plane mm (z = 0) to pixels."""
        r = self.rotation
        t = -r @ self.position
        return self.intrinsics @ np.column_stack([r[:, 0], r[:, 1], t])

    @classmethod
    def over(cls, centre_mm: tuple[float, float], span_mm: tuple[float, float], width: int = 1280, height: int = 720,
             height_mm: float = 1000.0, tilt: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> "PinholeCamera":
        """A camera `height_mm` above `centre_mm` whose view just holds `span_mm` of table."""
        f = min(width / span_mm[0], height / span_mm[1]) * height_mm
        return cls(width, height, f, np.array([centre_mm[0], centre_mm[1], height_mm]), rotation(*tilt))
