"""At rest: a 30 fps stream of rendered frames, dice rolling then still; agreement of several readings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.at_rest import AGREED_FLOOR, AtRestDetector, agree, grey_thumbnail
from vision.dice_reader import DiceReader, ReaderSettings
from vision.reading import Die, Pose, Reading
from vision.synthetic import SceneDie, render
from vision.synthetic_scenes import random_scene, throw_track
from vision.throw_judge import rules_for
from vision.throw_watch import ThrowWatcher


def rolling_then_still(rig, rng, moving=8, still=20):
    """Frames of a throw: the dice roll across the felt, then lie still (new sensor noise each frame)."""
    dice = random_scene(rig, "valid", rng)
    frames = []
    for row in throw_track(rig, dice, "valid", rng, moving):
        rolling = [SceneDie(np.array([x, y, d.centre[2]]), d.rotation, d.style, "moving", d.size_mm)
                   for (x, y), d in zip(row, dice)]
        frames.append(render(rig.scene(rolling, rng), rng)[0])
    scene = rig.scene(dice, rng)
    for _ in range(still):
        frames.append(render(scene, rng)[0])
    return frames, dice


def test_at_rest_only_after_the_window_of_still_frames(craps_rig):
    rig, _, _ = craps_rig
    rng = np.random.default_rng(1)
    frames, _ = rolling_then_still(rig, rng, moving=8, still=20)
    detector = AtRestDetector(window=10)
    said = [detector.update(f) for f in frames]
    assert not any(said[:8 + 9]), "at rest before ten still frames"
    assert all(said[8 + 10:]), "not at rest after ten still frames"


def test_motion_anywhere_in_the_region_restarts_the_window(craps_rig):
    rig, empty, _ = craps_rig
    detector = AtRestDetector(window=3)
    for _ in range(5):
        assert detector.update(empty) is False or detector.still >= 3
    assert detector.at_rest
    moved = empty.copy()
    moved[300:340, 600:640] = 255
    assert detector.update(moved) is False
    assert detector.still == 0


def test_the_region_s_thumbnail_box_holds_exactly_the_whole_thumbnail_s_pixels(craps_rig):
    """Only the part of the frame under the table region is shrunk (the cheap path): bit for bit what
    shrinking the whole frame gives there, so the detector decides exactly as before."""
    rig, empty, cal = craps_rig
    frames, _ = rolling_then_still(rig, np.random.default_rng(3), moving=4, still=2)
    region = cal.search_mask(*cal.image_size, 0.25)
    boxed = AtRestDetector(window=3, region=region)
    assert boxed.box is not None and boxed.box != (0, 0, 160, 90)
    x0, y0, x1, y1 = boxed.box
    for frame in frames:
        whole, _ = grey_thumbnail(frame, (160, 90), None)
        part, box = grey_thumbnail(frame, (160, 90), boxed.box)
        assert box == boxed.box and np.array_equal(part, whole[y0:y1, x0:x1])
    whole_frame = AtRestDetector(window=3, region=region)
    whole_frame.box = None
    for frame in frames:
        assert boxed.update(frame) == whole_frame.update(frame) and boxed.last_change == whole_frame.last_change


def test_window_must_be_positive():
    with pytest.raises(ValueError):
        AtRestDetector(window=0)


def die(value, x, lie=Pose.FLAT, sure=True):
    return Die(value, x, 100.0, 25.0, 25.0, 0.99, lie, sure)


def test_agreeing_frames_keep_the_reads():
    r = Reading((die(3, 100), die(5, 200)), die_size_px=25.0)
    out = agree([r, r, r])
    assert out.values == (3, 5) and out.all_read


def test_a_die_read_differently_in_one_frame_becomes_uncertain():
    a = Reading((die(3, 100), die(5, 200)), die_size_px=25.0)
    b = Reading((die(3, 101), die(6, 200)), die_size_px=25.0)
    out = agree([a, a, b])
    assert [d.pose for d in out.dice] == [Pose.FLAT, Pose.UNCERTAIN]
    assert out.values == (3,)


def test_frames_that_disagree_on_the_count_make_every_die_uncertain():
    a = Reading((die(3, 100), die(5, 200)), die_size_px=25.0)
    b = replace(a, dice=a.dice[:1])
    out = agree([a, b])
    assert not any(d.is_read for d in out.dice)


def short(value, x, confidence, needs=0.95):
    """A die that passed every check but its confidence (as a calibrated reader declines it)."""
    return Die(value, x, 100.0, 25.0, 25.0, confidence, Pose.FLAT, False, needs_confidence=needs)


def test_a_die_just_short_in_one_frame_is_read_on_the_frames_mean_confidence():
    sure = Reading((replace(die(3, 100), confidence=0.97), die(5, 200)), die_size_px=25.0)
    just_short = Reading((short(3, 101, 0.94), die(5, 200)), die_size_px=25.0)
    out = agree([sure, just_short, sure])
    assert out.values == (3, 5) and out.all_read
    assert out.dice[0].confidence == pytest.approx((0.97 + 0.94 + 0.97) / 3)
    assert "1 dice read on the frames' mean confidence" in out.notes
    # short in every frame, or the mean under what the die needs: still declined, still saying what it needs
    out = agree([just_short, just_short, sure])
    assert out.values == (5,) and out.dice[0].needs_confidence == 0.95
    assert agree([just_short] * 3).values == (5,)


def test_the_mean_never_reads_a_die_a_frame_declined_for_another_reason_or_read_far_less_surely():
    sure = Reading((die(3, 100),), die_size_px=25.0)
    for other in (Die(3, 100.0, 100.0, 25.0, 25.0, 0.99, Pose.FLAT, False),  # a lamp, its pose, a neighbour
                  Die(3, 100.0, 100.0, 25.0, 25.0, 0.99, Pose.COCKED, True),  # another lie
                  short(4, 100, 0.94),  # another value
                  short(3, 100, AGREED_FLOOR - 0.01)):  # much less sure than the others
        out = agree([sure, Reading((other,), die_size_px=25.0), sure])
        assert out.values == () and not out.dice[0].is_read, other


def test_a_touching_die_needs_its_own_higher_mean():
    one = Reading((replace(short(3, 100, 0.96, needs=0.97), lie=Pose.TOUCHING),), die_size_px=25.0)
    assert agree([one, one, one]).values == ()
    sure = Reading((Die(3, 100.0, 100.0, 25.0, 25.0, 0.99, Pose.TOUCHING, True),), die_size_px=25.0)
    assert agree([sure, one, sure]).values == (3,)  # mean 0.98


def test_a_calibrated_reader_says_which_dice_it_declined_for_their_confidence_alone(craps_rig):
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(7)
    frame, _ = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
    usual = DiceReader(cal, background=empty).read(frame)
    assert usual.all_read and len(usual.dice) == 2
    assert all(d.needs_confidence == 0.0 for d in usual.dice)
    strict = DiceReader(cal, background=empty, settings=ReaderSettings(calibrated_confidence=1.0))
    declined = strict.read(frame)
    assert [d.value for d in declined.dice] == [d.value for d in usual.dice]
    assert not any(d.is_read for d in declined.dice)
    assert [d.needs_confidence for d in declined.dice] == [1.0, 1.0]
    assert agree([declined, declined, declined]).values == ()  # no mean reaches 1.0


def test_watcher_reads_once_the_dice_rest_and_judges_the_throw(craps_rig):
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(5)
    frames, dice = rolling_then_still(rig, rng, moving=6, still=14)
    watcher = ThrowWatcher(DiceReader(cal, background=empty), rules_for("craps"),
                           detector=AtRestDetector(window=8), reads=3)
    outcomes = [o for o in (watcher.feed(f) for f in frames) if o is not None]
    assert len(outcomes) == 1
    outcome = outcomes[0]
    assert outcome.frames_read == 3 and outcome.track_frames >= 5
    assert outcome.verdict.valid, outcome.verdict.detail
    assert sorted(outcome.verdict.values) == sorted(d.top_value for d in dice)
