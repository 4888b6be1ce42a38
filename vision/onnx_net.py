"""Running a committed ONNX network with ONNX Runtime on one thread (no torch at run time).

The reader runs 8-bit copies of the float networks (`*.int8.onnx`, made by vision/training/quantize_networks.py):
1.6x (face) and 2.1x (pose) faster on one core (a read of touching dice 9.4 ms at the median here, not 12.1); on tune
looks and the development photos they read as well as the float ones (docs/vision.md, "twenty-second session").

The committed networks (`vision/weights/*.onnx`) are what was measured (docs/vision.md): each is checked
at load against the SHA-256 that `vision/weights/SHA256SUMS` pins for it, so a file corrupted on the SD
card or swapped by an update is refused with that said rather than read dice differently. What is hashed
is the bytes handed to ONNX Runtime (read once), never the file a second time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

from .errors import VisionError

COMMITTED = Path(__file__).resolve().parent / "weights"
MANIFEST = COMMITTED / "SHA256SUMS"  # `sha256sum *.onnx` in vision/weights: update it with the network

# What ONNX Runtime raises for a file it cannot load (its errors derive from Exception alone).
LOAD_ERRORS = (ort_state.Fail, ort_state.InvalidArgument, ort_state.InvalidProtobuf, ort_state.InvalidGraph,
               ort_state.NoSuchFile, ort_state.NoModel, ort_state.RuntimeException)


class OnnxNet:
    """One network: `forward` maps an (N, C, H, W) float32 batch to its (N, K) float32 outputs.

    ONNX Runtime rather than OpenCV's DNN module: on these small convolution stacks it computes the
    same outputs (to 2e-5) 1.3-2x faster on one core. One thread: the batches are a few crops, too
    small for threads to pay, and the reader's core is shared with the frame loop.
    """

    def __init__(self, weights: Path, what: str) -> None:
        if not weights.is_file():
            raise VisionError(f"{what} weights not found: {weights}")
        try:
            model = weights.read_bytes()
        except OSError as exc:
            raise VisionError(f"cannot read {what} weights {weights}: {exc}") from exc
        self.sha256 = hashlib.sha256(model).hexdigest()
        pinned = pinned_sha256(weights)
        if pinned is not None and pinned != self.sha256:
            raise VisionError(f"{what} weights {weights}: SHA-256 {self.sha256} is not the {pinned} pinned in "
                              f"{MANIFEST}: the file was changed or corrupted; reinstall tablehw")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.enable_cpu_mem_arena = False  # 11 MB less resident for the two networks, no slower here
        try:
            self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        except LOAD_ERRORS as exc:
            raise VisionError(f"cannot load {what} {weights}: {exc}") from exc
        self.input = self.session.get_inputs()[0].name

    def forward(self, blob: np.ndarray) -> np.ndarray:
        out = self.session.run(None, {self.input: np.ascontiguousarray(blob, np.float32)})[0]
        return out.reshape(len(blob), -1)


def pinned_sha256(weights: Path) -> str | None:
    """The SHA-256 pinned for a committed network; None for a network elsewhere (training, experiments).

    A file in vision/weights that the manifest does not name, or a manifest missing or unreadable, is an
    error: the committed networks are never loaded unchecked.
    """
    if weights.resolve().parent != COMMITTED:
        return None
    try:
        lines = MANIFEST.read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise VisionError(f"cannot read the networks' manifest {MANIFEST}: {exc}") from exc
    for number, line in enumerate(lines, 1):
        digest, _, name = line.partition("  ")
        if len(digest) != 64 or not name or any(c not in "0123456789abcdef" for c in digest):
            raise VisionError(f"{MANIFEST} line {number}: not `<sha256>  <file>`: {line[:80]!r}")
        if name == weights.name:
            return digest
    raise VisionError(f"{weights.name} is not in the networks' manifest {MANIFEST}")


def softmax(logits: np.ndarray) -> np.ndarray:
    """Each row's logits -> probabilities (the networks' heads end in logits)."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
