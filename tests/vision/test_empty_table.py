"""The empty-table model: fits frames with dice, not frames under other lights; learned between throws, never from dice."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice_reader import DiceReader
from vision.empty_table import EmptyTable
from vision.synthetic import render
from vision.synthetic_eval import evaluate_synthetic, learned_model
from vision.synthetic_scenes import random_scene


def region(cal):
    w, h = cal.image_size
    return cal.search_mask(w, h, 0.25)


def dimmed(frame: np.ndarray, gain: float) -> np.ndarray:
    return np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def test_a_frame_with_dice_fits_the_installation_model(craps_rig):
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(3)
    frame, _ = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
    model = EmptyTable(empty, region=region(cal))
    assert model.how == "installation" and model.version == 1
    assert model.unfit(frame) is None
    assert "no empty-table model" in EmptyTable(None).unfit(frame)


def test_clear_frames_refresh_the_model_and_dice_lying_there_are_never_learned(craps_rig):
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(4)
    model = EmptyTable(empty, region=region(cal), samples=3)
    reader = DiceReader(cal, background=empty)
    lit = rig.scene([], rng)
    with_dice = rig.scene(random_scene(rig, "valid", rng), rng)
    for _ in range(4):
        assert model.offer(render(with_dice, rng)[0], reader) is False
    assert model.version == 1 and model.refused == 4
    clear = [render(lit, rng)[0] for _ in range(3)]
    assert [model.offer(f, reader) for f in clear] == [False, False, True]
    assert model.how == "refreshed" and model.version == 2
    assert reader.background is model.frame
    # the new model is the mean of the clear frames: less noise than any one of them
    assert np.abs(model.frame.astype(int) - clear[0]).mean() < np.abs(clear[1].astype(int) - clear[0]).mean()


def test_lights_switched_unfit_the_model_and_a_new_one_is_made_while_bets_are_open(craps_rig):
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(5)
    model = EmptyTable(empty, region=region(cal), samples=3)
    reader = DiceReader(cal, background=empty)
    dice = random_scene(rig, "valid", rng)
    throw, truth = render(rig.scene(dice, rng), rng)
    dark_throw = dimmed(throw, 0.45)
    assert "differs from its empty-table model" in model.unfit(dark_throw)
    dark_empty = [dimmed(render(rig.scene([], rng), rng)[0], 0.45) for _ in range(3)]
    assert [model.offer(f, reader) for f in dark_empty] == [False, False, True]
    assert model.how == "replaced" and model.unfit(dark_throw) is None
    reading = reader.read(dark_throw)
    assert sorted(reading.values) == sorted(t.value for t in truth)


def test_may_complete_says_when_the_next_frame_offered_may_make_a_model_checked_or_not(craps_rig):
    """The camera looks at the markers when a frame may complete a new model (firmware_host/dice_camera.py): the
    last of `samples` clear frames against the model, or of `samples` unchecked ones under other lights; the frames
    gathered can be dropped (a camera found moved took them)."""
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(6)
    model = EmptyTable(empty, region=region(cal), samples=3)
    reader = DiceReader(cal, background=empty)
    lit = rig.scene([], rng)
    clear = [render(lit, rng)[0] for _ in range(3)]
    said = []
    for f in clear:
        said.append(model.may_complete(f))
        model.offer(f, reader)
    assert said == [False, False, True] and model.version == 2
    dark = [dimmed(render(lit, rng)[0], 0.45) for _ in range(3)]
    model.offer(dark[0], reader)
    model.offer(dark[1], reader)
    assert model.may_complete(dark[2]) and not model.may_complete(clear[0])  # 2 unchecked gathered, 0 clear
    model.drop_samples()
    assert not model.may_complete(dark[2])
    assert [model.offer(f, reader) for f in dark] == [False, False, True] and model.how == "replaced"


def test_the_rendered_evaluations_learned_model_is_the_table_in_the_throws_light_without_its_dice(craps_rig):
    """`learned_model`, the empty table `evaluate_synthetic(model="learned")` reads a throw against, as the service's
    refreshed model: no die in it, and nearer the throw's frame off the dice than the calibration's clean frame."""
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(6)
    scene = rig.scene(random_scene(rig, "valid", rng), rng)
    frame, _ = render(scene, rng)
    model = learned_model(scene, np.random.default_rng(7))
    assert DiceReader(cal, background=empty).read(model).dice == ()
    off_dice = np.median(np.abs(frame.astype(int) - model), axis=2)
    assert np.median(off_dice) < np.median(np.median(np.abs(frame.astype(int) - empty), axis=2))
    with pytest.raises(ValueError, match="model must be"):
        evaluate_synthetic(1, model="clean")
