"""The empty-table model: fits frames with dice, not frames under other lights; learned between throws, never from dice."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vision.dice_reader import DiceReader
from vision.empty_table import EmptyTable
from vision.reading import HELD
from vision.synthetic import render
from vision.synthetic_eval import calibrated_reader, evaluate_synthetic, learned_model
from vision.synthetic_held import chip_beside
from vision.synthetic_scenes import flat, free_spots, random_rig, random_scene
from vision.synthetic_supports import random_support
from vision.throw_judge import judge, rules_for


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


def chips_on_the_layout(rig, rng):
    """A chip and a coin lying on a craps layout between throws (where chips lie beside dice), and dice thrown well
    away from them (over 3 die edges)."""
    placed = [flat(rig, x, y, rng) for x, y in free_spots(rig, 2, rng)]
    supports = chip_beside(rig, placed, rng)
    supports += chip_beside(rig, placed, rng, supports)
    reach = 3.0 * rig.layout.die_mm
    for _ in range(50):
        dice = [flat(rig, x, y, rng) for x, y in free_spots(rig, 2, rng)]
        if all(math.hypot(d.centre[0] - s.x, d.centre[1] - s.y) > reach + s.radius for d in dice for s in supports):
            return supports, dice
    raise AssertionError("no place for the dice away from the chips")


def test_chips_the_reader_cannot_read_are_learned_and_a_throw_that_finds_anything_where_they_lay_is_void(craps_rig):
    """A chip on a craps layout the reader finds as a die it cannot read: a model that refused it would void every
    throw while it lies there. It is learned, and the model says what it holds (`objects`); told that (`seen`), the
    judge reads a throw away from it, and voids one that finds anything where it lay (here: taken away, so the felt
    shows where the model has the chip)."""
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(7)  # on this table the coin is found as a die the reader cannot read
    supports, dice = chips_on_the_layout(rig, rng)
    with_chips = rig.scene([], rng, supports=supports)
    reader = DiceReader(cal, background=empty)
    still = [render(with_chips, rng)[0] for _ in range(3)]
    found = reader.read(still[0]).dice
    assert found and not any(d.is_read for d in found)
    model = EmptyTable(empty, region=region(cal), samples=3)
    assert [model.offer(f, reader) for f in still] == [False, False, True]
    assert model.how == "refreshed" and model.refused == 0
    coin = [s for s in supports if not s.chip][0]
    u, v = rig.camera.project(np.array([[coin.x, coin.y, 0.0]]))[0]
    assert model.objects and all(b.why == HELD for b in model.objects)
    assert any(abs(b.x - u) < cal.die_px and abs(b.y - v) < cal.die_px for b in model.objects)

    frame, truth = render(rig.scene(dice, rng, supports=supports), rng)
    verdict = judge(model.seen(reader.read(frame)), rules_for("craps"), cal)
    assert verdict.valid, verdict.detail
    assert sorted(verdict.values) == sorted(t.value for t in truth)

    taken, _ = render(rig.scene(dice, rng, supports=[s for s in supports if s is not coin]), rng)
    verdict = judge(model.seen(reader.read(taken)), rules_for("craps"), cal)
    assert not verdict.valid and verdict.reason.value == "uncertain"
    assert "lies where the empty-table model holds an object" in verdict.detail


def test_a_chip_the_reader_finds_no_die_in_is_held_all_the_same(craps_rig):
    """A chip is no die, so the reader often finds nothing in it: no find, no blob kept aside. Held only when found, it
    was hidden from the judge, and a banca francesa die cocked on a chip the model held so was published valid as
    read (unseen seed 607, `probe_cocked_held(model="learned")`; cocked dice void there, IV.8(f)). What the model
    holds is every part of its foreground against the reference."""
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(0)  # two chips, neither found as anything by the reader
    supports, _ = chips_on_the_layout(rig, rng)
    reader = DiceReader(cal, background=empty)
    still = [render(rig.scene([], rng, supports=supports), rng)[0] for _ in range(3)]
    found = reader.read(still[0])
    assert found.dice == () and found.blobs == ()
    model = EmptyTable(empty, region=region(cal), samples=3)
    assert [model.offer(f, reader) for f in still] == [False, False, True]
    for chip in supports:
        u, v = rig.camera.project(np.array([[chip.x, chip.y, 0.0]]))[0]
        assert any(abs(b.x - u) <= b.w / 2 and abs(b.y - v) <= b.h / 2 for b in model.objects), (chip, model.objects)


def test_a_die_against_a_coin_that_lay_on_the_track_before_the_throw_is_a_foreign_object():
    """Portugal 1995 IV.8(a) (004): a banca francesa throw is void when a die touches an object foreign to the table. A
    coin that lay on the track while bets were open is in the empty-table model, hidden from the reader: judged on
    the reading alone, a die against it was published valid. Told what the model holds, the judge voids it."""
    rng = np.random.default_rng(11)
    rig = random_rig("banca-francesa", rng, split="tune")
    reader = calibrated_reader(rig, rng)  # the calibration and its clean empty table, as the service builds them
    empty, cal = reader.background, reader.calibration
    dice = [flat(rig, x, y, rng) for x, y in free_spots(rig, 3, rng)]
    coin = random_support(0.0, 0.0, 2.0, rng, coin=True)
    (x, y), d = dice[0].centre[:2], rig.layout.die_mm
    coin = replace(coin, x=float(x) + coin.radius + 0.72 * d, y=float(y))  # past the die's corners, its face 0-4 mm off
    model = EmptyTable(empty, region=region(cal), samples=3)
    lying = rig.scene([], rng, supports=[coin])
    assert [model.offer(render(lying, rng)[0], reader) for _ in range(3)] == [False, False, True]
    assert model.objects, "the coin is what the model holds that the table as installed did not"

    frame, truth = render(rig.scene(dice, rng, supports=[coin]), rng)
    reading = reader.read(frame)
    assert sorted(reading.values) == sorted(t.value for t in truth)
    assert judge(reading, rules_for("banca-francesa"), cal).valid  # the reading alone: the coin is not in it
    verdict = judge(model.seen(reading), rules_for("banca-francesa"), cal)
    assert not verdict.valid and verdict.reason.value == "foreign_object" and "IV.8(a)" in verdict.detail
