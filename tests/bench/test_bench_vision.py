"""Vision benchmarks (`make bench`): real photos on both splits, rendered mixes, speed, memory, calibration.

They print their figures and assert that they measured something (and that memory does not grow while reading).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware_host.dice_camera import VISION_GAMES, vision_for
from vision.calibration import Calibration, calibrate
from vision.dataset import DEVELOPMENT, DICE_TOPDOWN_ERRATA, HELD_BACK, load_errata
from vision.dice_reader import DiceReader
from vision.evaluation import evaluate
from vision.synthetic import render
from vision.synthetic_eval import evaluate_synthetic
from vision.synthetic_scenes import random_rig, random_scene

REPO = Path(__file__).resolve().parents[2]
DATASET = REPO.parent / "shared" / "datasets" / "dice-topdown"


@pytest.mark.skipif(not (DATASET / "images").is_dir(), reason="dataset not present")
def test_bench_real_photos_both_splits_both_readers():
    rows = {}
    for name, classifier in (("classical", None), ("dnn", "default")):
        reader = DiceReader(classifier=classifier)
        scores = evaluate(reader.read, DATASET, errata=load_errata(DICE_TOPDOWN_ERRATA))
        splits = (DEVELOPMENT, HELD_BACK, f"{DEVELOPMENT}+errata", f"{HELD_BACK}+errata")
        rows[name] = {split: scores[split].as_json() for split in splits if split in scores}
    print("\nreal photos (dice-topdown; held-back split = sha256(stem) % 10 < 3, never tuned on;"
          " +errata: the same readings against the labels corrected in vision/data/dice-topdown-errata.json):")
    print(f"{'reader':<10}{'split':<20}{'images':>7}{'dice':>6}{'right':>8}{'misread':>9}{'declined':>9}"
          f"{'missed':>8}{'img ok':>8}{'ms':>7}")
    for name, splits in rows.items():
        for split, s in splits.items():
            print(f"{name:<10}{split:<20}{s['images']:>7}{s['dice']:>6}{s['accuracy']:>8.2%}"
                  f"{s['confident_misread_rate']:>9.2%}{s['declined_rate']:>9.2%}{s['missed_rate']:>8.2%}"
                  f"{s['images_fully_right']:>8.2%}{s['ms_median']:>7.1f}")
    print("learned reader, held-back split:", end=" ")
    print_reliability(rows["dnn"][HELD_BACK]["reliability"])
    print(json.dumps(rows))


# The rendered report split: tables of the `unseen` looks (vision/synthetic_looks.py) and a seed never used to
# train, tune or check anything (docs/vision.md, "Splits").
REPORT_SEED = 61


@pytest.mark.timeout(7200)  # 3,600 throws: 1,910 s here (2026-11-24), longer than make bench's 1,800 s
def test_bench_rendered_tables_unseen_looks():
    t0 = time.perf_counter()
    score = evaluate_synthetic(3600, seed=REPORT_SEED, split="unseen")
    doc = score.as_json()
    print(f"\nrendered tables, UNSEEN looks, seed {REPORT_SEED} (never trained, tuned or checked on): "
          f"{doc['dice']} dice, {doc['throws']} throws in {time.perf_counter() - t0:.0f} s")
    print(f"flat dice right: {doc['flat_accuracy']:.4%} of {doc['flat_dice']}; confident misreads: "
          f"{doc['confident_misreads']} ({doc['phantom']} phantom); declined: {doc['declined']}; missed: {doc['missed']}")
    print(f"wrong published results: {doc['wrong_results']} of {doc['valid_verdicts']} valid verdicts "
          f"({doc['wrong_values']} with wrong values, {doc['valid_when_void']} valid where the rules void)")
    print(felt_split(doc))
    print(tables_run(doc))
    for pose, row in doc["poses"].items():
        print(f"{pose} dice: {pose_line(row, pose)}")
    print("flat dice declined, by the check that declined them (Die.declined): "
          + ", ".join(f"{why} {n}" for why, n in doc["flat_declined_by"].items()))
    print(f"{'condition':<34}{'dice':>6}{'right':>9}{'misread':>9}{'declined':>9}{'missed':>8}")
    for name, row in doc["conditions"].items():
        print(f"{name:<34}{row['dice']:>6}{row['right']:>9.2%}{row['misread']:>9.2%}{row['declined']:>9.2%}"
              f"{row['missed']:>8.2%}")
    print_reliability(doc["reliability"])
    for reason, row in sorted(doc["void_classes"].items()):
        print(f"void {reason:<16} recognised {row['rate']:.2%} of {row['throws']} throws")
    for kind, row in sorted(doc["kinds"].items()):
        print(f"  {kind:<30} expected {row['expected']:<16} {row['rate']:.2%} of {row['throws']}")
    print(json.dumps(doc))
    assert doc["dice"] >= 10000


def felt_split(doc: dict) -> str:
    """The wrong results on the tables the service runs, and on those whose felt it refuses (vision/felt_check.py)."""
    run_wrong, run_valid = doc["wrong_results"] - doc["refused_wrong"], doc["valid_verdicts"] - doc["refused_valid"]
    return (f"on the tables the service runs {run_wrong} of {run_valid}, on felts it refuses {doc['refused_wrong']} of "
            f"{doc['refused_valid']}")


def tables_run(doc: dict) -> str:
    """Flat dice right and cocked and stacked dice recognised on the tables the service runs: without the tables whose
    felt it refuses to start on (vision/felt_check.py), which the whole figures count."""
    run = doc["on_tables_run"]
    poses = "; ".join(f"{pose} recognised {row['recognised']:.2%} of {row['dice']} (named {row['named']:.2%})"
                      for pose, row in run["poses"].items())
    return (f"on the tables the service runs (felts it refuses left out): flat dice right {run['flat_accuracy']:.2%} "
            f"of {run['flat_dice']}; {poses}")


THREE_READS_SEED = 127  # unseen looks, never used before this bench's first run (2026-11-24)


@pytest.mark.timeout(3600)
def test_bench_rendered_tables_unseen_looks_three_agreed_reads():
    """The service's own verdict path: it reads three frames of the resting dice and publishes what they agree
    on (at_rest.agree); here the same scene under other sensor noise. Agreement takes reads away (a die read
    differently, or declined in another frame) and adds only dice every frame declined for their confidence
    alone or read, at a mean confidence that reaches the threshold (tests/vision/test_reader_rendered.py). The
    last row reads the three frames against the empty-table model the service learns while bets are open (the mean
    of still frames in the throw's light: `learned_model`, refreshed as the service refreshes it, the judge told what
    it holds that the clean frame does not), where the others read against the calibration's clean frame
    (docs/vision.md, thirty-second and thirty-third sessions)."""
    t0 = time.perf_counter()
    one = evaluate_synthetic(600, seed=THREE_READS_SEED, split="unseen").as_json()
    three = evaluate_synthetic(600, seed=THREE_READS_SEED, split="unseen", reads=3).as_json()
    served = evaluate_synthetic(600, seed=THREE_READS_SEED, split="unseen", reads=3, model="learned").as_json()
    print(f"\nrendered tables, UNSEEN looks, seed {THREE_READS_SEED}, 600 throws ({three['dice']} dice), one frame "
          f"vs three agreed frames (the service's path), against the calibration's empty table and the model the "
          f"service learns, {time.perf_counter() - t0:.0f} s:")
    for name, doc in (("one frame", one), ("three agreed", three), ("three, learned", served)):
        poses = doc["poses"]
        print(f"  {name:<15} flat right {doc['flat_accuracy']:.2%} of {doc['flat_dice']}; confident misreads "
              f"{doc['confident_misreads']}; wrong published results {doc['wrong_results']} of "
              f"{doc['valid_verdicts']} valid verdicts; {felt_split(doc)}")
        print(f"    {tables_run(doc)}")
        for pose in ("cocked", "stacked"):
            print(f"    {pose}: {pose_line(poses[pose], pose)}")
    print_reliability(three["reliability"])
    assert one["throws"] == three["throws"] == served["throws"] == 600
    assert one["dice"] == three["dice"] == served["dice"] > 0


def pose_line(row: dict, pose: str) -> str:
    """Issue 18's "recognised as such (never read flat)", both ways: named as not lying flat, and given no value as
    a flat die (a die seen flat but declined is the second, not the first)."""
    return (f"recognised (named not flat) {row['recognised']:.2%} of {row['dice']} (named {pose}: {row['named']:.2%}); "
            f"never read flat {row['never_read_flat']:.2%} (seen flat {row['seen_flat']}, of them read with a value "
            f"{row['read_flat']}; missed {row['missed']})")


def print_reliability(rows: list[dict]) -> None:
    print("calibration: among dice read at confidence >= t, the share wrong (must not exceed 1 - t)")
    for r in rows:
        print(f"  t = {r['t']:<5} read {r['dice']:>6}  wrong {r['wrong']:>4}  {r['error']:.3%}  (claimed <= {r['claimed']:.0%})")


def rendered_frames(n: int, seed: int = 1, kind: str = "valid", game: str = "craps"):
    rng = np.random.default_rng(seed)
    rig = random_rig(game, rng)
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
    frames = [render(rig.scene(random_scene(rig, kind, rng), rng), rng)[0] for _ in range(n)]
    return rig, empty, cal, frames


def service_vision(game: str, empty: np.ndarray, cal, folder: Path):
    """The watcher (its reader and at-rest detector) exactly as the service builds it for this table:
    from the calibration file `tablehw vision calibrate` writes, with the empty table kept beside it."""
    path = folder / f"{game}.json"
    cal.save(path, empty_table=empty)
    watcher, _, _ = vision_for(game, Calibration.load(path), fps=30.0)
    return watcher


def read_times_ms(reader: DiceReader, frames: list, rounds: int = 5) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of each read (one core: CPU time is the figure a busy machine spoils least)."""
    reader.read(frames[0])  # warm-up
    wall, cpu = [], []
    for f in frames * rounds:
        t0, c0 = time.perf_counter(), time.process_time()
        reader.read(f)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return wall, cpu


READ_TARGET_MS = 10.0  # issue 18: a read of the service's path, per 1280x720 frame, here


def summary(wall: list[float], cpu: list[float], frames: int | None = None) -> str:
    """The figures of `read_times_ms`; with `frames`, also how many frames read over READ_TARGET_MS (by the
    median of their rounds: the issue asks 10 ms for every frame, not for most)."""
    text = (f"wall median {np.median(wall):.2f} ms (p95 {np.percentile(wall, 95):.2f}), "
            f"CPU median {np.median(cpu):.2f} ms (mean {np.mean(cpu):.2f}, p95 {np.percentile(cpu, 95):.2f}, "
            f"max {np.max(cpu):.2f})")
    if frames:
        per_frame = np.median(np.reshape(cpu, (-1, frames)), axis=0)
        over = int(np.count_nonzero(per_frame > READ_TARGET_MS))
        text += f"; frames over {READ_TARGET_MS:g} ms: {over} of {frames} (slowest {per_frame.max():.2f} ms)"
    return text


def test_bench_speed_one_core(tmp_path):
    """Read time of the service's own reader (DiceReader as `DiceCamera` builds it, with the calibration's
    empty table) on one core, as the service runs OpenCV (`vision_for` sets one thread; set here first as well),
    1280x720 rendered frames of rigs never tuned on (craps seed 1, banca francesa seed 2): dice apart, and two dice
    touching (silhouette fit and a second read)."""
    cv2.setNumThreads(1)
    print(f"\nload average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (2 cores shared)")
    measured = 0
    for game, seed in (("craps", 1), ("banca_francesa", 2)):
        for kind in ("valid", "touching"):
            _, empty, cal, frames = rendered_frames(20, seed=seed, kind=kind, game=VISION_GAMES[game])
            watcher = service_vision(game, empty, cal, tmp_path)
            wall, cpu = read_times_ms(watcher.reader, frames)
            measured += len(wall)
            what = "dice apart" if kind == "valid" else "two dice touching"
            print(f"service read ({game}, seed {seed}, {what}), 1280x720, one core: "
                  f"{summary(wall, cpu, len(frames))}")
    _, empty, cal, frames = rendered_frames(20)
    wall, cpu = read_times_ms(DiceReader(cal, classifier=None, background=empty), frames)
    print(f"classical pip reader (not the service's), craps seed 1: {summary(wall, cpu)}")
    detector = service_vision("craps", empty, cal, tmp_path).detector
    times = []
    for f in frames * 50:
        t0 = time.perf_counter()
        detector.update(f)
        times.append((time.perf_counter() - t0) * 1000)
    print(f"at-rest check (the service's detector, table region), 1280x720, one core: median "
          f"{np.median(times):.3f} ms, p95 {np.percentile(times, 95):.3f} ms")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    assert measured == 4 * 100 and len(times) == 1000


def test_bench_memory_10000_reads(tmp_path):
    """The service's reader's resident memory over 10,000 reads, in a process of its own (tests/bench/reader_memory.py:
    pytest's process holds what the benchmarks before this one left)."""
    run = subprocess.run([sys.executable, "-m", "tests.bench.reader_memory", str(tmp_path)], cwd=REPO,
                         capture_output=True, text=True, timeout=1200, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    samples = figures["samples_mb"]
    print(f"\nmemory over {figures['reads']:,} reads (the service's reader, a process of its own): RSS "
          f"{figures['start_mb']:.1f} MB after warm-up, then every 1,000 reads: "
          + ", ".join(f"{s:.1f}" for s in samples) + f" MB; peak RSS {figures['peak_mb']:.1f} MB")
    assert len(samples) == 10, "not every 1,000 reads were measured"
    assert samples[-1] - samples[0] < 5.0, "memory grows while reading"


def test_bench_marker_looks_one_core():
    """The service's looks at the markers (has the camera moved? vision/camera_moved.py), as DiceCamera makes them:
    between throws (`check`: near the markers' places, then the whole frame by every detector setting) and on the first
    frame of each rest of the dice (`check(quick=True)`: the whole frame by the default setting alone), with the
    markers in view and with every one covered (chips, an arm), on a rendered rig of each dice game."""
    from vision.camera_moved import MarkerWatch
    from vision.markers import marker_corners_mm

    cv2.setNumThreads(1)
    print("\nlooks at the markers, 1280x720, one core, median (max) of 10:")
    measured = 0
    for game in ("craps", "banca-francesa", "cussec"):
        rng = np.random.default_rng(31)
        rig = random_rig(game, rng)
        photo, _ = render(rig.scene([], rng, clean=True), rng)
        cal = calibrate(photo, rig.layout, float(rig.camera.position[2]))
        frame, _ = render(rig.scene([], rng), rng)
        covered = frame.copy()
        for m in cal.layout.markers:
            corners = cal.points_to_image(marker_corners_mm(cal.layout, m))
            centre = corners.mean(axis=0)
            cv2.fillConvexPoly(covered, np.round(centre + (corners - centre) * 1.6).astype(np.int32), (60, 90, 140))
        watch = MarkerWatch(cal, photo)
        row = []
        for name, image, quick in (("in view, quick", frame, True), ("covered, quick", covered, True),
                                   ("in view", frame, False), ("covered", covered, False)):
            times = []
            for _ in range(10):
                t0 = time.perf_counter()
                watch.check(image, quick)
                times.append((time.perf_counter() - t0) * 1000)
            measured += len(times)
            row.append(f"{name} {np.median(times):.1f} ({max(times):.1f}) ms")
        print(f"  {game}: " + "; ".join(row))
    assert measured == 3 * 4 * 10


CALIBRATION_SEEDS = range(2000, 2100)  # never looked at; the detector settings were chosen on seeds 0-59 and 500-559


def test_bench_calibration_on_independently_drawn_rails():
    """`calibrate` on photos drawn without our renderer (tests/vision/marker_tables.py): dark and light rails,
    labels beside the markers, markers on a label's edge with the rail touching their border."""
    from tests.vision.marker_tables import felt_error_mm, marker_table
    from tests.vision.test_calibration_markers import GAMES, plain_detector
    from vision.errors import CalibrationError

    print(f"\ncalibration, {len(CALIBRATION_SEEDS)} rigs per row (seeds {CALIBRATION_SEEDS.start}-"
          f"{CALIBRATION_SEEDS.stop - 1}, never tuned on):")
    tried = 0
    for rail in ("dark", "light"):
        for labels in ("beside", "flush", None):
            plain = refused = recovered = twice = 0
            worst, times = 0.0, []
            for seed in CALIBRATION_SEEDS:
                image, layout, cam = marker_table(GAMES[seed % 3], seed, rail, labels)
                plain += not set(layout.markers) <= plain_detector(image)
                t0 = time.perf_counter()
                try:
                    cal = calibrate(image, layout)
                except CalibrationError:
                    refused += 1
                    continue
                finally:
                    times.append((time.perf_counter() - t0) * 1000)
                    tried += 1
                recovered += len(cal.recovered)
                twice += len(cal.read_twice)
                worst = max(worst, felt_error_mm(cal, layout, cam))
            print(f"  {rail} rail, labels {labels or 'none'}: refused {refused} (the plain detector alone missed a "
                  f"marker on {plain}); markers found where the others put them: {recovered}; an id read twice: "
                  f"{twice}; worst felt error {worst:.2f} mm; median {np.median(times):.0f} ms, slowest {max(times):.0f} ms")
    assert tried == 6 * len(CALIBRATION_SEEDS)
