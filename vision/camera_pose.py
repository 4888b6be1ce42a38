"""The camera's pose from the table homography and its measured height above the felt.

A camera looking almost straight down cannot tell its focal length from its height using the
table plane alone; given the height (a tape measure at installation), the rest follows. With the
pose, the reader can predict how a flat die looks anywhere on the table (perspective shows the
sides facing the camera) and so tell a cocked or stacked die from a flat one.
"""

from __future__ import annotations

import numpy as np

from .camera_model import PinholeCamera


def pose_for_focal(table_to_image: np.ndarray, size: tuple[int, int], f: float) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (table -> camera, with the table's left-handed z-up frame) and centre (mm) for focal f."""
    w, h = size
    k_inv = np.array([[1 / f, 0, -w / (2 * f)], [0, 1 / f, -h / (2 * f)], [0, 0, 1]])
    m = k_inv @ table_to_image
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    m = m * scale
    if m[2, 2] < 0:  # the table must lie in front of the camera
        m = -m
    r1, r2, t = m[:, 0], m[:, 1], m[:, 2]
    r3 = -np.cross(r1, r2)  # z up in a frame whose y points down the image
    u, _, vt = np.linalg.svd(np.column_stack([r1, r2, r3]))
    r = u @ vt
    centre = -r.T @ t
    return r, centre


def camera_from_homography(image_to_table: np.ndarray, size: tuple[int, int], height_mm: float) -> PinholeCamera:
    """The pinhole camera (principal point at the image centre) `height_mm` above the table."""
    table_to_image = np.linalg.inv(image_to_table)
    lo, hi = 50.0, 200000.0
    for _ in range(80):  # the height grows with the focal length: bisect
        mid = (lo * hi) ** 0.5
        _, c = pose_for_focal(table_to_image, size, mid)
        if abs(c[2]) < height_mm:
            lo = mid
        else:
            hi = mid
    f = (lo * hi) ** 0.5
    r, c = pose_for_focal(table_to_image, size, f)
    tilt = r @ np.diag([1.0, 1.0, -1.0])
    return PinholeCamera(size[0], size[1], f, np.array([c[0], c[1], abs(c[2])]), tilt)
