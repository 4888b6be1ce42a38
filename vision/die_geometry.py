"""Die geometry shared by the renderer and the pose fitter: face normals, resting rotations, corners."""

from __future__ import annotations

import math

import numpy as np

from .camera_model import rotation

# Unit normals of the faces in the die's own frame (opposite faces sum to 7).
FACE_NORMALS = {1: (0, 0, 1), 6: (0, 0, -1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0)}
UNIT_CORNERS = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)


def align(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A rotation taking unit vector a onto unit vector b."""
    v = np.cross(a, b)
    c = float(a @ b)
    if np.linalg.norm(v) < 1e-9:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0]) if abs(a[0]) > 0.5 else np.diag([-1.0, 1.0, -1.0])
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + vx @ vx * (1.0 / (1.0 + c))


def resting_rotation(top: int, yaw: float, tilt: float = 0.0, tilt_dir: float = 0.0) -> np.ndarray:
    """Rotation with face `top` up, turned by `yaw` and tipped by `tilt` (radians) towards `tilt_dir`."""
    r = align(np.array(FACE_NORMALS[top], float), np.array([0.0, 0.0, 1.0]))
    r = rotation(0.0, 0.0, yaw) @ r
    if tilt:
        axis = np.array([-math.sin(tilt_dir), math.cos(tilt_dir), 0.0])
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        r = (np.eye(3) + math.sin(tilt) * k + (1 - math.cos(tilt)) * k @ k) @ r
    return r


def corners(centre: np.ndarray, rot: np.ndarray, size: float) -> np.ndarray:
    """The 8 corners (mm) of a die of edge `size` centred at `centre` with rotation `rot`."""
    return (UNIT_CORNERS * (size / 2.0)) @ rot.T + centre


def resting_centre(x: float, y: float, rot: np.ndarray, size: float, base: float = 0.0) -> np.ndarray:
    """The centre of a die at (x, y) whose lowest corner rests at height `base`."""
    low = float(((UNIT_CORNERS * (size / 2.0)) @ rot.T)[:, 2].min())
    return np.array([x, y, base - low])
