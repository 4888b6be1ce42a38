"""Camera calibration: four ArUco markers at the layout's corners -> homography to table millimetres.

The calibration stores the layout (felt polygon, middle line, walls, die size, dome circle) and the
homography, so every die centre can be placed on the table. It is saved as JSON (`version` 1) and
drawn on the calibration image as an annotated PNG for a person to check at a glance.

A calibration loaded from its file knows the SHA-256 of the bytes it was made from, and so does its empty-table photo
(`empty_table_photo`): the service publishes both at every start, so that an edited or swapped calibration shows off
the Pi, to a back office that knows the one approved for the table (docs/vision.md, "Calibration").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from .camera_model import PinholeCamera
from .camera_pose import camera_from_homography
from .drawing import label
from .errors import CalibrationError
from .layouts import ARUCO_DICTIONARY, Layout
from .markers import (detect_markers, detect_sightings, fitting_sightings, layout_error_mm,  # noqa: F401 - re-exported
                      marker_corners_mm, recover)

VERSION = 1
MAX_IMAGE_SIDE = 8192  # pixels: a calibration file's image_size is bounded (an edited one must not allocate gigabytes)


@dataclass(frozen=True)
class Calibration:
    """A fixed camera over a table: image pixels <-> table millimetres on the felt plane."""

    layout: Layout
    image_size: tuple[int, int]  # width, height
    homography: np.ndarray  # 3x3, image pixels -> table mm
    error_mm: float  # RMS distance of the marker corners mapped back onto the table
    camera_height_mm: float | None = None  # measured at installation; enables the 3D pose checks
    empty_table: Path | None = None  # the installation photo of the empty table (the reader's first model)
    notes: tuple[str, ...] = ()  # how the markers were found, when not plainly (not saved)
    recovered: tuple[int, ...] = ()  # markers the detector missed, found where the others put them (not saved)
    read_twice: tuple[int, ...] = ()  # ids read in more than one place: the sighting fitting the layout used
    sha256: str | None = field(default=None, compare=False)  # of the file it was loaded from (None: made, not loaded)

    @cached_property
    def camera(self) -> PinholeCamera | None:
        """The camera's pose (needs its height above the felt), or None."""
        if self.camera_height_mm is None:
            return None
        return camera_from_homography(self.homography, self.image_size, self.camera_height_mm)

    @property
    def inverse(self) -> np.ndarray:
        return np.linalg.inv(self.homography)

    def to_table(self, x: float, y: float) -> tuple[float, float]:
        p = self.homography @ np.array([x, y, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    def to_image(self, x: float, y: float) -> tuple[float, float]:
        p = self.inverse @ np.array([x, y, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    def points_to_image(self, pts) -> np.ndarray:
        a = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(a, self.inverse).reshape(-1, 2)

    def points_to_table(self, pts) -> np.ndarray:
        a = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(a, self.homography).reshape(-1, 2)

    def px_per_mm_at(self, x_mm: float, y_mm: float) -> float:
        d = self.layout.die_mm
        sq = self.points_to_image([(x_mm, y_mm), (x_mm + d, y_mm), (x_mm + d, y_mm + d), (x_mm, y_mm + d)])
        return float(np.sqrt(abs(cv2.contourArea(sq.astype(np.float32))))) / d

    @property
    def die_px(self) -> float:
        """Expected die edge in pixels (felt centre; the top face is a little nearer the camera)."""
        w, h = self.layout.felt_mm
        return self.px_per_mm_at(w / 2.0, h / 2.0) * self.layout.die_mm

    def felt_px(self, grow_mm: float = 0.0) -> np.ndarray:
        w, h = self.layout.felt_mm
        g = grow_mm
        return self.points_to_image([(-g, -g), (w + g, -g), (w + g, h + g), (-g, h + g)])

    def dome_px(self) -> tuple[tuple[float, float], float] | None:
        """The dome circle in pixels (centre, radius), or None when the layout has none."""
        if self.layout.dome is None:
            return None
        (cx, cy), r = self.layout.dome
        ring = self.points_to_image([(cx + r * np.cos(t), cy + r * np.sin(t)) for t in np.linspace(0, 2 * np.pi, 32)])
        centre = self.to_image(cx, cy)
        return centre, float(np.mean(np.hypot(ring[:, 0] - centre[0], ring[:, 1] - centre[1])))

    def check_frame_size(self, width: int, height: int) -> None:
        """CalibrationError unless frames of this size are what the calibration was made for."""
        if (width, height) != tuple(self.image_size):
            raise CalibrationError(f"calibrated for {self.image_size[0]}x{self.image_size[1]} frames, "
                                   f"got {width}x{height}")

    def search_mask(self, width: int, height: int, scale: float) -> np.ndarray:
        """Work-scale mask of where dice are looked for: the felt and its rail, without the markers."""
        self.check_frame_size(width, height)
        mask = np.zeros((round(height * scale), round(width * scale)), np.uint8)
        grow = self.layout.rail_mm + 3 * self.layout.die_mm
        cv2.fillPoly(mask, [np.round(self.felt_px(grow) * scale).astype(np.int32)], 255)
        for marker in self.layout.markers:
            c = marker_corners_mm(self.layout, marker)
            centre = c.mean(axis=0)
            grown = centre + (c - centre) * 1.5
            cv2.fillPoly(mask, [np.round(self.points_to_image(grown) * scale).astype(np.int32)], 0)
        return mask

    # --- storage -------------------------------------------------------------------------------
    def as_json(self) -> dict:
        w, h = self.layout.felt_mm
        dome = self.dome_px()
        return {
            "version": VERSION,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "error_mm": round(self.error_mm, 3),
            "camera_height_mm": self.camera_height_mm,
            "die_px": round(self.die_px, 2),
            "layout": self.layout.as_json(),
            "table_polygon_px": np.round(self.felt_px(), 2).tolist(),
            "middle_px": (np.round(self.points_to_image(self.layout.middle), 2).tolist()
                          if self.layout.middle else None),
            "walls_px": [np.round(self.points_to_image(s), 2).tolist() for s in self.layout.walls],
            "dome_px": [list(dome[0]), dome[1]] if dome else None,
            "empty_table": self.empty_table.name if self.empty_table is not None else None,
        }

    def save(self, path: Path | str, empty_table: np.ndarray | None = None) -> "Calibration":
        """Write the JSON; with `empty_table` (the calibration photo of the empty table) also that frame,
        as a PNG beside it (`<name>.empty.png`), which the service starts its empty-table model from."""
        path = Path(path)
        cal = self
        if empty_table is not None:
            if (empty_table.shape[1], empty_table.shape[0]) != tuple(self.image_size):
                raise CalibrationError(f"empty-table frame is {empty_table.shape[1]}x{empty_table.shape[0]}, "
                                       f"calibrated for {self.image_size[0]}x{self.image_size[1]}")
            png = path.with_name(path.stem + ".empty.png")
            if not cv2.imwrite(str(png), empty_table):
                raise CalibrationError(f"{png}: cannot write the empty-table frame")
            cal = replace(self, empty_table=png)
        path.write_text(json.dumps(cal.as_json(), indent=2) + "\n")
        return cal

    @classmethod
    def load(cls, path: Path | str) -> "Calibration":
        path = Path(path)
        try:
            data = path.read_bytes()  # hashed as read: the digest is of the bytes the calibration was made from
            doc = json.loads(data)
        except OSError as exc:
            raise CalibrationError(f"{path}: cannot read calibration: {exc.strerror}") from exc
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CalibrationError(f"{path}: not JSON: {exc}") from exc
        if not isinstance(doc, dict) or doc.get("version") != VERSION:
            raise CalibrationError(f"{path}: version must be {VERSION}, got {doc.get('version') if isinstance(doc, dict) else doc!r}")
        try:
            hom = np.array(doc["homography"], np.float64)
            size = (int(doc["image_size"][0]), int(doc["image_size"][1]))
            layout = Layout.from_json(doc["layout"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CalibrationError(f"{path}: missing or malformed key: {exc}") from exc
        if hom.shape != (3, 3) or not np.isfinite(hom).all():
            raise CalibrationError(f"{path}: homography must be a finite 3x3 matrix")
        if not np.linalg.cond(hom) <= 1e12:  # NaN (singular) fails too
            raise CalibrationError(f"{path}: homography is singular: it maps no table")
        if not all(16 <= v <= MAX_IMAGE_SIDE for v in size):
            raise CalibrationError(f"{path}: image_size must be 16-{MAX_IMAGE_SIDE} pixels a side, "
                                   f"got {size[0]}x{size[1]}")
        height = doc.get("camera_height_mm")
        if height is not None and not (isinstance(height, (int, float)) and 100 <= height <= 10000):
            raise CalibrationError(f"{path}: camera_height_mm must be 100-10000 mm, got {height!r}")
        empty = doc.get("empty_table")
        if empty is not None and not isinstance(empty, str):
            raise CalibrationError(f"{path}: empty_table must be a file name, got {empty!r}")
        return cls(layout, size, hom, float(doc.get("error_mm", 0.0)), None if height is None else float(height),
                   path.parent / empty if empty else None, sha256=hashlib.sha256(data).hexdigest())

    def empty_table_frame(self) -> np.ndarray | None:
        """The installation photo of the empty table, or None when the calibration has none (made before
        it was kept). A file that is named but missing or of another size is an error."""
        photo = self.empty_table_photo()
        return None if photo is None else photo[0]

    def empty_table_photo(self) -> tuple[np.ndarray, str] | None:
        """`empty_table_frame` and the SHA-256 of the file's bytes it was decoded from (one read: the digest is of
        the photo the reader starts from)."""
        if self.empty_table is None:
            return None
        try:
            data = self.empty_table.read_bytes()
        except OSError:
            data = b""
        frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        if frame is None:
            raise CalibrationError(f"{self.empty_table}: empty-table frame missing or unreadable")
        if (frame.shape[1], frame.shape[0]) != tuple(self.image_size):
            raise CalibrationError(f"{self.empty_table}: {frame.shape[1]}x{frame.shape[0]}, calibrated for "
                                   f"{self.image_size[0]}x{self.image_size[1]}")
        return frame, hashlib.sha256(data).hexdigest()


MAX_ERROR_MM = 2.0  # marker corners further off their plane than this: a marker moved, bent or misread


def calibrate(image: np.ndarray, layout: Layout, camera_height_mm: float | None = None) -> Calibration:
    """Find the layout's four markers in `image` and compute the homography to table mm.

    `camera_height_mm` (the lens above the felt, measured) lets the reader check poses in 3D. A marker
    the detector misses is looked for where the other three put it (vision.markers); an id read in two
    places (printing read as a marker) is taken where it lies as the layout says with the others, and a
    marker whose only sighting does not fit is looked for where the others put it. The calibration's
    `notes` say which were found so. Refused, saying why per marker, when a marker is still missing or off; and,
    before any search, a photo outside 16-MAX_IMAGE_SIDE pixels a side (its file could not be loaded) or a camera
    height outside 100-10000 mm.
    """
    h, w = image.shape[:2]
    if not (16 <= w <= MAX_IMAGE_SIDE and 16 <= h <= MAX_IMAGE_SIDE):
        raise CalibrationError(f"the photo is {w}x{h}: a calibration photo must be 16-{MAX_IMAGE_SIDE} pixels a side "
                               "(a frame of the table's camera, at the size it runs at)")
    if camera_height_mm is not None and not 100 <= camera_height_mm <= 10000:
        raise CalibrationError(f"camera height must be 100-10000 mm, got {camera_height_mm}")
    seen = detect_sightings(image, set(layout.markers))
    found, notes = fitting_sightings(layout, seen)
    read_twice = tuple(sorted(m for m, places in seen.items() if m in layout.markers and len(places) > 1))
    recovered, searched, why = recover(image, layout, found)
    found.update(recovered)
    missing = sorted(set(layout.markers) - set(found))
    if missing:
        reasons = "; ".join(f"marker {m} {why[m]}" for m in missing)
        raise CalibrationError(f"markers not found: {missing} (found {sorted(found)}; dictionary {ARUCO_DICTIONARY}): "
                               f"{reasons}")
    hom, error = layout_error_mm(layout, found)
    if hom is None:
        raise CalibrationError("markers are degenerate: no homography")
    if error > MAX_ERROR_MM:
        odd, corners, why_off = the_odd_one_found_again(image, layout, found)
        if corners is not None:
            found[odd] = recovered[odd] = corners
            hom, error = layout_error_mm(layout, found)
            why_off = f"marker {odd} was found again where the others put it, and they still do not fit"
        if error > MAX_ERROR_MM:
            raise CalibrationError(f"the markers do not lie where the layout says: {error:.1f} mm RMS off (at most "
                                   f"{MAX_ERROR_MM:g}): {why_off}")
    notes += [f"marker {m} found by a search of the whole photo for its pattern (every bit read right)"
              if m in searched else f"marker {m} found where the other markers put it (every bit read right)"
              for m in sorted(recovered)]
    return Calibration(layout, (w, h), hom, error, camera_height_mm, notes=tuple(notes),
                       recovered=tuple(sorted(recovered)), read_twice=read_twice)


def the_odd_one_found_again(image: np.ndarray, layout: Layout, found: dict[int, np.ndarray]
                            ) -> tuple[int | None, np.ndarray | None, str]:
    """The markers do not fit the layout together. When all but one do, that one is the odd one (printing read
    as its id while the marker itself was missed, or the marker moved): it is looked for where the others put
    it. Returns the odd marker and its corners there when its bits read its id with none wrong; else the
    corners are None and the string says why the markers are off."""
    if len(found) < 4:
        return None, None, "a marker moved or bent, or the wrong layout"
    fits = {m: layout_error_mm(layout, {k: c for k, c in found.items() if k != m})[1] for m in found}
    odd = min(fits, key=fits.get)
    if fits[odd] > MAX_ERROR_MM:
        return None, None, "more than one marker off: markers moved or bent, or the wrong layout"
    again, _, why = recover(image, layout, {m: c for m, c in found.items() if m != odd}, whole_photo=False)
    if odd in again:
        return odd, again[odd], ""
    x, y = found[odd].mean(axis=0)
    return odd, None, (f"marker {odd}, read at ({x:.0f}, {y:.0f}) px, does not lie where the others put it (they "
                       f"fit within {fits[odd]:.1f} mm without it): moved, or printing read as a marker; marker "
                       f"{odd} {why.get(odd, 'not found there')}")


def annotate(image: np.ndarray, cal: Calibration) -> np.ndarray:
    """The calibration drawn on its image: felt, walls, middle line, dome, markers, a die to scale."""
    out = image.copy()

    def poly(pts, colour, closed=True, thickness=2):
        cv2.polylines(out, [np.round(np.asarray(pts)).astype(np.int32)], closed, colour, thickness, cv2.LINE_AA)

    poly(cal.felt_px(), (0, 255, 0))
    for seg in cal.layout.walls:
        poly(cal.points_to_image(seg), (0, 165, 255), False, 3)
    if cal.layout.middle:
        poly(cal.points_to_image(cal.layout.middle), (255, 0, 255), False, 2)
    dome = cal.dome_px()
    if dome:
        cv2.circle(out, (round(dome[0][0]), round(dome[0][1])), round(dome[1]), (255, 255, 0), 2, cv2.LINE_AA)
    for m in cal.layout.markers:
        poly(cal.points_to_image(marker_corners_mm(cal.layout, m)), (0, 0, 255))
    w, h = cal.layout.felt_mm
    d = cal.layout.die_mm
    poly(cal.points_to_image([(w / 2, h / 2), (w / 2 + d, h / 2), (w / 2 + d, h / 2 + d), (w / 2, h / 2 + d)]),
         (255, 255, 255), True, 1)
    text = f"{cal.layout.name}: marker error {cal.error_mm:.2f} mm, die {cal.die_px:.1f} px"
    label(out, text, (10, 24), (255, 255, 255), 0.6)
    return out
