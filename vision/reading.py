"""What the camera saw: dice with their top values, poses and confidences, and blobs it could not read."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Pose(str, Enum):
    """How a die lies, as seen from above."""

    FLAT = "flat"
    COCKED = "cocked"  # resting on an edge or leaning: its top face is not level
    STACKED = "stacked"  # flat on top of another die
    OVERLAPPING = "overlapping"  # leaning on another die: the two outlines overlap
    TOUCHING = "touching"  # flat on the table, side against another die
    UNCERTAIN = "uncertain"  # reported for a die whose value is not sure (never a `lie`)


# Why a die is not read (`Die.declined`), in the words the verdict gives the dealer. The first check that declines a
# die names it, in the order the reader makes them (vision/dice_reader.py), then the frames' agreement; but a check
# that declines outright names itself over a doubt the frames' agreement could have lifted (`not_surely_flat`,
# `confidence`), and a blurred image (`blurred`, vision/blur_check.py) over every other reason: nothing in it holds.
DECLINED = {
    "no_value": "no value was found on it",
    "blurred": "its image is blurred: the camera out of focus, a dirty lens or a shake",
    "unsure": "its value is not sure",
    "settled_not_flat": "the fit of touching dice placed it, and the pose network does not find it flat",
    "stack_unsure": "it may rest on another die",
    "not_surely_flat": "the pose network is not sure it lies flat",
    "too_big_for_flat": "it looks bigger than a flat die there, though the pose network finds it flat",
    "networks_disagree": "the face network finds it tipped, the pose network flat",
    "not_flat": "it does not lie flat: its top face cannot be read from above",
    "not_a_die_alone": "it lies between dice or at a die's edge (a photo without calibration)",
    "partial": "it lies at the edge of the picture",
    "crowded": "another die lies too close to it",
    "lamp": "a lamp is mirrored in its top face",
    "more_pips": "more pips show than its value has",
    "lamp_spot": "it lies where a lamp was seen mirrored before",
    "confidence": "its value is read below the confidence a die there needs",
    "frames_disagree": "the frames of the dice at rest read it differently",
    "later_frames_only": "later frames found it where the first found none",
}


@dataclass(frozen=True, slots=True)
class Die:
    """One die: its top value, where it is, how sure the reader is and how it lies.

    `x`, `y` are the centre and `w`, `h` the axis-aligned box size in image pixels; `outline` is the
    die's outline (four corners of its top face, pixels). `table_xy` is its centre in table
    millimetres when the reader is calibrated. `lie` is how the die lies (geometry); `sure` says
    whether the value is a read. `pose` is what is reported: `uncertain` when the reader is not
    sure (the value is then only a guess, or None, and must never be used as a result), else `lie`.
    """

    value: int | None
    x: float
    y: float
    w: float
    h: float
    confidence: float
    lie: Pose = Pose.FLAT
    sure: bool = True
    outline: tuple[tuple[float, float], ...] = ()
    table_xy: tuple[float, float] | None = None
    tilt_deg: float = 0.0  # fitted tilt of the top face (calibrated readers)
    # Declined for its confidence alone (calibrated readers): the P its value needed; 0.0 otherwise. Frames of
    # dice at rest that agree on it may read it on their mean confidence (`at_rest.agree`).
    needs_confidence: float = 0.0
    # The pose network's P(flat) (calibrated readers; None without it). Declined for that doubt alone
    # (`read_checks.not_surely_flat`): the P(flat) it needed, 0.0 otherwise; frames that agree may read it on
    # their mean P(flat) (`at_rest.agree`).
    p_flat: float | None = None
    needs_flat: float = 0.0
    # Why a die with a value found is not read: the check that declined it (DECLINED names each); "" for a die read.
    # Told in the evidence, the verdict's words and the metrics, so the dealer and the installer see why.
    declined: str = ""

    @property
    def pose(self) -> Pose:
        return self.lie if self.is_read else Pose.UNCERTAIN

    @property
    def is_read(self) -> bool:
        """True when the value is a read (the reader is sure of it)."""
        return self.sure and self.value is not None

    def as_json(self) -> dict:
        out = {"value": self.value, "x": round(self.x, 1), "y": round(self.y, 1), "w": round(self.w, 1),
               "h": round(self.h, 1), "confidence": round(self.confidence, 3), "pose": self.pose.value}
        if self.lie is not self.pose:
            out["lie"] = self.lie.value
        if self.declined and not self.is_read:
            out["declined"] = self.declined
        if self.table_xy is not None:
            out["table_mm"] = [round(self.table_xy[0], 1), round(self.table_xy[1], 1)]
        return out


HELD = "held"  # Blob.why of what the empty-table model holds that the table as installed did not


@dataclass(frozen=True, slots=True)
class Blob:
    """Something that is not a readable die: its box in pixels and why it was kept aside (`unread`: a die-sized
    blob no die was found in; `object`: a blob larger than the dice found in it explain, something they lie
    against; `moving`: a die-like blob of a frame taken while the dice move; `held`: something the empty-table
    model holds that the table as installed did not, a chip on the layout, vision/empty_table.py)."""

    x: float
    y: float
    w: float
    h: float
    why: str
    table_xy: tuple[float, float] | None = None

    def as_json(self) -> dict:
        out = {"x": round(self.x, 1), "y": round(self.y, 1), "w": round(self.w, 1), "h": round(self.h, 1),
               "why": self.why}
        if self.table_xy is not None:
            out["table_mm"] = [round(self.table_xy[0], 1), round(self.table_xy[1], 1)]
        return out


@dataclass(frozen=True, slots=True)
class Reading:
    """Everything read from one frame."""

    dice: tuple[Die, ...]
    blobs: tuple[Blob, ...] = ()
    die_size_px: float = 0.0  # the die edge in pixels the reader used (estimated when uncalibrated)
    image_size: tuple[int, int] = (0, 0)  # width, height
    calibrated: bool = False
    notes: tuple[str, ...] = field(default=())
    # Frames of dice at rest agreed (`at_rest.agree`): dice a later frame found where the first found none.
    # Never read; a throw with any is void `uncertain` (the frames disagree on what lies there).
    unmatched: tuple[Die, ...] = field(default=())

    @property
    def values(self) -> tuple[int, ...]:
        """The values that are reads, in reading order."""
        return tuple(d.value for d in self.dice if d.is_read)

    @property
    def all_read(self) -> bool:
        return all(d.is_read for d in self.dice)
