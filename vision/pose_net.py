"""The learned pose network: how each die lies on a calibrated table, from a crop with its neighbourhood.

A small CNN run by ONNX Runtime (weights committed, no torch): a 48x48 crop spanning 2.4
die edges around the die -> P(flat, cocked, stacked, leaning, overlapped). Trained on rendered casino
tables (vision/training/train_pose_net.py). The face classifier's own pose head sees only 1.6 die
edges and is trained mostly for faces; this one is used whenever the table is calibrated.

Perspective: a die lying flat away from the point under the camera shows the side faces that look
towards that point, as a tipped die does. So the crop is turned to put "away from the camera's foot"
upwards, and a fourth input plane carries how far off the camera's axis the die is (the tangent of
the view angle): the network can then tell perspective from tipping.

Colour: the network tells a tipped die by its shading as well as its shape, and a die of a colour it was
taught less can fool it. A die it finds flat, but not surely, is looked at again with its hues turned
(`with_hues_turned`), and the less flat of the two answers is kept: a second look can only doubt more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .onnx_net import OnnxNet, softmax
from .face_crops import crop

DEFAULT_POSE_WEIGHTS = Path(__file__).resolve().parent / "weights" / "pose_net.int8.onnx"  # 8-bit: onnx_net.py
POSE_PX = 48  # crop side in pixels
POSE_DIES = 2.4  # crop side in die edges: the die and what it may rest on or lean against
POSES = ("flat", "cocked", "stacked", "leaning", "overlapped")


@dataclass(frozen=True, slots=True)
class View:
    """Where the camera looks from, in pixels: the image of the point under it and its focal length."""

    nadir_x: float
    nadir_y: float
    focal_px: float

    @classmethod
    def of(cls, calibration, width: int, height: int) -> "View":
        """From a calibrated camera; without one, a camera above the image centre with a 53 degree field."""
        cam = getattr(calibration, "camera", None)
        if cam is None:
            return cls(width / 2.0, height / 2.0, float(width))
        u, v = cam.project(np.array([[cam.position[0], cam.position[1], 0.0]]))[0]
        return cls(float(u), float(v), float(cam.focal_px))

    def outward(self, x: float, y: float) -> tuple[float, float]:
        """The crop angle (degrees) that puts the direction away from the nadir upwards, and the
        tangent of the angle under which the camera sees (x, y)."""
        dx, dy = x - self.nadir_x, y - self.nadir_y
        return math.degrees(math.atan2(dx, -dy)), math.hypot(dx, dy) / self.focal_px


def pose_crop(frame: np.ndarray, x: float, y: float, die: float, view: View, turn: float = 0.0
              ) -> tuple[np.ndarray, float]:
    """The network's crop around (x, y), away-from-the-camera upwards (`turn` adds degrees), and the tangent."""
    angle, tan = view.outward(x, y)
    return crop(frame, x, y, die, angle + turn, POSE_PX, POSE_DIES), tan


def to_blob(crops: np.ndarray, tans) -> np.ndarray:
    """(N, 48, 48, 3) uint8 crops and N tangents -> the network's (N, 4, 48, 48) float input."""
    x = crops.astype(np.float32) * (1.0 / 255.0) - 0.5
    plane = np.broadcast_to((2.0 * np.asarray(tans, np.float32) - 0.5)[:, None, None, None],
                            (len(crops), POSE_PX, POSE_PX, 1))
    return np.ascontiguousarray(np.concatenate([x, plane], axis=3).transpose(0, 3, 1, 2))


# A die found flat less surely than this, but surely enough to be read (FLAT_ALONE of read_checks), is looked at again
# with its hues turned by thirds, and its pose taken from the three crops' mean when that finds it less flat. Chosen on
# tune looks only (probes of dice tipped towards the camera's foot, tune seeds 9820-9822, 9822 with dice and felts of
# random colours; docs/vision.md, seventeenth session): every such die read had P(flat) under 0.96 there; at 0.98 over
# a third of the flat dice read there (459 of 1,229) are looked at again, two crops more each (0.35 ms).
DOUBTFUL_FLAT = (0.75, 0.98)
CHANNEL_ORDERS = ((0, 1, 2), (1, 2, 0), (2, 0, 1))  # BGR first: the crop as it is; then its hues turned by thirds


def looked_again(probs: np.ndarray) -> np.ndarray:
    """The indices of the dice found flat, but not surely (DOUBTFUL_FLAT)."""
    low, high = DOUBTFUL_FLAT
    return np.nonzero((probs[:, 0] >= low) & (probs[:, 0] < high))[0]


class PoseNet:
    """Pose probabilities (N, 5) for dice at given centres."""

    def __init__(self, weights: Path | str = DEFAULT_POSE_WEIGHTS) -> None:
        self.weights = Path(weights)
        self.net = OnnxNet(self.weights, "pose network")

    def poses(self, frame: np.ndarray, centres: list[tuple[float, float]], die: float, view: View) -> np.ndarray:
        """Each die's pose probabilities; for a die found flat but not surely (`looked_again`), those of the crop
        or of its mean with its hues turned (`with_hues_turned`), whichever finds it less flat."""
        if not centres:
            return np.zeros((0, len(POSES)), np.float32)
        pairs = [pose_crop(frame, x, y, die, view) for x, y in centres]
        crops, tans = np.stack([c for c, _ in pairs]), np.array([t for _, t in pairs], np.float32)
        probs = self.probabilities(crops, tans)
        again = looked_again(probs)
        if len(again):
            mean = self.with_hues_turned(crops[again], tans[again], probs[again])
            lower = mean[:, 0] < probs[again, 0]
            probs[again[lower]] = mean[lower]
        return probs

    def probabilities(self, crops: np.ndarray, tans: np.ndarray) -> np.ndarray:
        return softmax(self.net.forward(to_blob(crops, tans)))

    def with_hues_turned(self, crops: np.ndarray, tans: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """The mean pose probabilities of each crop as it is (`probs`) and with its colour channels taken in the
        CHANNEL_ORDERS (its hues turned by a third and two thirds of the colour circle). The network tells a tipped
        die by its shading as well as its shape, and some colours fool it: on the tune looks' probes, dice of
        random colours tipped towards the camera's foot were taken for flat three times as often as the looks'
        own dice (29 of 300 against 10 and 8); with their hues turned, 5 of the 7 of them read were found less flat
        and declined (tune seed 9822)."""
        orders = CHANNEL_ORDERS[1:]
        turned = np.concatenate([crops[..., list(order)] for order in orders])
        p = self.probabilities(turned, np.tile(tans, len(orders))).reshape(len(orders), len(crops), -1)
        return (p.sum(axis=0) + probs) / len(CHANNEL_ORDERS)
