"""The 8-bit networks the reader runs (`vision/weights/*.int8.onnx`), made from the committed float networks.

Tooling only: needs `onnx` (`pip install onnx==1.19.1 onnxruntime==1.32.0`), never imported at run time. ONNX
Runtime's static quantization (QDQ, int8 weights per output channel, uint8 activations scaled by their minimum and
maximum) on the inputs the service's reader gives each network when it runs the float ones:
- both networks: tune-look throws (`evaluate_synthetic(120, seed=9842, split="tune")`);
- the face network also: 3,000 of its inputs on the development photos (never the held-back split), drawn with
  seed 0, so that its activation ranges cover real photos too (uncalibrated reads, which have no pose network).
The same inputs give the same files, byte for byte (vision/training/README.md, "8-bit networks").

    PYTHONPATH=. /tmp/quant/bin/python vision/training/quantize_networks.py --dataset ../shared/datasets/dice-topdown
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from vision import onnx_net
from vision.dataset import DEVELOPMENT, list_images, split_of
from vision.dice_reader import DiceReader
from vision.face_classifier import FaceClassifier
from vision.pose_net import PoseNet
from vision.synthetic_eval import evaluate_synthetic

WEIGHTS = Path(__file__).resolve().parents[1] / "weights"
NETWORKS = ("face_net", "pose_net")
TUNE_SEED, TUNE_THROWS = 9842, 120
PHOTO_CROPS, PHOTO_SEED = 3000, 0
BATCH = 64


def recorded_inputs(run) -> dict[str, np.ndarray]:
    """Every batch the float networks are given while `run()` reads, by network (face: 3 channels, pose: 4)."""
    got: dict[str, list[np.ndarray]] = {"face_net": [], "pose_net": []}
    forward = onnx_net.OnnxNet.forward

    def recording(self, blob):
        got["face_net" if blob.shape[1] == 3 else "pose_net"].append(np.array(blob, np.float32))
        return forward(self, blob)

    onnx_net.OnnxNet.forward = recording
    try:
        run()
    finally:
        onnx_net.OnnxNet.forward = forward
    return {k: np.concatenate(v) if v else np.zeros((0,), np.float32) for k, v in got.items()}


def float_networks(folder: Path = WEIGHTS) -> tuple[FaceClassifier, PoseNet]:
    """The float networks the 8-bit ones are made from (the reader's defaults are the 8-bit ones)."""
    return FaceClassifier(folder / "face_net.onnx"), PoseNet(folder / "pose_net.onnx")


def photo_inputs(dataset: Path, face: FaceClassifier) -> np.ndarray:
    reader = DiceReader(classifier=face)

    def run():
        for image in list_images(dataset):
            if split_of(image.name) == DEVELOPMENT:
                reader.read(cv2.imread(str(image)))

    faces = recorded_inputs(run)["face_net"]
    pick = np.random.default_rng(PHOTO_SEED).choice(len(faces), min(PHOTO_CROPS, len(faces)), replace=False)
    return faces[pick]


def main(argv: list[str] | None = None) -> int:
    from onnx import load
    from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, \
        quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, required=True, help="the dice-topdown photos (development split used)")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="folder for the *.int8.onnx files")
    parser.add_argument("--source", type=Path, default=WEIGHTS, help="folder of the float face_net.onnx and "
                        "pose_net.onnx (default: the committed ones; a candidate's folder to judge it in 8 bits)")
    parser.add_argument("--reduce-range", action="store_true", help="7-bit weights: ONNX Runtime's fused kernels "
                        "then compute them exactly on x86 without VNNI too (no 16-bit saturation)")
    args = parser.parse_args(argv)

    face, pose = float_networks(args.source)
    inputs = recorded_inputs(lambda: evaluate_synthetic(TUNE_THROWS, seed=TUNE_SEED, split="tune", classifier=face,
                                                        pose_net=pose))
    inputs["face_net"] = np.concatenate([inputs["face_net"], photo_inputs(args.dataset, face)])

    class Batches(CalibrationDataReader):
        def __init__(self, x: np.ndarray, name: str) -> None:
            self.batches = iter([{name: x[i:i + BATCH]} for i in range(0, len(x), BATCH)])

        def get_next(self):
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        for net in NETWORKS:
            source = args.source / f"{net}.onnx"
            ready = Path(tmp) / f"{net}.onnx"
            quant_pre_process(str(source), str(ready), skip_symbolic_shape=True)
            name = load(str(source)).graph.input[0].name
            out = args.out / f"{net}.int8.onnx"
            quantize_static(str(ready), str(out), Batches(inputs[net], name), quant_format=QuantFormat.QDQ,
                            per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                            calibrate_method=CalibrationMethod.MinMax, reduce_range=args.reduce_range)
            print(f"{out}: {len(inputs[net])} inputs", file=sys.stderr)
    print("now pin them: cd vision/weights && sha256sum *.onnx > SHA256SUMS", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
