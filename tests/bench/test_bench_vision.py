"""Vision benchmarks (`make bench`): real photos on both splits, 10,000 rendered dice, speed, memory.

They print their figures and assert that they measured something (and that memory does not grow while reading).
"""

from __future__ import annotations

import json
import os
import resource
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
from vision.synthetic_eval import (evaluate_synthetic, probe_chip_beside, probe_cocked_held, probe_lamp_places,
                                   probe_tipped_to_nadir)
from vision.synthetic_scenes import random_rig, random_scene

DATASET = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "dice-topdown"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


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
    for pose, row in doc["poses"].items():
        print(f"{pose} dice: {pose_line(row, pose)}")
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
        for pose in ("cocked", "stacked"):
            print(f"    {pose}: {pose_line(poses[pose], pose)}")
    print_reliability(three["reliability"])
    assert one["throws"] == three["throws"] == served["throws"] == 600
    assert one["dice"] == three["dice"] == served["dice"] > 0


# Unseen looks: 379 first used by this probe (2026-11-29, sixteenth session); 563 and 569 first used on 2026-12-06
# (twenty-seventh session), to check a rule chosen on tune probes (not adopted: docs/vision.md), and kept here since:
# the looks are drawn per table, so one seed's 30 tables give a figure that varies from seed to seed (7, 24, 10 of 200).
# 571 and 577 first used in the twenty-eighth session (3 and 4 of 200), nothing changed in the reader since.
def probe_each(seeds, run):
    """Each seed with its probe, `run(seed)`, and the seconds the probe took."""
    for seed in seeds:
        t0 = time.perf_counter()
        p = run(seed)
        yield seed, p, time.perf_counter() - t0


TIPPED_SEEDS = (379, 563, 569, 571, 577)


def test_bench_dice_tipped_towards_the_camera_s_foot_unseen_looks():
    """The cocked die likeliest to be taken for flat: tipped towards the point under the camera by about the angle it
    is seen at, it shows no side face (vision.synthetic_scenes.tipped_to_nadir). One such die in each of 300 valid
    throws a seed (craps, banca francesa, cussec in turn), unseen looks, one frame; banca francesa and cussec void a
    cocked die (Portugal 1995 IV.8 and VII.6: `ThrowRules.cocked_void`), so a throw of theirs judged valid is a wrong
    result."""
    total: dict[str, int] = {}
    for seed, p, took in probe_each(TIPPED_SEEDS, lambda seed: probe_tipped_to_nadir(300, seed=seed, split="unseen")):
        print(f"\ndice tipped towards the camera's foot, UNSEEN looks, seed {seed}, 300 throws, one frame, "
              f"{took:.0f} s: seen flat {p.seen_flat} of {p.tipped} "
              f"({p.seen_flat / p.tipped:.1%}), read {p.read} ({p.read_wrong} other than their most exposed face); "
              f"banca francesa and cussec throws judged valid (wrong): "
              f"{p.published} of {p.voiding}; "
              f"the other dice (flat) read right {p.flat_right} of {p.flat} ({p.flat_right / p.flat:.1%})")
        print(f"  of them on tables whose felt the service refuses (vision/felt_check.py): {p.felt_refused_published} "
              f"of {p.felt_refused}; on the tables it runs: {p.published - p.felt_refused_published} of "
              f"{p.voiding - p.felt_refused}")
        assert p.tipped == 300 and p.voiding == 200 and p.flat == 500
        for key, n in (("published", p.published), ("voiding", p.voiding), ("refused", p.felt_refused),
                       ("refused_published", p.felt_refused_published)):
            total[key] = total.get(key, 0) + n
    print(f"tipped probe, all seeds: wrong results {total['published']} of {total['voiding']} throws that must be "
          f"void; on the tables the service runs {total['published'] - total['refused_published']} of "
          f"{total['voiding'] - total['refused']}")


def held_detail(p) -> str:
    """What the probes of held dice print alike: the throws that must be void by what held the die and by verdict,
    those of the tables the service runs, and the other dice of the throws."""
    holders = ", ".join(f"{name} {valid} of {n}" for name, (n, valid) in sorted(p.by_holder.items()))
    verdicts = ", ".join(f"{k} {n}" for k, n in sorted(p.verdicts.items()))
    return (f"(by what holds the die: {holders}; verdicts: {verdicts}); on the tables the service runs "
            f"{p.published - p.felt_refused_published} of {p.voiding - p.felt_refused}; the other dice read right "
            f"{p.flat_right} of {p.flat}")


HELD_SEEDS = (599, 601)  # first used 2026-12-06 (thirtieth session), after the probe's design was fixed on tune seeds


def test_bench_dice_tipped_towards_the_camera_s_foot_held_unseen_looks():
    """The same tipped die, held as a die can be: a cube tipped under 45 degrees falls back flat unless something
    holds its raised edge (vision.synthetic_held.tipped_to_nadir_held: a chip or a coin under it, drawn, or from 15
    degrees another die it is wedged against). Craps and banca francesa in turn (no chip lies under a dome), 300
    throws a seed, unseen looks, one frame; a banca francesa throw judged valid is a wrong result (Portugal 1995
    IV.8(a): a die cocked, or touching something that is not a die, voids the throw)."""
    total = [0, 0, 0, 0]
    def held(seed: int):
        return probe_tipped_to_nadir(300, seed=seed, split="unseen", games=("craps", "banca-francesa"), held=True)
    for seed, p, took in probe_each(HELD_SEEDS, held):
        print(f"\ndice tipped towards the camera's foot, HELD (chip, coin or wedged), UNSEEN looks, seed {seed}, 300 "
              f"throws, one frame, {took:.0f} s: seen flat {p.seen_flat} of {p.tipped}, read "
              f"{p.read}, {p.read_wrong} read other than their most exposed face; banca francesa throws judged "
              f"valid (wrong): {p.published} of {p.voiding} {held_detail(p)}")
        assert p.tipped == 300 and p.voiding == 150 and p.flat == 150 * 1 + 150 * 2
        assert sum(n for n, _ in p.by_holder.values()) == p.voiding
        for i, n in enumerate((p.published, p.voiding, p.felt_refused_published, p.felt_refused)):
            total[i] += n
    print(f"held tipped probe, all seeds: wrong results {total[0]} of {total[1]}; on the tables the service runs "
          f"{total[0] - total[2]} of {total[1] - total[3]}")


# 607 and 613 first used 2026-12-06 (thirtieth session), after the wall rule was chosen on tune seeds; 631 and 641 first
# used in the thirty-first, after the pose network taught held dice was chosen on tune seeds (vision/training/README.md)
COCKED_HELD_SEEDS = (607, 613, 631, 641)


def test_bench_cocked_dice_held_as_real_dice_are_unseen_looks():
    """Dice cocked as a real table shows them (vision.synthetic_held.cocked_held): wedged against a wall or the
    dome's glass, tipped towards the table's middle (the camera then sees the top face head-on), or with the raised
    edge on a chip, a stack of chips or a coin. One in each of 300 valid throws a seed (craps, banca francesa, cussec
    in turn), unseen looks, one frame. Banca francesa and cussec void a cocked die (Portugal 1995 IV.8, VII.6); craps
    reads its most exposed face (Macau 2010 Art. 3): a value other than that face is a wrong result there."""
    total = [0, 0, 0, 0, 0, 0]
    for seed, p, took in probe_each(COCKED_HELD_SEEDS, lambda seed: probe_cocked_held(300, seed=seed, split="unseen")):
        print(f"\ncocked dice held as real dice are, UNSEEN looks, seed {seed}, 300 throws, one frame, "
              f"{took:.0f} s: named cocked {p.named} of {p.tipped} ({p.named / p.tipped:.1%}), "
              f"seen flat {p.seen_flat}, read {p.read}, {p.read_wrong} read other than their most exposed face; "
              f"banca francesa and cussec throws judged valid (wrong): {p.published} of {p.voiding} {held_detail(p)}")
        assert p.tipped == 300 and p.voiding == 200 and p.flat == 100 * 1 + 200 * 2
        for i, n in enumerate((p.named, p.tipped, p.published, p.voiding, p.felt_refused_published, p.felt_refused)):
            total[i] += n
    print(f"cocked dice held, all seeds: named cocked {total[0]} of {total[1]} ({total[0] / total[1]:.1%}); wrong "
          f"results {total[2]} of {total[3]}; on the tables the service runs {total[2] - total[4]} of "
          f"{total[3] - total[5]}")


def test_bench_cocked_dice_held_read_as_the_service_reads_them_unseen_looks():
    """The same probe on its first seed, each throw read as the service reads it: against the model it learns while
    bets are open (the table without the dice, in the throw's light; a chip under a die lay there before, so the
    model holds it, and the judge is told). Read so, a banca francesa die cocked on a chip the reader found nothing
    in was published valid before what the model holds was every part of its foreground (docs/vision.md,
    thirty-third session)."""
    seed = COCKED_HELD_SEEDS[0]
    ((_, p, took),) = probe_each((seed,), lambda s: probe_cocked_held(300, seed=s, split="unseen", model="learned"))
    print(f"\ncocked dice held, read as the service reads them (its learned model), UNSEEN looks, seed {seed}, 300 "
          f"throws, one frame, {took:.0f} s: named cocked {p.named} of {p.tipped} ({p.named / p.tipped:.1%}), seen flat "
          f"{p.seen_flat}, read {p.read}; banca francesa and cussec throws judged valid (wrong): {p.published} of "
          f"{p.voiding} {held_detail(p)}")
    assert p.tipped == 300 and p.voiding == 200


# unseen looks, first used 2026-12-06 (thirty-first session); the probe's design was fixed on tune seed 9970
CHIP_SEED = 659


def test_bench_flat_dice_beside_a_chip_unseen_looks():
    """Flat dice with a chip, a stack of chips or a coin lying 0.5-6 mm beside one of them (vision.synthetic_held.
    chip_beside), as chips lie about a craps layout: craps and banca francesa in turn, 200 valid throws, unseen looks,
    one frame, read against the calibration's empty table and as the service reads it (its model learned from still
    frames with the chip on the table, told to the judge where it holds what the table did not, or its model from
    before the chip where it read a die in them). Both groups' reads and misreads are printed (the first run: the
    dice by the chip read less often against the calibration's, declined by the silhouette check, never misread;
    docs/vision.md, thirty-first to thirty-third sessions); a valid throw with a die read wrong is a wrong result."""
    ((_, p, took),) = probe_each((CHIP_SEED,), lambda seed: probe_chip_beside(200, seed=seed, split="unseen"))
    print(f"\nflat dice beside a chip or coin, UNSEEN looks, seed {CHIP_SEED}, 200 throws, one frame, {took:.0f} s; "
          f"the service's models: {p.models}, of them still frames with a die read (the chip not learned) "
          f"{p.refused}, models holding something the table before did not (told to the judge) {p.holding}")
    for name, c in (("calibration's", p.calibration), ("service's", p.service)):
        near, other = c.by_chip, c.other
        print(f"  {name:<14} dice within 3 die edges of it read {near.right} of {near.dice} "
              f"({near.right / near.dice:.1%}), misread {near.wrong}; the other flat dice read {other.right} of "
              f"{other.dice} ({other.right / other.dice:.1%}), misread {other.wrong}; throws judged valid {c.valid}, "
              f"wrong results {c.wrong_published}")
        assert near.dice + other.dice == 100 * 2 + 100 * 3 and near.dice >= 150
    assert sum(p.models.values()) == 200


FELT_SEEDS = {"tune": 71, "random": 72, "unseen": 73}  # first used 2026-12-06 (twenty-seventh session)


def test_bench_felt_saturation():
    """The felt's saturation in rendered photos of empty tables (vision/felt_check.py), 100 tables a row: the training's
    own felts (the tune looks', and felts of random colours as `make_synthetic_set.random_felt` draws them), from
    which FELT_SATURATION_FLOOR was chosen, and the unseen looks' felts, reported only: the share the service
    refuses."""
    from vision.felt_check import FELT_SATURATION_FLOOR, felt_saturation
    from vision.training.make_synthetic_set import random_felt

    games = ("craps", "banca-francesa", "cussec", "paikao")
    print(f"\nfelt saturation (0-255) of rendered empty tables; the service refuses under {FELT_SATURATION_FLOOR:.0f}")
    rows = 0
    for kind, seed in FELT_SEEDS.items():
        rng = np.random.default_rng(seed)
        by_felt: dict[str, list[float]] = {}
        for i in range(100):
            rig = random_rig(games[i % len(games)], rng, split="unseen" if kind == "unseen" else "tune")
            if kind == "random":
                rig = rig.on_felt(random_felt(rng, rig.look.style.body), "random")
            empty, _ = render(rig.scene([], rng, clean=True), rng)
            cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
            by_felt.setdefault(rig.look.felt_name, []).append(felt_saturation(empty, cal))
        for felt, values in sorted(by_felt.items()):
            a = np.array(values)
            print(f"  {kind:<7} {felt:<9} {len(a):>4} tables: lowest {a.min():6.1f}, median {np.median(a):6.1f}, "
                  f"highest {a.max():6.1f}; refused {int((a < FELT_SATURATION_FLOOR).sum())}")
            rows += len(a)
    assert rows == 300


LAMP_SEED = 557  # unseen looks, first used by this probe (2026-11-29, twenty-first session)


def test_bench_lamp_places_learned_unseen_looks():
    """A die where a lamp is mirrored in its top face in every throw, tables kept 50 throws of their game (a table's
    reader learns where its lamps are mirrored, vision/lamp_spots.py), unseen looks, one frame: the reader as the
    service builds it and the same reader without the learned places, on the same frames."""
    t0 = time.perf_counter()
    p = probe_lamp_places(600, seed=LAMP_SEED, split="unseen")
    print(f"\na die under a lamp in every throw, tables kept 50 throws, UNSEEN looks, seed {LAMP_SEED}, 600 throws, "
          f"one frame, {time.perf_counter() - t0:.0f} s; {p.lamp_dice} dice under a lamp, {p.other_dice} others; "
          f"lamp places learned {p.places}:")
    for name, c in (("learning the lamps' places (the service's)", p.learning), ("without them", p.without)):
        print(f"  {name}: under a lamp read right {c.lamp_right}, wrong {c.lamp_wrong}; others read right "
              f"{c.other_right}, wrong {c.other_wrong}; valid {c.valid}, wrong published {c.wrong_published}")
    assert p.lamp_dice >= 500 and p.other_dice > 0 and p.places > 0


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
    cv2.setNumThreads(1)
    _, empty, cal, frames = rendered_frames(10)
    reader = service_vision("craps", empty, cal, tmp_path).reader
    for f in frames:
        reader.read(f)
    start = rss_mb()
    samples = []
    for i in range(10000):
        reader.read(frames[i % len(frames)])
        if i % 1000 == 999:
            samples.append(rss_mb())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"\nmemory over 10,000 reads: RSS {start:.1f} MB after warm-up, then every 1,000 reads: "
          + ", ".join(f"{s:.1f}" for s in samples) + f" MB; peak RSS {peak:.1f} MB")
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
