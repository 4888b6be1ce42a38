"""Vision benchmarks (`make bench`) of what a real camera does to its images, measured on what we did not make:

- the real photos blurred, compressed and noisy as a camera makes them, read by the reader the photos are scored with;
  per split, dice right, read wrong (confidently) and declined as blurred (the blur floor, vision/blur_check.py, was
  chosen on the development split; the held-back split is the report);
- rendered tables of the unseen looks through a camera sending MJPG (the example configuration's `fourcc`): every
  frame it gives JPEG-compressed, the calibration photo and the empty table's frames included, read as the service
  reads (docs/vision.md, "An MJPG camera").
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from vision.dataset import DEVELOPMENT, DICE_TOPDOWN_ERRATA, HELD_BACK, load_errata, split_of
from vision.dice_reader import DiceReader
from vision import synthetic_eval
from vision.evaluation import evaluate

DATASET = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "dice-topdown"


def shaken(image: np.ndarray, per_640: float) -> np.ndarray:
    """Smeared along a horizontal line of `per_640` pixels in 640 of the image's width (a shake of the mount)."""
    n = max(3, int(per_640 * image.shape[1] / 640) | 1)
    kernel = np.zeros((n, n), np.float32)
    kernel[n // 2, :] = 1.0 / n
    return cv2.filter2D(image, -1, kernel)


def out_of_focus(image: np.ndarray, per_640: float) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), per_640 * image.shape[1] / 640)


def compressed(image: np.ndarray, quality: int) -> np.ndarray:
    return cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


def noisy(image: np.ndarray, sigma: float) -> np.ndarray:
    rng = np.random.default_rng(int(image[::7, ::7].sum()))  # the same noise for the same photo, run after run
    return np.clip(image.astype(np.float32) + rng.normal(0, sigma, image.shape), 0, 255).astype(np.uint8)


CAMERA_FAULTS = {
    "in focus (as taken)": lambda im: im,
    "out of focus, 1 px": lambda im: out_of_focus(im, 1.0),
    "out of focus, 2 px": lambda im: out_of_focus(im, 2.0),
    "out of focus, 3 px": lambda im: out_of_focus(im, 3.0),
    "shaken, 6 px": lambda im: shaken(im, 6.0),
    "shaken, 12 px": lambda im: shaken(im, 12.0),
    "JPEG quality 20": lambda im: compressed(im, 20),
    "sensor noise, sigma 20": lambda im: noisy(im, 20.0),
}


def test_bench_real_photos_as_a_faulty_camera_takes_them():
    reader = DiceReader(classifier="default")
    errata = load_errata(DICE_TOPDOWN_ERRATA)
    print("\nreal photos as a faulty camera takes them (per 640 pixels of width; labels with the errata; the blur "
          "floor chosen on the development split, the held-back split never tuned on):")
    print(f"{'fault':<24}{'split':<13}{'dice':>6}{'right':>8}{'read wrong':>12}{'declined':>10}{'finds blurred':>15}")
    measured = 0
    for fault, make in CAMERA_FAULTS.items():
        why: Counter = Counter()
        scores = evaluate(lambda frame: reader.read(make(frame)), DATASET, errata=errata,
                          on_image=lambda image, reading, s: why.update(
                              (split_of(image.name), d.declined) for d in reading.dice if not d.is_read))
        for split in (DEVELOPMENT, HELD_BACK):
            s = scores[f"{split}+errata"].as_json()
            blurred = why[(split, "blurred")]
            print(f"{fault:<24}{split:<13}{s['dice']:>6}{s['accuracy']:>8.2%}{s['misread'] + s['phantom']:>12}"
                  f"{s['declined']:>10}{blurred:>15}")
            measured += s["dice"]
    assert measured > 8 * 1000


MJPG_SEED, MJPG_THROWS = 61, 200  # the unseen report seed of the bench's mixes (its first 200 throws)


def test_bench_rendered_tables_through_an_mjpg_camera(monkeypatch):
    """The same throws, raw and as a camera sending MJPG at quality 90 and 75 gives them (each frame JPEG-compressed as
    it leaves the camera), read as the service reads: against the empty-table model learned from the camera's frames,
    one frame."""
    render = synthetic_eval.render
    print(f"\nrendered tables, UNSEEN looks, seed {MJPG_SEED} (first {MJPG_THROWS} throws), every frame through the "
          "camera as it sends it, read as the service reads (learned empty-table model, one frame):")
    measured = 0
    for quality in (None, 90, 75):
        def camera(scene, rng, *args, quality=quality, **kwargs):
            frame, truth = render(scene, rng, *args, **kwargs)
            return (frame if quality is None else compressed(frame, quality)), truth

        monkeypatch.setattr(synthetic_eval, "render", camera)
        doc = synthetic_eval.evaluate_synthetic(MJPG_THROWS, seed=MJPG_SEED, split="unseen", model="learned").as_json()
        what = "raw (YUYV)" if quality is None else f"MJPG quality {quality}"
        print(f"{what:<18} flat dice right {doc['flat_accuracy']:.2%} of {doc['flat_dice']}; wrong published "
              f"{doc['wrong_results']} of {doc['valid_verdicts']} valid; confident misreads "
              f"{doc['confident_misreads']} ({doc['phantom']} phantom); flat declined by: "
              + ", ".join(f"{why} {n}" for why, n in list(doc["flat_declined_by"].items())[:6]))
        measured += doc["dice"]
    assert measured > 3 * 400
