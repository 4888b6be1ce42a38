"""Running a committed ONNX network with ONNX Runtime on one thread (no torch at run time)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

from .errors import VisionError

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
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.enable_cpu_mem_arena = False  # 11 MB less resident for the two networks, no slower here
        try:
            self.session = ort.InferenceSession(str(weights), options, providers=["CPUExecutionProvider"])
        except LOAD_ERRORS as exc:
            raise VisionError(f"cannot load {what} {weights}: {exc}") from exc
        self.input = self.session.get_inputs()[0].name

    def forward(self, blob: np.ndarray) -> np.ndarray:
        out = self.session.run(None, {self.input: np.ascontiguousarray(blob, np.float32)})[0]
        return out.reshape(len(blob), -1)
