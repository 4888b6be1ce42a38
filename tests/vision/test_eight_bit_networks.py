"""The 8-bit networks the reader runs agree with the float networks they were made from
(vision/training/quantize_networks.py), on crops of a rendered table the quantization never saw (tune looks,
seed 9847: the quantization's inputs came from seed 9842 and the development photos)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.calibration import calibrate
from vision.dice_reader import DiceReader, Found
from vision.face_classifier import DEFAULT_WEIGHTS, FaceClassifier
from vision.pose_net import DEFAULT_POSE_WEIGHTS, POSES, PoseNet, View, pose_crop, to_blob
from vision.synthetic import render
from vision.synthetic_scenes import random_rig, random_scene
from vision.synthetic_score import match

WEIGHTS = DEFAULT_WEIGHTS.parent
pytestmark = pytest.mark.skipif(not (WEIGHTS / "face_net.onnx").is_file(), reason="no committed networks")


def test_the_reader_runs_the_eight_bit_networks():
    assert DEFAULT_WEIGHTS.name == "face_net.int8.onnx" and DEFAULT_POSE_WEIGHTS.name == "pose_net.int8.onnx"
    reader = DiceReader()
    assert reader.classifier.weights == DEFAULT_WEIGHTS


def test_eight_bit_and_float_networks_agree_on_a_rendered_table():
    rng = np.random.default_rng(9847)
    rig = random_rig("craps", rng, split="tune")
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
    frames = [render(rig.scene(random_scene(rig, kind, rng), rng), rng) for kind in ("valid", "touching", "cocked")]
    dice = [(frame, t.x, t.y) for frame, truth in frames for t in truth]
    assert len(dice) == 6
    face = [DiceReader.view_crops(frame, [Found(x, y, cal.die_px, 0.0, -1, True)], [4]) for frame, x, y in dice]
    crops = np.concatenate(face)
    float_nets = FaceClassifier(WEIGHTS / "face_net.onnx"), PoseNet(WEIGHTS / "pose_net.onnx")
    byte_nets = FaceClassifier(DEFAULT_WEIGHTS), PoseNet(DEFAULT_POSE_WEIGHTS)
    float_face, byte_face = float_nets[0].classify(crops), byte_nets[0].classify(crops)
    decided = float_face.probs.max(1) >= 0.6  # a cocked die's side views are a toss-up for both
    assert decided.sum() >= 20
    assert (float_face.probs.argmax(1) == byte_face.probs.argmax(1))[decided].all()
    assert np.abs(float_face.probs - byte_face.probs).max() < 0.1
    assert np.abs(float_face.offsets - byte_face.offsets).max() < 0.06  # die edges
    view = View.of(cal, empty.shape[1], empty.shape[0])
    pairs = [pose_crop(frame, x, y, cal.die_px, view) for frame, x, y in dice]
    blob = to_blob(np.stack([c for c, _ in pairs]), [t for _, t in pairs])
    float_pose, byte_pose = float_nets[1].net.forward(blob), byte_nets[1].net.forward(blob)
    assert (float_pose.argmax(1) == byte_pose.argmax(1)).all()
    assert [POSES[int(p.argmax())] for p in byte_pose] == ["flat"] * 4 + ["cocked", "flat"]
    # and the reader reads the table's dice the same with either
    float_reader = DiceReader(cal, background=empty, classifier=float_nets[0], pose_net=float_nets[1])
    byte_reader = DiceReader(cal, background=empty, classifier=byte_nets[0], pose_net=byte_nets[1])
    for frame, truth in frames:
        a = [(t.value, d and d.value, d and d.lie) for t, d in match(float_reader.read(frame), truth, cal.die_px)]
        b = [(t.value, d and d.value, d and d.lie) for t, d in match(byte_reader.read(frame), truth, cal.die_px)]
        assert a == b

