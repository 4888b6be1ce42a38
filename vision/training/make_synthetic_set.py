"""Write rendered table frames with YOLO labels, to train the face classifier on casino dice too.

Output: OUT/images/NAME.png, OUT/labels/NAME.txt (class cx cy w h pose, class 0-5 = faces 1-6, cocked
dice labelled with their most exposed face, pose an index into POSES; dice hidden under another are
not labelled) and
OUT/labels/NAME.die (the die edge in pixels from the calibration, as the reader will use, then the
camera's nadir x, y and focal length in pixels: the pose network's `View`).
The seeds used here (1000+) never overlap the evaluation seeds (0-99). Tables take only the `tune`
looks (vision/synthetic_looks.py): the `unseen` looks are never rendered for training.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import calibrate
from vision.pose_net import View
from vision.synthetic import render
from vision.synthetic_scenes import random_rig, random_scene

KINDS = ("valid", "not_past_middle", "cocked", "cocked", "cocked", "touching", "touching", "overlapping", "overlapping",
         "stacked", "stacked", "stacked", "off_table")
POSES = {"flat": 0, "touching": 0, "off_table": 0, "cocked": 1, "stacked": 2, "overlapping": 3, "overlapped": 4}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--kinds", default=",".join(sorted(set(KINDS))),
                    help="comma-separated kinds of throw to render (default: the usual mix)")
    ap.add_argument("--cocked-tilt", default="15,40", help="degrees LO,HI a cocked die is tipped by")
    ap.add_argument("--under-lamp", type=float, help="share of throws with a die where a lamp is mirrored "
                    "(default: each look's own, 0.2-0.4)")
    args = ap.parse_args(argv)
    wanted = set(args.kinds.split(","))
    unknown = wanted - set(KINDS)
    if unknown:
        ap.error(f"unknown kinds {sorted(unknown)}; known: {', '.join(sorted(set(KINDS)))}")
    lo, hi = (float(v) for v in args.cocked_tilt.split(","))
    rng = np.random.default_rng(args.seed)
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "labels").mkdir(parents=True, exist_ok=True)
    games = ["craps", "banca-francesa", "cussec", "paikao"]
    rigs: dict[str, tuple] = {}
    for i in range(args.frames):
        game = games[i % len(games)]
        if game not in rigs or i % 40 < len(games):
            rig = random_rig(game, rng)
            if args.under_lamp is not None:
                rig = replace(rig, look=replace(rig.look, under_lamp=args.under_lamp))
            empty, _ = render(rig.scene([], rng, clean=True), rng)
            cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
            rigs[game] = (rig, cal.die_px, View.of(cal, *empty.shape[1::-1]))
        rig, die_px, view = rigs[game]
        kinds = [k for k in KINDS if k in wanted and not (k == "stacked" and game == "paikao")
                 and not (k == "not_past_middle" and game != "craps")] or ["valid"]
        dice = random_scene(rig, kinds[int(rng.integers(0, len(kinds)))], rng, (lo, hi))
        frame, truth = render(rig.scene(dice, rng), rng)
        h, w = frame.shape[:2]
        name = f"syn{args.seed}_{i:05d}"
        cv2.imwrite(str(args.out / "images" / f"{name}.png"), frame)
        lines = []
        for t in truth:
            if not t.visible:
                continue
            box = 1.25 * die_px
            lines.append(f"{t.value - 1} {t.x / w:.6f} {t.y / h:.6f} {box / w:.6f} {box / h:.6f} {POSES[t.pose]}")
        (args.out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
        # The die size the reader uses, and the camera's nadir and focal length (the pose network's view).
        (args.out / "labels" / f"{name}.die").write_text(
            f"{die_px:.3f} {view.nadir_x:.2f} {view.nadir_y:.2f} {view.focal_px:.2f}\n")
    print(f"wrote {args.frames} frames to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
