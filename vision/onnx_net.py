"""Running a committed ONNX network with ONNX Runtime on one thread (no torch at run time).

The reader runs 8-bit copies of the float networks (`*.int8.onnx`, made by vision/training/quantize_networks.py):
1.6x (face) and 2.1x (pose) faster on one core (a read of touching dice 9.4 ms at the median here, not 12.1); on tune
looks and the development photos they read as well as the float ones (docs/vision.md, "twenty-second session").
What an 8-bit network computes depends on the CPU's kernels: on x86 without VNNI, ONNX Runtime's kernels add pairs
of 8-bit products in 16 bits, which saturate (microsoft/onnxruntime#6004, #14642). So each network is checked at load
against its own exact arithmetic (`deviation_from_exact`) and, when off, loaded with ONNX Runtime's exact x64 kernels
(`session.x64quantprecision`, about as slow as the float network) or refused (docs/vision.md, thirty-second session).

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
        self.precision = PRECISION.get(self.sha256) or checked_precision(model, f"{what} {weights}")
        PRECISION[self.sha256] = self.precision
        self.session = load_session(model, f"{what} {weights}", KERNELS[self.precision])
        self.input = self.session.get_inputs()[0].name

    def forward(self, blob: np.ndarray) -> np.ndarray:
        out = self.session.run(None, {self.input: np.ascontiguousarray(blob, np.float32)})[0]
        return out.reshape(len(blob), -1)


# The largest |output - exact output| accepted of a network on this CPU: its 8-bit outputs are quantised in steps of
# 0.07-0.08, and ONNX Runtime's exact kernels land within one step of the exact arithmetic on the check's inputs; the
# saturating kernels of an x86 CPU without VNNI were 0.86-1.7 off (2026-12-07, AMD EPYC of family 25: the committed
# 8-bit networks read 75.0% of seed 127's first 100 throws' flat dice right, the exact ones 87.9%: docs/vision.md,
# thirty-second session).
EXACT_TOLERANCE = 0.3
CHECK_BATCH = 16  # inputs of the check: uniform in [-0.5, 0.5), the range the readers' crops are scaled to


# The kernels each network runs on: ONNX Runtime's fused ones as they come, or its exact x64 ones (session config).
KERNELS = {"fused": {}, "x64quantprecision": {"session.x64quantprecision": "1"}}
PRECISION: dict[str, str] = {}  # by the network's SHA-256: the kernels this CPU's check chose (once per process)


def checked_precision(model: bytes, what: str) -> str:
    """The kernels the network computes its exact arithmetic on here (`deviation_from_exact`): the fused ones when
    within EXACT_TOLERANCE, else the exact x64 ones when those are; VisionError when neither is (x86 without VNNI: the
    fused 8-bit kernels add pairs of 8-bit products in 16 bits, which saturate)."""
    deviation = deviation_from_exact(load_session(model, what), model)
    if deviation <= EXACT_TOLERANCE:
        return "fused"
    again = deviation_from_exact(load_session(model, what, KERNELS["x64quantprecision"]), model)
    if again > EXACT_TOLERANCE:
        raise VisionError(f"{what} computes other outputs on this CPU than its exact arithmetic (off by up to "
                          f"{deviation:.2f}, {again:.2f} with session.x64quantprecision; at most {EXACT_TOLERANCE} "
                          "is accepted): its readings were never measured here, so it is not used")
    return "x64quantprecision"


def load_session(model: bytes, what: str, config: dict[str, str] | None = None,
                 level: ort.GraphOptimizationLevel = ort.GraphOptimizationLevel.ORT_ENABLE_ALL) -> ort.InferenceSession:
    """An ONNX Runtime session on one thread (its kernels fused at `level`, its `config` entries set)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = level
    options.enable_cpu_mem_arena = False  # 11 MB less resident for the two networks, no slower here
    for key, value in (config or {}).items():
        options.add_session_config_entry(key, value)
    try:
        return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    except LOAD_ERRORS as exc:
        raise VisionError(f"cannot load {what}: {exc}") from exc


def deviation_from_exact(session: ort.InferenceSession, model: bytes) -> float:
    """How far the session's outputs lie from the network's exact arithmetic, on CHECK_BATCH fixed inputs: the same
    network with no kernel fused (an 8-bit network then runs as written: each weight and activation dequantised, the
    convolution in floats, quantised again), where nothing can saturate."""
    exact = load_session(model, "the network unfused", level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    spec = session.get_inputs()[0]
    shape = [d if isinstance(d, int) else CHECK_BATCH for d in spec.shape]
    x = np.random.default_rng(0).random(shape, dtype=np.float32) - 0.5
    got, want = session.run(None, {spec.name: x})[0], exact.run(None, {spec.name: x})[0]
    return float(np.abs(got - want).max())


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
