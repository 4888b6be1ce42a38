"""The 8-bit networks compute on this CPU what they compute exactly, or are not used (vision/onnx_net.py).

ONNX Runtime's 8-bit kernels for x86 CPUs without VNNI sum pairs of 8-bit products in 16 bits, which saturate: there
the committed networks read 75.0% of flat dice right instead of 87.9% (docs/vision.md, thirty-second session). Each
network is checked at load against its own arithmetic run unfused, and loaded again with ONNX Runtime's exact x64
kernels (`session.x64quantprecision`) when its fused kernels are off.
"""

import pytest

from vision import onnx_net
from vision.errors import VisionError
from vision.face_classifier import DEFAULT_WEIGHTS, FaceClassifier
from vision.pose_net import DEFAULT_POSE_WEIGHTS, PoseNet


def test_each_committed_network_runs_within_the_tolerance_of_its_exact_arithmetic_here():
    for path, net in ((DEFAULT_WEIGHTS, FaceClassifier().net), (DEFAULT_POSE_WEIGHTS, PoseNet().net)):
        assert net.precision in ("fused", "x64quantprecision")
        assert onnx_net.deviation_from_exact(net.session, path.read_bytes()) <= onnx_net.EXACT_TOLERANCE


def test_the_check_tells_apart_outputs_as_far_off_as_the_float_network_s():
    """Not vacuous: the float face network's outputs lie further from the 8-bit one's exact arithmetic than the
    tolerance (as the saturating kernels' did)."""
    float_net = FaceClassifier(DEFAULT_WEIGHTS.with_name("face_net.onnx")).net
    assert onnx_net.deviation_from_exact(float_net.session, DEFAULT_WEIGHTS.read_bytes()) > onnx_net.EXACT_TOLERANCE


def test_a_network_off_its_exact_arithmetic_is_loaded_with_the_exact_kernels_or_refused(monkeypatch):
    monkeypatch.setattr(onnx_net, "PRECISION", {})  # no check of an earlier load to go by
    seen = iter([1.2, 0.05])  # the fused kernels saturate; the exact ones do not
    monkeypatch.setattr(onnx_net, "deviation_from_exact", lambda session, model: next(seen))
    assert PoseNet().net.precision == "x64quantprecision"
    seen = iter([1.2, 1.1])
    onnx_net.PRECISION.clear()
    with pytest.raises(VisionError, match=r"pose network .*pose_net.int8.onnx computes other outputs on this CPU "
                                          r"than its exact arithmetic \(off by up to 1.20, 1.10 with "
                                          r"session.x64quantprecision"):
        PoseNet()
    assert onnx_net.PRECISION == {}  # a refused network leaves no choice behind


def test_the_check_runs_once_per_network_and_process(monkeypatch):
    monkeypatch.setattr(onnx_net, "PRECISION", {})
    checks = []
    real = onnx_net.deviation_from_exact
    monkeypatch.setattr(onnx_net, "deviation_from_exact", lambda s, m: checks.append(1) or real(s, m))
    first, second = PoseNet().net, PoseNet().net
    assert len(checks) in (1, 2) and first.precision == second.precision == onnx_net.PRECISION[first.sha256]
