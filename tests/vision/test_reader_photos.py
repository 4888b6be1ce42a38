"""The reader on real top-down photos (dice-topdown, BSD-3): dark and light pips, coloured dice, glare.

The full figures on both splits are printed by `make bench`; here a fixed handful of development
photos checks that reading real photos works end to end (they were seen in training: this is a
regression check, not a measure of accuracy). The held-back split is never used in the unit tests.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dataset import (DEVELOPMENT, DICE_TOPDOWN_ERRATA, HELD_BACK, Erratum, LabelledDie, corrected, label_path,
                            load_errata, read_labels, split_of)
from vision.dice_reader import DiceReader
from vision.errors import DatasetError, ImageError
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


def test_committed_errata_each_match_a_photo_and_its_labels(dice_photos):
    """Every erratum names a photo of the set and, for a wrong value, exactly one label it corrects."""
    errata = load_errata(DICE_TOPDOWN_ERRATA)
    assert errata
    for stem, rows in errata.items():
        image = dice_photos / "images" / f"{stem}.jpg"
        assert image.is_file(), stem
        labels = read_labels(label_path(dice_photos, image), 640, 640)
        fixed = corrected(labels, rows)
        assert len(fixed) == len(labels) + sum(1 for e in rows if e.label is None)
        for e in rows:
            assert any(d.value == e.value and abs(d.x - e.x) < 0.5 * d.w and abs(d.y - e.y) < 0.5 * d.h for d in fixed)


def test_errata_score_the_same_reading_against_corrected_labels():
    labels = (LabelledDie(2, 100.0, 100.0, 30.0, 30.0),)
    reading = Reading((Die(3, 101.0, 99.0, 30.0, 30.0, 0.9), Die(6, 400.0, 400.0, 30.0, 30.0, 0.9)))
    errata = [Erratum("x", 100.0, 100.0, 2, 3, "three pips"), Erratum("x", 400.0, 400.0, None, 6, "no label")]
    assert (score_reading(reading, labels).misread, score_reading(reading, labels).phantom) == (1, 1)
    s = score_reading(reading, corrected(labels, errata))
    assert (s.right, s.misread, s.phantom, s.dice) == (2, 0, 0, 2)


def test_an_erratum_that_matches_no_label_is_refused():
    labels = (LabelledDie(2, 100.0, 100.0, 30.0, 30.0),)
    with pytest.raises(DatasetError, match="no single label 4"):
        corrected(labels, [Erratum("IMG_1", 100.0, 100.0, 4, 3, "")])


@pytest.mark.parametrize("text, words", [("{", "not an errata file"), ('{"errata": [{"image": "a"}]}', r"errata\[0\]"),
                                         ('{"errata": [{"image": "a", "x": 1, "y": 1, "label": 9, "value": 3, '
                                          '"why": ""}]}', "faces 1-6")])
def test_bad_errata_files_are_refused_with_the_file_named(tmp_path, text, words):
    path = tmp_path / "errata.json"
    path.write_text(text)
    with pytest.raises(DatasetError, match=words) as err:
        load_errata(path)
    assert str(path) in str(err.value)


def test_a_value_below_the_overall_confidence_floor_is_not_a_read():
    """P(value | die) = 0.75 passes the classifier threshold, but P(a die is here) = 0.6 makes it 0.45 overall:
    an off-centre second look at a die already read; it must be `uncertain`, never a read."""
    from vision.dice_reader import Found

    reader = DiceReader(classifier=None)
    probs = np.array([0.4, 0.45, 0.03, 0.03, 0.03, 0.03, 0.03])
    found = Found(10.0, 10.0, 30.0, 0.0, 0, True, p_die=0.6, probs=probs)
    value, confidence, sure = reader.value_of(found)
    assert (value, round(confidence, 2), sure) == (1, 0.45, False)
    found.probs = np.array([0.2, 0.75, 0.01, 0.01, 0.01, 0.01, 0.01])
    found.p_die = 0.8
    assert reader.value_of(found)[2] is True
