"""`tablehw vision`: read dice in images, score a labelled dataset, calibrate a camera, render a table.

`read` without `--calibration` refuses an image that shows the table's ArUco calibration markers: with
no calibration to mask them, their black and white squares would be read as dice (and without the
table's geometry no throw can be judged anyway). `eval` reports its progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import Calibration, annotate as annotate_calibration, calibrate, detect_markers
from vision.dataset import DEVELOPMENT, HELD_BACK, is_tuning, list_images, load_errata, split_of
from vision.dice_reader import DiceReader
from vision.errors import ImageError, VisionError
from vision.evaluation import evaluate
from vision.evidence import annotate, write_evidence
from vision.layouts import LAYOUTS, Layout, layout_for
from vision.reading import DECLINED
from vision.throw_judge import ANY_GAME, RULES, judge, rules_for

ERRORS = (VisionError,)
GAMES = sorted(RULES)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("vision", help="read dice in images, score a dataset, calibrate the camera")
    vsub = p.add_subparsers(dest="vision_command", required=True, metavar="ACTION")

    r = vsub.add_parser("read", help="read the dice in one or more images and judge each throw")
    r.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    r.add_argument("--calibration", type=Path, help="calibration JSON from `tablehw vision calibrate`")
    r.add_argument("--game", choices=GAMES, help="judge each throw by this game's rules")
    r.add_argument("--background", type=Path, help="a frame of the empty table (fixed camera; default: the calibration's own)")
    r.add_argument("--classical", action="store_true", help="use the classical pip reader only (no DNN)")
    r.add_argument("--json", action="store_true", help="one JSON object per image, one per line")
    r.add_argument("--evidence", type=Path, metavar="DIR", help="write an annotated PNG per image here")
    r.set_defaults(func=run_read)

    e = vsub.add_parser("eval", help="score the reader on a folder of YOLO-labelled images")
    e.add_argument("--dataset", type=Path, required=True, metavar="DIR")
    e.add_argument("--split", choices=["all", DEVELOPMENT, HELD_BACK, "tuning"], default="all",
                   help="which images to score (the split is fixed by a hash of the file name)")
    e.add_argument("--classical", action="store_true", help="score the classical pip reader only")
    e.add_argument("--errata", type=Path, metavar="FILE",
                   help="label errata (JSON); also score against the corrected labels (vision/data/*-errata.json)")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=run_eval)

    c = vsub.add_parser("calibrate", help="find the four ArUco markers and map the camera to table mm")
    c.add_argument("image", type=Path, metavar="IMAGE")
    c.add_argument("--out", type=Path, required=True, metavar="FILE", help="calibration JSON to write")
    c.add_argument("--game", choices=sorted(LAYOUTS), default="craps", help="the layout (default craps)")
    c.add_argument("--layout", type=Path, help="a layout JSON instead of a game's default layout")
    c.add_argument("--png", type=Path, help="annotated image to write (default: FILE with .png)")
    c.add_argument("--camera-height", type=float, metavar="MM",
                   help="lens height above the felt (measured); enables the 3D pose checks")
    c.set_defaults(func=run_calibrate)

    g = vsub.add_parser("render", help="render a synthetic table frame (the simulated camera)")
    g.add_argument("--game", choices=sorted(LAYOUTS), default="craps")
    g.add_argument("--kind", default="valid", help="valid, cocked, stacked, overlapping, touching, off_table, ...")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--out", type=Path, required=True, help="PNG to write")
    g.add_argument("--empty", type=Path, help="also write the empty table (for calibration and background)")
    g.set_defaults(func=run_render)


def load_image(path: Path) -> np.ndarray:
    if not path.is_file():
        raise ImageError(f"{path}: no such file")
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        raise ImageError(f"{path}: not an image OpenCV can read")
    return frame


def refuse_markers_without_calibration(path: Path, frame: np.ndarray) -> None:
    markers = detect_markers(frame)
    if markers:
        raise VisionError(
            f"{path}: shows the table's calibration markers (ArUco {sorted(markers)}); without --calibration they "
            "would be read as dice. Calibrate on a frame of the empty table first (tablehw vision calibrate "
            "EMPTY.png --out cal.json --game GAME) and read with --calibration cal.json")


def run_read(args: argparse.Namespace) -> int:
    cal = Calibration.load(args.calibration) if args.calibration else None
    if cal is None:
        for path in args.images:  # all of them before any reading: nothing half done
            refuse_markers_without_calibration(path, load_image(path))
    background = load_image(args.background) if args.background else (cal.empty_table_frame() if cal else None)
    reader = DiceReader(cal, classifier=None if args.classical else "default", background=background)
    rules = rules_for(args.game) if args.game else ANY_GAME
    for path in args.images:
        frame = load_image(path)
        t0 = time.perf_counter()
        reading = reader.read(frame)
        ms = (time.perf_counter() - t0) * 1000.0
        verdict = judge(reading, rules, cal)
        doc = {"image": str(path), "dice": [d.as_json() for d in reading.dice], "verdict": "valid" if verdict.valid
               else "void", "reason": verdict.reason.value if verdict.reason else None, "detail": verdict.detail,
               "ms": round(ms, 1)}
        if reading.blobs:
            doc["blobs"] = [b.as_json() for b in reading.blobs]
        if args.evidence:
            out = write_evidence(args.evidence, path.name, annotate(frame, reading, verdict, cal, str(path.name)))
            doc["evidence"] = str(out)
        if args.json:
            print(json.dumps(doc))
        else:
            values = " ".join("?" if d["value"] is None else str(d["value"]) for d in doc["dice"])
            said = doc["verdict"] + (f" ({doc['reason']})" if doc["reason"] else "")
            print(f"{path}: {len(doc['dice'])} dice [{values}] {said} {ms:.1f} ms")
            for i, d in enumerate(reading.dice, 1):
                why = f" (not read: {DECLINED[d.declined]})" if d.declined in DECLINED and not d.is_read else ""
                print(f"  #{i} value {d.value} {d.pose.value} confidence {d.confidence:.2f} at ({d.x:.0f}, {d.y:.0f})"
                      f"{why}")
    return 0


def run_eval(args: argparse.Namespace) -> int:
    reader = DiceReader(classifier=None if args.classical else "default")
    select = {
        "all": None,
        "tuning": lambda p: is_tuning(p.name),
        DEVELOPMENT: lambda p: split_of(p.name) == DEVELOPMENT,
        HELD_BACK: lambda p: split_of(p.name) == HELD_BACK,
    }[args.split]
    errata = load_errata(args.errata) if args.errata else None
    total = sum(1 for p in list_images(args.dataset) if select is None or select(p))
    scores = evaluate(reader.read, args.dataset, select, on_image=Progress(total), errata=errata)
    doc = {"reader": "classical" if args.classical else ("dnn" if reader.classifier else "classical"),
           "splits": {k: v.as_json() for k, v in sorted(scores.items())}}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"reader: {doc['reader']}  dataset: {args.dataset}")
    print(f"{'split':<20}{'images':>7}{'dice':>6}{'accuracy':>10}{'misread':>9}{'declined':>9}{'missed':>8}"
          f"{'images ok':>10}{'ms':>7}")
    for name, s in doc["splits"].items():
        print(f"{name:<20}{s['images']:>7}{s['dice']:>6}{s['accuracy']:>10.2%}{s['confident_misread_rate']:>9.2%}"
              f"{s['declined_rate']:>9.2%}{s['missed_rate']:>8.2%}{s['images_fully_right']:>10.2%}"
              f"{s['ms_median'] or 0:>7.1f}")
    return 0


class Progress:
    """`scored 40/240 images (12 s)` on stderr: over itself on a terminal, else a line every tenth."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.terminal = sys.stderr.isatty()
        self.every = max(1, total // 10)

    def __call__(self, image: Path, reading, score) -> None:
        self.done += 1
        if self.terminal or self.done % self.every == 0 or self.done == self.total:
            line = f"scored {self.done}/{self.total} images ({time.monotonic() - self.start:.0f} s)"
            end = "\r" if self.terminal and self.done < self.total else "\n"
            print(line, end=end, file=sys.stderr, flush=True)


def run_calibrate(args: argparse.Namespace) -> int:
    if args.layout:
        try:
            layout = Layout.from_json(json.loads(args.layout.read_text()))
        except (OSError, json.JSONDecodeError) as exc:
            raise VisionError(f"{args.layout}: cannot read layout: {exc}") from exc
    else:
        layout = layout_for(args.game)
    frame = load_image(args.image)
    cal = calibrate(frame, layout, args.camera_height)
    cal = cal.save(args.out, empty_table=frame)  # the photo is of the empty table: the reader's first model
    png = args.png or args.out.with_suffix(".png")
    if not cv2.imwrite(str(png), annotate_calibration(frame, cal)):
        raise VisionError(f"{png}: cannot write the annotated image")
    print(f"{args.out}: {layout.name}, marker error {cal.error_mm:.2f} mm, die {cal.die_px:.1f} px; checked image {png}; "
          f"empty table {cal.empty_table}")
    for note in cal.notes:
        print(f"  {note}")
    saved = Calibration.load(args.out)  # the digests of the files as written, which every start of the table publishes
    print(f"  sha256 {saved.sha256}, empty-table photo sha256 {saved.empty_table_photo()[1]}: record them as this "
          "table's approved calibration (the table tells them at every start: docs/vision.md, Calibration)")
    from vision.camera_check import camera_tilt_deg, unvalidated_tilt
    from vision.felt_check import unvalidated_felt

    from ..camera_validation import FELT_OVERRIDE, TILT_OVERRIDE

    tilt = camera_tilt_deg(cal)
    print(f"  camera {tilt:.1f} degrees off straight down" if tilt is not None else
          "  camera lean not known: no --camera-height")
    # A calibration is the geometry, kept; the service is where the camera's lean and the felt are refused.
    for why, override in ((unvalidated_tilt(cal), TILT_OVERRIDE), (unvalidated_felt(frame, cal), FELT_OVERRIDE)):
        if why is not None:
            print(f"warning: {why}; {override}", file=sys.stderr)
    return 0


def run_render(args: argparse.Namespace) -> int:
    from vision.synthetic import render
    from vision.synthetic_scenes import random_rig, random_scene

    rng = np.random.default_rng(args.seed)
    rig = random_rig(args.game, rng)
    try:
        dice = random_scene(rig, args.kind, rng)
    except ValueError as exc:
        raise VisionError(str(exc)) from exc
    frame, truth = render(rig.scene(dice, rng), rng)
    if not cv2.imwrite(str(args.out), frame):
        raise VisionError(f"{args.out}: cannot write image")
    if args.empty:
        empty, _ = render(rig.scene([], rng, clean=True), rng)
        cv2.imwrite(str(args.empty), empty)
    json.dump({"image": str(args.out), "game": args.game, "kind": args.kind,
               "camera_height_mm": round(float(rig.camera.position[2]), 1),
               "dice": [{"value": t.value, "pose": t.pose, "x": round(t.x, 1), "y": round(t.y, 1)} for t in truth]},
              sys.stdout)
    print()
    return 0
