"""The learned pose network: how each die lies on a calibrated table, from a crop with its neighbourhood.

A small CNN run through OpenCV's DNN module (weights committed, no torch): a 48x48 crop spanning 2.4
die edges around the die -> P(flat, cocked, stacked, leaning, overlapped). Trained on rendered casino
tables (vision/training/train_pose_net.py). The face classifier's own pose head sees only 1.6 die
edges and is trained mostly for faces; this one is used whenever the table is calibrated.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .errors import VisionError
from .face_crops import crop

DEFAULT_POSE_WEIGHTS = Path(__file__).resolve().parent / "weights" / "pose_net.onnx"
POSE_PX = 48  # crop side in pixels
POSE_DIES = 2.4  # crop side in die edges: the die and what it may rest on or lean against
POSES = ("flat", "cocked", "stacked", "leaning", "overlapped")


class PoseNet:
    """Pose probabilities (N, 5) for dice at given centres."""

    def __init__(self, weights: Path | str = DEFAULT_POSE_WEIGHTS) -> None:
        self.weights = Path(weights)
        if not self.weights.is_file():
            raise VisionError(f"pose network weights not found: {self.weights}")
        try:
            self.net = cv2.dnn.readNetFromONNX(str(self.weights))
        except cv2.error as exc:
            raise VisionError(f"cannot load pose network {self.weights}: {exc}") from exc

    def poses(self, frame: np.ndarray, centres: list[tuple[float, float]], die: float) -> np.ndarray:
        if not centres:
            return np.zeros((0, len(POSES)), np.float32)
        crops = np.stack([crop(frame, x, y, die, 0.0, POSE_PX, POSE_DIES) for x, y in centres])
        blob = np.ascontiguousarray((crops.astype(np.float32) * (1.0 / 255.0) - 0.5).transpose(0, 3, 1, 2))
        self.net.setInput(blob)
        logits = self.net.forward().reshape(len(centres), -1)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
