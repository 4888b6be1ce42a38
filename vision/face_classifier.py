"""The learned face classifier: a small CNN run by ONNX Runtime (weights committed, no torch)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .onnx_net import OnnxNet, softmax

DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "weights" / "face_net.int8.onnx"  # 8-bit: onnx_net.py
N_CLASSES = 7  # 0 = no die centred in the crop, 1-6 = the top face
POSES = ("flat", "cocked", "stacked", "leaning", "overlapped")  # the optional pose head


@dataclass(frozen=True, slots=True)
class FaceScores:
    """Per crop: class probabilities (N, 7; column 0 = no die), the die centre offset (N, 2) in die edges,
    and pose probabilities (N, 5) when the network has a pose head (else None)."""

    probs: np.ndarray
    offsets: np.ndarray
    poses: np.ndarray | None = None


class FaceClassifier:
    """Classify crops (CROP_PX square, BGR uint8, CROP_DIES die edges wide) into none / 1-6."""

    def __init__(self, weights: Path | str = DEFAULT_WEIGHTS) -> None:
        self.weights = Path(weights)
        self.net = OnnxNet(self.weights, "face classifier")

    def classify(self, crops: list[np.ndarray] | np.ndarray) -> FaceScores:
        if len(crops) == 0:
            return FaceScores(np.zeros((0, N_CLASSES), np.float32), np.zeros((0, 2), np.float32))
        batch = np.asarray(crops, np.float32) * (1.0 / 255.0) - 0.5
        blob = np.ascontiguousarray(batch.transpose(0, 3, 1, 2))
        out = self.net.forward(blob)
        poses = softmax(out[:, N_CLASSES + 2:N_CLASSES + 2 + len(POSES)]) if out.shape[1] > N_CLASSES + 2 else None
        return FaceScores(softmax(out[:, :N_CLASSES]), out[:, N_CLASSES:N_CLASSES + 2].copy(), poses)
