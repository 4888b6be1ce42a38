"""Train the small face classifier (none, 1-6 + centre offset) on the development split; export ONNX.

Training only: needs torch (`pip install torch==2.13.0`, CPU build), never used at run time.
See vision/training/README.md for how to reproduce the committed weights.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from vision.dataset import DEVELOPMENT, LabelledDie, is_tuning, label_path, list_images, read_labels, split_of
from vision.die_finder import find_foreground
from vision.face_crops import CROP_DIES, CROP_PX, crop_matrix
from vision.pose_net import View

N_CLASSES = 7  # 0 = no die centred here, 1-6 = the top face
N_POSES = 5  # flat, cocked, stacked, leaning (on another die), overlapped (another die leans on it)


class FaceNet(nn.Module):
    """Three conv stages and a linear head: 7 class logits, (dx, dy) in die edges, 5 pose logits.
    `channels`: the six convolutions' widths (default: `width` doubling, the committed 16-32-32-64-64-64). `norm=False`
    leaves out batch norm (the shape of an exported network, whose batch norm is folded into the convolutions:
    see `start_from`)."""

    def __init__(self, width: int = 16, outputs: int = N_CLASSES + 2 + N_POSES, in_channels: int = 3,
                 norm: bool = True, channels: tuple[int, ...] | None = None) -> None:
        super().__init__()
        w = width
        a, b, c, d, e, f = channels or (w, 2 * w, 2 * w, 4 * w, 4 * w, 4 * w)

        def block(i: int, o: int) -> list[nn.Module]:
            conv = nn.Conv2d(i, o, 3, padding=1, bias=not norm)
            return [conv, nn.BatchNorm2d(o), nn.ReLU(inplace=True)] if norm else [conv, nn.ReLU(inplace=True)]

        self.features = nn.Sequential(
            *block(in_channels, a), nn.MaxPool2d(2),
            *block(a, b), *block(b, c), nn.MaxPool2d(2),
            *block(c, d), *block(d, e), nn.MaxPool2d(2),
            *block(e, f),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(f, outputs))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def start_from(weights: Path, outputs: int, in_channels: int) -> FaceNet:
    """A FaceNet (without batch norm) holding the weights of a committed ONNX network, to fine-tune it."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(weights))
    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    channels = tuple(int(init[n.input[1]].shape[0]) for n in convs)
    net = FaceNet(outputs=outputs, in_channels=in_channels, norm=False,
                  channels=channels if len(channels) == 6 else None)
    layers = [m for m in net.features if isinstance(m, nn.Conv2d)]
    (gemm,) = [n for n in model.graph.node if n.op_type == "Gemm"]
    if len(convs) != len(layers):
        raise ValueError(f"{weights}: {len(convs)} convolutions, FaceNet has {len(layers)}")
    pairs = [(layer.weight, node.input[1]) for layer, node in zip(layers, convs)]
    pairs += [(layer.bias, node.input[2]) for layer, node in zip(layers, convs)]
    pairs += [(net.head[1].weight, gemm.input[1]), (net.head[1].bias, gemm.input[2])]
    with torch.no_grad():
        for param, name in pairs:
            value = torch.from_numpy(init[name].copy())
            if value.shape != param.shape:
                raise ValueError(f"{weights}: {name} is {tuple(value.shape)}, FaceNet wants {tuple(param.shape)}")
            param.copy_(value)
    return net


class Scene:
    """One development image with its labelled dice and the reader's candidate centres."""

    def __init__(self, image: Path, labels: Path) -> None:
        self.frame = cv2.imread(str(image))
        h, w = self.frame.shape[:2]
        self.poses: list[int] = []
        lines = [ln.split() for ln in labels.read_text().splitlines() if ln.strip()]
        if lines and len(lines[0]) == 6:  # rendered tables: a pose column after the box
            self.poses = [int(p[5]) for p in lines]
            stripped = labels.with_suffix(".yolo")
            stripped.write_text("\n".join(" ".join(p[:5]) for p in lines) + "\n")
            labels = stripped
        self.dice = read_labels(labels, w, h)
        if not self.poses:
            self.poses = [0] * len(self.dice)  # the photos: every die lies flat
        known = labels.with_suffix(".die")  # rendered frames: the calibrated die size the reader uses, the view
        values = [float(v) for v in known.read_text().split()] if known.is_file() else []
        self.die = values[0] if values else None
        # Photos: a camera above the image centre (View.of without a calibration).
        self.view = View(*values[1:4]) if len(values) >= 4 else View.of(None, w, h)
        if self.die is not None and self.dice:
            # Keep rendered frames small in memory: the dice and four dice around them.
            m = 4 * self.die
            x0 = max(0, int(min(d.x for d in self.dice) - m))
            y0 = max(0, int(min(d.y for d in self.dice) - m))
            x1 = min(w, int(max(d.x for d in self.dice) + m))
            y1 = min(h, int(max(d.y for d in self.dice) + m))
            self.frame = self.frame[y0:y1, x0:x1].copy()
            self.view = View(self.view.nadir_x - x0, self.view.nadir_y - y0, self.view.focal_px)
            self.dice = tuple(LabelledDie(d.value, d.x - x0, d.y - y0, d.w, d.h) for d in self.dice)
        fg = find_foreground(self.frame, die_size=self.die)
        if self.die is None:
            self.die = fg.die_size
        self.centres = np.array([(d.x, d.y) for d in self.dice], np.float32).reshape(-1, 2)
        self.sizes = np.array([max(d.w, d.h) for d in self.dice], np.float32)
        self.negatives = [(c.x, c.y) for c in fg.candidates if self.nearest(c.x, c.y)[1] > 0.6]

    def nearest(self, x: float, y: float) -> tuple[int, float]:
        """Index of the nearest labelled die and the distance in its box sizes."""
        if not len(self.centres):
            return -1, math.inf
        dist = np.hypot(self.centres[:, 0] - x, self.centres[:, 1] - y) / self.sizes
        i = int(np.argmin(dist))
        return i, float(dist[i])


def augment_colour(img: np.ndarray, rng: random.Random) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.int16)
    hsv[..., 0] = (hsv[..., 0] + rng.randint(0, 179)) % 180 if rng.random() < 0.5 else hsv[..., 0]
    out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    out = out * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (3, 3), rng.uniform(0.3, 1.0))
    out += np.random.normal(0, rng.uniform(0, 6), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def pick_die(scene: Scene, rng: random.Random, tipped_weight: float) -> int:
    """A labelled die of the scene; dice not lying flat are `tipped_weight` times as likely (they are rare)."""
    weights = [tipped_weight if p else 1.0 for p in scene.poses]
    return rng.choices(range(len(scene.dice)), weights)[0]


UNLABELLED = -100  # a crop between a die's centre and "no die" (CrossEntropyLoss ignores it; a teacher answers)


def sample(scene: Scene, rng: random.Random, positive: bool, tipped_weight: float = 1.0, between: bool = False
           ) -> tuple[np.ndarray, int, float, float, int]:
    """A random augmented crop: positives centred near a die (class = its value), else a negative; with
    `between`, a crop 0.22-0.6 box sizes from a die is kept too, UNLABELLED (only a teacher says what it is)."""
    die = scene.die * rng.uniform(0.85, 1.18)
    angle = rng.uniform(0, 360)
    if positive and len(scene.dice):
        i = pick_die(scene, rng, tipped_weight)
        d = scene.dice[i]
        r = rng.uniform(0, 0.3) * scene.sizes[i] * 0.75
        t = rng.uniform(0, 2 * math.pi)
        x, y = d.x + r * math.cos(t), d.y + r * math.sin(t)
    elif scene.negatives and rng.random() < 0.8:
        x, y = rng.choice(scene.negatives)
    else:
        h, w = scene.frame.shape[:2]
        x, y = rng.uniform(0, w), rng.uniform(0, h)
    i, dist = scene.nearest(x, y)
    pose = -1
    if dist < 0.3 * 0.75 + 1e-6 and i >= 0:
        label = scene.dice[i].value
        pose = scene.poses[i]
        m = crop_matrix(x, y, die, angle)
        gx, gy = m @ np.array([scene.dice[i].x, scene.dice[i].y, 1.0])
        span = CROP_PX / CROP_DIES  # crop pixels per die edge
        dx, dy = (gx - CROP_PX / 2) / span, (gy - CROP_PX / 2) / span
    elif dist > 0.6:
        label, dx, dy = 0, 0.0, 0.0
    elif between:
        label, dx, dy = UNLABELLED, 0.0, 0.0
    else:
        return sample(scene, rng, positive, tipped_weight)
    img = cv2.warpAffine(scene.frame, crop_matrix(x, y, die, angle), (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < 0.5:
        img = img[:, ::-1].copy()
        dx = -dx
    return augment_colour(img, rng), label, dx, dy, pose


def to_tensor(imgs: list[np.ndarray]) -> torch.Tensor:
    return torch.from_numpy(np.stack(imgs).astype(np.float32) / 255.0 - 0.5).permute(0, 3, 1, 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--extra", type=Path, help="extra folder of YOLO-labelled images (e.g. rendered tables)")
    ap.add_argument("--out", type=Path, required=True, help="ONNX file to write")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--steps", type=int, default=200, help="batches per epoch")
    ap.add_argument("--holdout-val", action="store_true", help="keep the inner validation part out of training")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (1 on a busy machine: no spinning)")
    ap.add_argument("--init", type=Path, help="fine-tune this ONNX network (same shape) instead of starting afresh")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--extra-share", type=float, default=0.4, help="share of samples from --extra scenes")
    ap.add_argument("--pose-weight", type=float, default=1.0, help="weight of the pose loss")
    ap.add_argument("--channels", default="16,32,32,64,64,64",
                    help="the six convolutions' widths (the default: the committed network's)")
    ap.add_argument("--teacher", type=Path, help="an ONNX face network whose outputs the network learns to match too")
    ap.add_argument("--teacher-weight", type=float, default=1.0, help="weight of matching the teacher")
    ap.add_argument("--teacher-photos", default="class,pose,offset",
                    help="which of the teacher's outputs crops of the photos match (comma-separated: class, pose, "
                    "offset; 'none'): a fine-tuned network kept where the committed one was on real dice")
    ap.add_argument("--teacher-rendered", default="class,pose,offset",
                    help="the same for crops of rendered frames ('pose': the pose head kept, the values learned)")
    ap.add_argument("--between", action="store_true",
                    help="with --teacher: also crops 0.22-0.6 die boxes off a die, matched to the teacher only")
    ap.add_argument("--tipped-weight", type=float, default=1.0,
                    help="how much more often a die not lying flat is picked for a positive crop")
    args = ap.parse_args(argv)
    channels = channels_of(ap, args.channels)
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(args.threads)
    scenes, extra = [], []
    for image in list_images(args.dataset):
        if split_of(image.name) != DEVELOPMENT:
            continue  # the held-back split is never read here
        if args.holdout_val and is_tuning(image.name):
            continue
        scenes.append(Scene(image, label_path(args.dataset, image)))
    if args.extra:
        for image in list_images(args.extra):
            extra.append(Scene(image, label_path(args.extra, image)))
    print(f"{len(scenes)} photos ({sum(len(s.dice) for s in scenes)} dice), {len(extra)} rendered frames "
          f"({sum(len(s.dice) for s in extra)} dice)", flush=True)

    def pick() -> Scene:
        return rng.choice(extra) if extra and rng.random() < args.extra_share else rng.choice(scenes)

    if args.init:
        net = start_from(args.init, N_CLASSES + 2 + N_POSES, 3)
    else:
        net = FaceNet(channels=channels)
    parts = {"photos": parts_of(ap, "--teacher-photos", args.teacher_photos),
             "rendered": parts_of(ap, "--teacher-rendered", args.teacher_rendered)}
    teacher = Teacher(args.teacher) if args.teacher else None
    photos = {id(s) for s in scenes}
    between = args.between and teacher is not None
    opt, sched, ce = training_setup(net, args.epochs * args.steps, args.lr)
    batch = 96
    for epoch in range(args.epochs):
        net.train()
        t0, total, correct, seen = time.monotonic(), 0.0, 0, 0
        for _ in range(args.steps):
            items, origins = [], []
            for _ in range(batch):  # pick, then sample: the draws in the order they always were
                scene = pick()
                items.append(sample(scene, rng, rng.random() < 0.6, args.tipped_weight, between))
                origins.append("photos" if id(scene) in photos else "rendered")
            x = to_tensor([i[0] for i in items])
            y = torch.tensor([i[1] for i in items])
            off = torch.tensor([[i[2], i[3]] for i in items], dtype=torch.float32)
            out = net(x)
            pos = y > 0
            loss = ce(out[:, :N_CLASSES], y)
            pose = torch.tensor([i[4] for i in items])
            if pos.any():
                loss = loss + 2.0 * nn.functional.smooth_l1_loss(out[pos, N_CLASSES:N_CLASSES + 2], off[pos], beta=0.1)
                loss = loss + args.pose_weight * ce(out[pos, N_CLASSES + 2:], pose[pos])
            if teacher is not None:
                loss = loss + args.teacher_weight * teacher.loss(x, out, [parts[o] for o in origins])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            correct += int((out[:, :N_CLASSES].argmax(1) == y).sum())
            seen += batch
        print(f"epoch {epoch + 1}: loss {total / args.steps:.4f} acc {correct / seen:.4f} "
              f"({time.monotonic() - t0:.0f} s)", flush=True)
        if (epoch + 1) % 10 == 0 or epoch + 1 == args.epochs:
            export(net, args.out)
    return 0


def parts_of(ap: argparse.ArgumentParser, option: str, text: str) -> frozenset[str]:
    """`--teacher-photos` / `--teacher-rendered`: the teacher's outputs to match, or 'none'."""
    parts = frozenset() if text == "none" else frozenset(text.split(","))
    if parts - set(Teacher.PARTS):
        ap.error(f"{option}: {', '.join(sorted(parts - set(Teacher.PARTS)))} unknown; known: "
                 f"{', '.join(Teacher.PARTS)} or none")
    return parts


def channels_of(ap: argparse.ArgumentParser, text: str) -> tuple[int, ...]:
    """`--channels`: six positive widths, comma-separated."""
    try:
        channels = tuple(int(c) for c in text.split(","))
    except ValueError:
        ap.error(f"--channels: not whole numbers: {text!r}")
    if len(channels) != 6 or min(channels) < 1:
        ap.error(f"--channels: six positive widths, one per convolution, not {text!r}")
    return channels


class Teacher:
    """Distillation: a committed network's outputs on the same crops, to match (class and pose probabilities by
    KL divergence, the centre offset where the teacher finds a die) -- a smaller network learns the larger one's
    confidences, not only the labels, so the reader's thresholds keep their meaning."""

    PARTS = ("class", "pose", "offset")

    def __init__(self, weights: Path) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        self.session = ort.InferenceSession(str(weights), options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def loss(self, x: torch.Tensor, out: torch.Tensor, parts: list[frozenset[str]]) -> torch.Tensor:
        """What matching the teacher costs; `parts`: per crop, which of its outputs to match (`PARTS`)."""
        t = torch.from_numpy(self.session.run(None, {self.input: x.numpy()})[0])
        rows = {p: torch.tensor([p in q for q in parts]) for p in self.PARTS}

        def kl(a: slice, m: torch.Tensor) -> torch.Tensor:  # batchmean over the whole batch, of the rows m
            return nn.functional.kl_div(nn.functional.log_softmax(out[m, a], 1), nn.functional.softmax(t[m, a], 1),
                                        reduction="sum") / len(x)

        loss = out.new_zeros(())
        for part, cols in (("class", slice(0, N_CLASSES)), ("pose", slice(N_CLASSES + 2, None))):
            if rows[part].any():
                loss = loss + kl(cols, rows[part])
        die = (nn.functional.softmax(t[:, :N_CLASSES], 1)[:, 0] < 0.5) & rows["offset"]
        if die.any():
            loss = loss + nn.functional.smooth_l1_loss(out[die, N_CLASSES:N_CLASSES + 2],
                                                       t[die, N_CLASSES:N_CLASSES + 2], beta=0.1)
        return loss


def training_setup(net: nn.Module, total_steps: int, lr: float = 3e-3):
    """The optimiser, one-cycle schedule and loss both networks are trained with (`lr`: the peak rate)."""
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=total_steps)
    return opt, sched, nn.CrossEntropyLoss(label_smoothing=0.02)


def export(net: nn.Module, out: Path) -> None:
    """Write the network as ONNX (batch size free) for ONNX Runtime (vision/onnx_net.py)."""
    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, CROP_PX, CROP_PX), str(out), input_names=["crop"],
                      output_names=["out"], dynamic_axes={"crop": {0: "n"}, "out": {0: "n"}}, opset_version=13,
                      dynamo=False)
    net.train()
    print(f"wrote {out} ({out.stat().st_size} bytes)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
