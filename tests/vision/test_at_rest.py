"""At rest: a 30 fps stream of rendered frames, dice rolling then still; agreement of several readings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.at_rest import AGREED_FLAT_MARGIN, AGREED_FLOOR, AtRestDetector, agree, grey_thumbnail
from vision.read_checks import FLAT_ALONE, SURELY_FLAT_ALONE
from vision.dice_reader import DiceReader, ReaderSettings
from vision.reading import Die, Pose, Reading
from vision.synthetic import SceneDie, render
from vision.synthetic_scenes import random_scene, throw_track
from vision.throw_judge import judge, rules_for
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


def test_frames_that_disagree_on_the_count_keep_the_dice_they_agree_on_and_never_make_a_valid_throw():
    craps = rules_for("craps")
    a = Reading((die(3, 100), die(5, 200)), die_size_px=25.0)
    # a die the later frame misses: uncertain; the one both read stays read; the throw is not valid
    out = agree([a, replace(a, dice=a.dice[:1])])
    assert [d.is_read for d in out.dice] == [True, False] and not judge(out, craps).valid
    # a find the first frame did not make (the upper die of a stack beside a die read flat in every frame):
    # kept aside once for the two frames that found it, and the throw is void `uncertain` for it
    upper = die(4, 110)
    seen_more = replace(a, dice=a.dice + (upper,))
    out = agree([a, seen_more, seen_more])
    assert out.values == (3, 5) and [d.x for d in out.unmatched] == [110] and not out.unmatched[0].is_read
    assert "1 dice found in later frames only" in out.notes
    verdict = judge(out, craps)
    assert not verdict.valid and verdict.reason.value == "uncertain" and "some frames" in verdict.detail
    # ... whatever lie that frame gave it
    assert judge(agree([a, replace(a, dice=a.dice + (replace(upper, lie=Pose.STACKED),))]), craps).reason.value \
        == "uncertain"
    # no die in the first frame is no throw, whatever a later frame found (throw_watch waits on)
    out = agree([replace(a, dice=()), a])
    assert out.dice == () and out.unmatched == ()


def short(value, x, confidence, needs=0.95):
    """A die that passed every check but its confidence (as a calibrated reader declines it)."""
    return Die(value, x, 100.0, 25.0, 25.0, confidence, Pose.FLAT, False, needs_confidence=needs)


def test_a_die_just_short_in_one_frame_is_read_on_the_frames_mean_confidence():
    sure = Reading((replace(die(3, 100), confidence=0.97), die(5, 200)), die_size_px=25.0)
    just_short = Reading((short(3, 101, 0.94), die(5, 200)), die_size_px=25.0)
    out = agree([sure, just_short, sure])
    assert out.values == (3, 5) and out.all_read
    assert out.dice[0].confidence == pytest.approx((0.97 + 0.94 + 0.97) / 3)
    assert "1 dice read on the frames' mean confidence or P(flat)" in out.notes
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


def doubted(value, x, p_flat, needs=FLAT_ALONE, confidence=0.99):
    """A die that passed every check but the pose network's doubt (as a calibrated reader declines it)."""
    return Die(value, x, 100.0, 25.0, 25.0, confidence, Pose.FLAT, False, p_flat=p_flat, needs_flat=needs)


def test_a_die_the_pose_network_doubts_in_one_frame_is_read_on_the_frames_mean_p_flat():
    sure = Reading((replace(die(3, 100), p_flat=0.9), die(5, 200)), die_size_px=25.0)
    doubt = Reading((doubted(3, 101, 0.72), die(5, 200)), die_size_px=25.0)
    out = agree([sure, doubt, sure])
    assert out.values == (3, 5) and out.dice[0].p_flat == pytest.approx((0.9 + 0.72 + 0.9) / 3)
    # the mean under what it needs, a frame far under it, or no P(flat) in a frame: declined, saying what it needs
    low = Reading((replace(die(3, 100), p_flat=0.76), die(5, 200)), die_size_px=25.0)
    out = agree([low, doubt, low])  # mean 0.747
    assert out.values == (5,) and out.dice[0].needs_flat == FLAT_ALONE
    far = Reading((doubted(3, 100, FLAT_ALONE - AGREED_FLAT_MARGIN - 0.01), die(5, 200)), die_size_px=25.0)
    assert agree([sure, far, sure]).values == (5,)
    assert agree([Reading((die(3, 100), die(5, 200)), die_size_px=25.0), doubt, sure]).values == (5,)
    # a frame that needed more (its silhouette larger than a flat die's) sets the mean's target
    big = Reading((doubted(3, 100, 0.95, needs=SURELY_FLAT_ALONE), die(5, 200)), die_size_px=25.0)
    assert agree([sure, big, sure]).values == (5,)  # mean 0.917 < 0.97
    # doubted and just short of its confidence: both means must reach what they need
    both = Reading((doubted(3, 100, 0.74, confidence=0.93), die(5, 200)), die_size_px=25.0)
    both = replace(both, dice=(replace(both.dice[0], needs_confidence=0.95), both.dice[1]))
    assert agree([sure, both, sure]).values == (3, 5)  # confidence mean 0.97, P(flat) mean 0.85
    assert agree([both, both, both]).values == (5,)  # P(flat) mean 0.74 and confidence mean 0.93: both short
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
