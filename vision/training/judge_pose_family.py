"""Judge pose networks on a family of rendered frames (make_synthetic_set.py output), die by die.

Each labelled die is cropped at its centre moved by up to 0.12 die edges (as the reader centres it; the
same moves for every network) and the network's P(flat) taken. Printed per network: the share of flat
dice under 0.75 / 0.9 / 0.97 (declined by the reader's thresholds) and, per pose, the share of tipped dice
at or over them (seen flat: the unsafe way). Training tooling: see vision/training/README.md.

    PYTHONPATH=. .venv/bin/python vision/training/judge_pose_family.py FAMILY_DIR NET.onnx [NET.onnx ...]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.dataset import label_path, list_images
from vision.pose_net import POSES, PoseNet, View

THRESHOLDS = (0.75, 0.9, 0.97)


def flat_probabilities(root: Path, net: PoseNet, seed: int = 0) -> dict[int, list[float]]:
    """P(flat) of every labelled die of the family, by its pose's index in POSES."""
    rng = np.random.default_rng(seed)
    out: dict[int, list[float]] = {i: [] for i in range(len(POSES))}
    for image in list_images(root):
        labels = label_path(root, image)
        lines = [ln.split() for ln in labels.read_text().splitlines() if ln.strip()]
        if not lines:
            continue
        die, *view = (float(v) for v in labels.with_suffix(".die").read_text().split())
        frame = cv2.imread(str(image))
        h, w = frame.shape[:2]
        r, t = rng.uniform(0, 0.12, len(lines)) * die, rng.uniform(0, 2 * math.pi, len(lines))
        centres = [(float(ln[1]) * w + r[k] * math.cos(t[k]), float(ln[2]) * h + r[k] * math.sin(t[k]))
                   for k, ln in enumerate(lines)]
        for ln, p in zip(lines, net.poses(frame, centres, die, View(*view[:3]))):
            out[int(ln[5])].append(float(p[0]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("family", type=Path, help="a folder written by make_synthetic_set.py")
    ap.add_argument("nets", type=Path, nargs="+", help="pose networks (ONNX)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    for path in args.nets:
        probs = flat_probabilities(args.family, PoseNet(path))
        parts = [path.name]
        for i, pose in enumerate(POSES):
            p = np.array(probs[i])
            if len(p) == 0:
                parts.append(f"{pose} n=0")
            elif i == 0:
                parts.append(f"flat n={len(p)} " + " ".join(f"<{t:g} {np.mean(p < t):.2%}" for t in THRESHOLDS))
            else:
                parts.append(f"{pose} n={len(p)} " + " ".join(f">={t:g} {np.mean(p >= t):.2%}" for t in THRESHOLDS))
        print(" | ".join(parts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
