"""Has the camera moved since its calibration? Its markers are looked for where the calibration puts them.

The calibration maps pixels to the table. A camera knocked or turned on its mount keeps reading dice, and the
empty-table model even follows it (a table that no longer looks like its model gets a new one), but every die is
then placed on the table where it is not: off-table, the middle line and the dome are judged at the wrong places.
So the service looks at the four markers between throws, and on each rest of the dice: each is fitted to its own
pattern of bits within a few cells of where the calibration photo shows it (`markers.align`, as calibration does for a
marker it missed), and must read its own id there; too few found so, the whole frame is searched (a camera moved
further; during a throw by the detector's default settings alone). Two or more found off
by more than MOVED_DIE_EDGES: the camera moved. Two or more found in place: it did not. Otherwise (markers covered by
chips, a hand, the dealer's arm) nothing is said.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .calibration import Calibration
from .markers import PASSES, SEARCH_CELLS, align, detect_markers, grey, marker_corners_mm, reads_as, unreadable

MOVED_DIE_EDGES = 0.1  # a marker this far (in die edges at the felt's centre) from its calibrated place has moved ...
MOVED_MIN_PX = 2.0  # ... and never less than this many pixels (corners are fitted to a fraction of a pixel)
AGREEING = 2  # markers that must agree for either answer


@dataclass(frozen=True, slots=True)
class MarkerCheck:
    """Where the markers were found: the pixels each lies off its calibrated place, and those not found."""

    off_px: dict[int, float] = field(default_factory=dict)
    unseen: tuple[int, ...] = ()
    limit_px: float = MOVED_MIN_PX

    @property
    def moved(self) -> bool:
        return sum(off > self.limit_px for off in self.off_px.values()) >= AGREEING

    @property
    def in_place(self) -> bool:
        return sum(off <= self.limit_px for off in self.off_px.values()) >= AGREEING

    def describe(self) -> str:
        found = ", ".join(f"marker {m} {off:.1f} px" for m, off in sorted(self.off_px.items()))
        unseen = f"; not found near its place: {list(self.unseen)}" if self.unseen else ""
        return f"{found or 'no marker found'} from its calibrated place (at most {self.limit_px:.1f}){unseen}"


class MarkerWatch:
    """The markers of a calibrated table, as its calibration photo shows them; `check(frame)` finds them again.

    Each marker's place is where `align` fits it in the calibration photo (the empty table kept beside the
    calibration), so that a frame is compared with that photo by the same method: `align`'s corners lie up to 1.6 px
    from the detector's that made the calibration, the same way every time (its centres up to 0.7 px). Without the
    photo, or where the photo does not show a marker, the calibration's own corners are the place. A marker is as
    far off as its centre: a camera knocked, turned or zoomed moves the markers at the table's corners."""

    def __init__(self, cal: Calibration, photo: np.ndarray | None = None) -> None:
        self.limit_px = max(MOVED_MIN_PX, MOVED_DIE_EDGES * cal.die_px)
        gray = None if photo is None else grey(photo)
        w, h = cal.image_size
        self.places: dict[int, np.ndarray] = {}
        for m in cal.layout.markers:
            expected = cal.points_to_image(marker_corners_mm(cal.layout, m))
            if unreadable(expected, w, h) is not None:
                continue  # outside the image or too small: the calibration did without it, nothing to check
            fitted = None if gray is None else found(gray, expected, m)
            # The photo's fit, unless it lies off where the calibration puts the marker: a calibration file edited
            # (or not the photo's) keeps its own places, so every frame finds the markers off them.
            agrees = fitted is not None and centre_off(fitted, expected) <= self.limit_px
            self.places[m] = fitted if agrees else expected

    def check(self, image: np.ndarray, quick: bool = False) -> MarkerCheck:
        """Each marker looked for within SEARCH_CELLS cells of its place in `image` (BGR or grey); with too few found
        there, in the whole frame: `quick` (a look during a throw), by the detector's default settings alone (6-8 ms:
        a marker with a white margin), else by every setting calibration tries (160-180 ms when none is there)."""
        gray = grey(image)
        off, unseen = {}, []
        for m, place in self.places.items():
            corners = found(gray, place, m)
            if corners is None:
                unseen.append(m)
            else:
                off[m] = centre_off(corners, place)
        if len(off) < AGREEING and unseen:
            # Too few near their places to say: covered, or the camera moved further than the search reaches (a
            # marker 30 px wide is searched 6 cells, about 30 px, around). The whole frame is looked at for them.
            for m, corners in detect_markers(gray, set(unseen), PASSES[:1] if quick else PASSES).items():
                if m in unseen:
                    off[m] = centre_off(corners, self.places[m])
            unseen = [m for m in unseen if m not in off]
        return MarkerCheck(off, tuple(unseen), self.limit_px)


def centre_off(corners: np.ndarray, place: np.ndarray) -> float:
    """Pixels between the centres of two sets of a marker's corners."""
    return float(np.hypot(*(corners.mean(axis=0) - place.mean(axis=0))))


def found(gray: np.ndarray, near: np.ndarray, m: int) -> np.ndarray | None:
    """Marker m's corners fitted within SEARCH_CELLS cells of `near`, when its bits read its id there."""
    corners = align(gray, near, m, search_cells=SEARCH_CELLS)
    return corners if corners is not None and reads_as(gray, corners, m) else None
