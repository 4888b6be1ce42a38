"""Train the pose network (how a die lies: flat, cocked, stacked, leaning, overlapped); export ONNX.

Training only: needs torch (CPU build), never used at run time. The reader runs the ONNX file through
ONNX Runtime on calibrated casino tables (vision/pose_net.py, vision/onnx_net.py). Rendered tables carry
the pose of every die; the development photos add real dice, all lying flat. The held-back split is never read.
See vision/training/README.md for how the committed weights were made.
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch

from vision.dataset import DEVELOPMENT, label_path, list_images, split_of
from vision.pose_net import POSE_PX, POSES, pose_crop, to_blob

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_face_net import (FaceNet, Scene, augment_colour, pick_die,  # noqa: E402 - same body, scenes, colours
                            start_from, training_setup)


def wider_colours(img: np.ndarray, rng: random.Random) -> np.ndarray:
    """Colours beyond a hue turn: saturation from greyish to vivid (grey felts, ivory dice), a gamma from dark
    to pale (black and light rails and walls), and a slight cast per channel."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.25, 1.6), 0, 255)
    out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32) / 255.0
    out = out ** rng.uniform(0.6, 1.6) * np.array([rng.uniform(0.85, 1.15) for _ in range(3)], np.float32)
    return np.clip(out * 255.0, 0, 255).astype(np.uint8)


def as_jpeg(scenes: list[Scene], share: float, lo: int, hi: int, rng: random.Random) -> list[Scene]:
    """Copies of that share of the scenes with their frames JPEG-compressed at a quality from lo to hi, as a camera
    sending MJPG gives them (docs/vision.md, "An MJPG camera"): the block edges and ringing round the dice's outlines
    and pips that the rendered frames lack."""
    out = []
    for scene in scenes:
        if rng.random() < share:
            jpeg_scene = copy.copy(scene)
            quality = rng.randint(lo, hi)
            encoded = cv2.imencode(".jpg", scene.frame, [cv2.IMWRITE_JPEG_QUALITY, quality])[1]
            jpeg_scene.frame = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
            out.append(jpeg_scene)
    return out


def sample(scene: Scene, rng: random.Random, tipped_weight: float, wide: bool = False, invert: float = 0.0
           ) -> tuple[np.ndarray, float, int]:
    """A crop around a labelled die (centred within 0.12 die edges, as the reader centres it), turned as the
    reader turns it (away from the camera upwards, +-8 degrees), its view tangent and its pose."""
    i = pick_die(scene, rng, tipped_weight)
    d = scene.dice[i]
    die = scene.die * rng.uniform(0.92, 1.08)
    r, t = rng.uniform(0, 0.12) * scene.die, rng.uniform(0, 2 * math.pi)
    img, tan = pose_crop(scene.frame, d.x + r * math.cos(t), d.y + r * math.sin(t), die, scene.view,
                         rng.uniform(-8, 8))
    if rng.random() < 0.5:
        img = img[:, ::-1].copy()  # a mirror keeps "away from the camera" upwards
    if invert and rng.random() < invert:  # no draw when off: the committed recipes' streams stay as they were
        img = 255 - img  # light dice with dark pips tipped too, dark ones flat: no die colour tells the pose
    if wide and rng.random() < 0.7:
        img = wider_colours(img, rng)
    return augment_colour(img, rng), tan * rng.uniform(0.92, 1.08), scene.poses[i]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", type=Path, required=True, help="the photos (development split: flat dice)")
    ap.add_argument("--extra", type=Path, required=True, help="rendered tables with a pose column")
    ap.add_argument("--out", type=Path, required=True, help="ONNX file to write")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--steps", type=int, default=200, help="batches per epoch")
    ap.add_argument("--photo-share", type=float, default=0.15, help="share of samples from the photos")
    ap.add_argument("--tipped-weight", type=float, default=3.0)
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (1 on a busy machine: no spinning)")
    ap.add_argument("--init", type=Path, help="fine-tune this ONNX network (same shape) instead of starting afresh")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--invert", type=float, default=0.0, help="share of crops with their colours inverted")
    ap.add_argument("--wide-colours", action="store_true", help="saturation, gamma and channel casts too "
                    "(`wider_colours`), for looks the rendered tables do not have")
    ap.add_argument("--jpeg", type=float, default=0.0, help="this share of the rendered frames added again as an "
                    "MJPG camera gives them (`as_jpeg`: JPEG at a quality drawn from --jpeg-quality)")
    ap.add_argument("--jpeg-quality", default="50,95", help="LO,HI JPEG quality of the frames --jpeg adds")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(args.threads)
    photos = [Scene(p, label_path(args.dataset, p)) for p in list_images(args.dataset) if split_of(p.name) == DEVELOPMENT]
    rendered = [s for s in (Scene(p, label_path(args.extra, p)) for p in list_images(args.extra)) if s.dice]
    if args.jpeg:  # a stream of its own: without --jpeg the committed recipes' draws stay as they were
        lo, hi = (int(q) for q in args.jpeg_quality.split(","))
        rendered += as_jpeg(rendered, args.jpeg, lo, hi, random.Random(args.seed + 7919))
    print(f"{len(photos)} photos, {len(rendered)} rendered frames", flush=True)
    # The same body; global pooling takes the 48x48 crop; a fourth input plane (the view tangent); 5 pose logits.
    net = start_from(args.init, len(POSES), 4) if args.init else FaceNet(outputs=len(POSES), in_channels=4)
    opt, sched, ce = training_setup(net, args.epochs * args.steps, args.lr)
    batch = 96
    for epoch in range(args.epochs):
        net.train()
        t0, total, correct = time.monotonic(), 0.0, 0
        for _ in range(args.steps):
            items = [sample(rng.choice(photos) if rng.random() < args.photo_share else rng.choice(rendered), rng,
                            args.tipped_weight, args.wide_colours, args.invert) for _ in range(batch)]
            x = torch.from_numpy(to_blob(np.stack([i[0] for i in items]), [i[1] for i in items]))
            y = torch.tensor([i[2] for i in items])
            out = net(x)
            loss = ce(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            correct += int((out.argmax(1) == y).sum())
        print(f"epoch {epoch + 1}: loss {total / args.steps:.4f} acc {correct / (batch * args.steps):.4f} "
              f"({time.monotonic() - t0:.0f} s)", flush=True)
        if (epoch + 1) % 10 == 0 or epoch + 1 == args.epochs:
            net.eval()
            args.out.parent.mkdir(parents=True, exist_ok=True)
            torch.onnx.export(net, torch.zeros(1, 4, POSE_PX, POSE_PX), str(args.out), input_names=["crop"],
                              output_names=["pose"], dynamic_axes={"crop": {0: "n"}, "pose": {0: "n"}},
                              opset_version=13, dynamo=False)
            print(f"wrote {args.out} ({args.out.stat().st_size} bytes)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
