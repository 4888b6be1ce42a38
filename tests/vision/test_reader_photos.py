"""The reader on real top-down photos (dice-topdown, BSD-3): dark and light pips, coloured dice, glare.

The full figures on both splits are printed by `make bench`; here a fixed handful of development
photos checks that reading real photos works end to end (they were seen in training: this is a
regression check, not a measure of accuracy). The held-back split is never used in the unit tests.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dataset import DEVELOPMENT, HELD_BACK, LabelledDie, label_path, read_labels, split_of
from vision.dice_reader import DiceReader
from vision.errors import ImageError
from vision.evaluation import evaluate, score_reading
from vision.face_classifier import DEFAULT_WEIGHTS
from vision.reading import Die, Reading

NAMES = ["IMG_20191208_111328", "IMG_20191208_111742", "IMG_20191209_095431", "IMG_20191209_100221",
         "IMG_20191209_100538", "IMG_20191208_112933"]


def test_the_fixed_photos_are_development_photos():
    assert all(split_of(n + ".jpg") == DEVELOPMENT for n in NAMES)


def test_split_is_fixed_by_the_file_name_and_holds_back_about_30_percent(dice_photos):
    names = sorted(p.name for p in (dice_photos / "images").iterdir())
    held = [n for n in names if split_of(n) == HELD_BACK]
    assert 0.25 <= len(held) / len(names) <= 0.35
    assert [split_of(n) for n in names] == [split_of(n) for n in names]  # no randomness


@pytest.mark.skipif(not DEFAULT_WEIGHTS.is_file(), reason="no committed weights")
def test_learned_reader_reads_real_photos(dice_photos):
    reader = DiceReader()
    scores = evaluate(reader.read, dice_photos, lambda p: p.stem in NAMES)
    s = scores["all"]
    assert s.images == len(NAMES) and s.dice >= 40
    assert s.right / s.dice >= 0.95, s.as_json()
    assert s.misread + s.phantom == 0, s.as_json()


def test_classical_reader_runs_on_real_photos_and_reports_what_it_is_unsure_of(dice_photos):
    reader = DiceReader(classifier=None)
    frame = cv2.imread(str(dice_photos / "images" / f"{NAMES[0]}.jpg"))
    reading = reader.read(frame)
    labels = read_labels(label_path(dice_photos, dice_photos / "images" / f"{NAMES[0]}.jpg"), 640, 640)
    s = score_reading(reading, labels)
    assert s.dice == len(labels) and s.right + s.misread + s.declined + s.missed == len(labels)
    assert reading.die_size_px > 10  # estimated from the photo: no calibration


def test_score_counts_phantom_and_declined_dice():
    labels = (LabelledDie(3, 100.0, 100.0, 30.0, 30.0),)
    reading = Reading((Die(3, 101.0, 99.0, 30.0, 30.0, 0.9), Die(5, 400.0, 400.0, 30.0, 30.0, 0.9),
                       Die(2, 600.0, 50.0, 30.0, 30.0, 0.3, sure=False)))
    s = score_reading(reading, labels)
    assert (s.right, s.phantom, s.declined, s.missed, s.images_right) == (1, 1, 0, 0, 0)


@pytest.mark.parametrize("frame", [np.zeros((10, 10, 3), np.uint8), np.zeros((100, 100), np.uint8), "image.png",
                                   np.zeros((100, 100, 3), np.float32)])
def test_bad_frames_are_refused(frame):
    with pytest.raises(ImageError):
        DiceReader(classifier=None).read(frame)
