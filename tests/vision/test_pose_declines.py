"""The declines that keep a tipped or stacked die from being read flat with a value."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from vision.calibration import calibrate
from vision.dice_reader import DiceReader, ReaderSettings
from vision.layouts import layout_for
from vision.read_checks import (AT_WALL, AT_WALL_FLAT, FLAT_ALONE, HEAD_NOT_FLAT, LEANING_SILHOUETTE, STACK_SILHOUETTE,
                               STACK_SURE, SURELY_FLAT_ALONE, TOUCHING_FLAT, at_wall, not_surely_flat,
                               silhouette_ratio, stack_unsure)
from vision.reading import Die, Pose
from vision.pose import PoseContext
from vision.synthetic import render
from vision.synthetic_scenes import random_rig, random_scene

from .test_read_checks import flat_scene


def test_a_die_touching_another_is_read_only_when_the_pose_network_finds_it_flat():
    """Dice leaning on a neighbour were seen as touching and read (tune looks, seed 21: P(flat) 0.36 and
    0.74); dice truly touching flat had P(flat) >= 0.87 but for 1 in 100."""
    assert not_surely_flat(Pose.TOUCHING, TOUCHING_FLAT - 0.01, None)
    assert not not_surely_flat(Pose.TOUCHING, TOUCHING_FLAT, None)


def test_a_die_alone_larger_than_a_flat_die_is_read_only_when_surely_flat():
    """Tune looks, seeds 21-23: cocked dice read flat at P(flat) 0.49-0.73 (silhouette 0.85-1.14 of a flat
    die's), a cocked die against a wall at 0.76 (1.27) and a stacked die at 0.96 (1.28)."""
    assert not_surely_flat(Pose.FLAT, FLAT_ALONE - 0.01, None)
    assert not not_surely_flat(Pose.FLAT, FLAT_ALONE, None)
    big = LEANING_SILHOUETTE + 0.01
    assert not_surely_flat(Pose.FLAT, SURELY_FLAT_ALONE - 0.01, big)
    assert not not_surely_flat(Pose.FLAT, SURELY_FLAT_ALONE, big)
    assert not not_surely_flat(Pose.FLAT, 0.8, LEANING_SILHOUETTE)  # the silhouette of a flat die
    assert not not_surely_flat(Pose.FLAT, 0.8, None)  # not alone in its blob: the pose network decides
    assert not not_surely_flat(Pose.FLAT, None, big)  # no pose network (photos): nothing said here


def test_a_die_at_a_wall_is_read_only_when_the_pose_network_finds_it_flat_surely():
    """A cube tipped under 45 degrees is held only by something under or against its raised edge; a wall (or the
    dome's glass) holds it wedged, tipped towards the table's middle, where the camera over the middle sees its top
    face head-on (vision/synthetic_held.py). Tune looks, `probe_cocked_held` seed 9931: a banca francesa die wedged
    at a wall read flat at P(flat) 0.865, a cussec die at the glass at 0.762, both published; seed 9941: 0.882."""
    assert not_surely_flat(Pose.FLAT, AT_WALL_FLAT - 0.01, None, wall=True)
    assert not not_surely_flat(Pose.FLAT, AT_WALL_FLAT, None, wall=True)
    assert not_surely_flat(Pose.TOUCHING, AT_WALL_FLAT - 0.01, None, wall=True)  # stricter than TOUCHING_FLAT
    assert AT_WALL_FLAT > TOUCHING_FLAT > FLAT_ALONE
    big = LEANING_SILHOUETTE + 0.01
    assert not_surely_flat(Pose.FLAT, SURELY_FLAT_ALONE - 0.01, big, wall=True)  # the stricter need holds
    assert not not_surely_flat(Pose.COCKED, 0.1, None, wall=True)  # named tipped already: nothing said


def test_at_a_wall_is_within_reach_of_a_wall_segment_or_the_dome_s_glass():
    craps = SimpleNamespace(layout=layout_for("craps"))  # walls: y = 0, x = 700, y = 380; open at x = 0
    d = craps.layout.die_mm
    assert at_wall((350.0, AT_WALL * d - 0.1), craps) and at_wall((700.0 - AT_WALL * d + 0.1, 190.0), craps)
    assert not at_wall((350.0, AT_WALL * d + 0.1), craps) and not at_wall((350.0, 190.0), craps)
    assert not at_wall((5.0, 190.0), craps)  # the open edge towards the shooter holds nothing
    assert not at_wall(None, craps)  # no calibration: no table position
    cussec = SimpleNamespace(layout=layout_for("cussec"))
    (cx, cy), r = cussec.layout.dome
    dd = cussec.layout.die_mm
    assert at_wall((cx + r - AT_WALL * dd + 0.1, cy), cussec) and not at_wall((cx, cy), cussec)


def test_the_reader_declines_a_die_at_a_wall_the_pose_network_finds_only_fairly_flat(craps_rig):
    """geometry_overrules: the same die and P(flat) 0.85, read in the felt's middle, declined at a wall (and it says
    the P(flat) it needed, for frames that agree); with the setting off, read at the wall too."""
    reader, d, found, frame, fg = flat_scene(craps_rig)
    ctx = PoseContext(frame, fg, reader.calibration, reader.background)
    found.pose_probs = np.array([0.85, 0.05, 0.05, 0.03, 0.02], np.float32)
    middle = replace(d, table_xy=(450.0, 200.0))  # where flat_scene put it
    assert not at_wall(middle.table_xy, reader.calibration) and reader.geometry_overrules(middle, found, ctx).sure
    at = replace(d, table_xy=(450.0, 0.5 * reader.calibration.layout.die_mm))
    out = reader.geometry_overrules(at, found, ctx)
    assert not out.sure and out.needs_flat == AT_WALL_FLAT
    reader.settings = ReaderSettings(wall_flat=False)
    assert reader.geometry_overrules(at, found, ctx).sure


def test_the_reader_declines_a_touching_die_the_pose_network_doubts(craps_rig):
    reader, d, found, frame, fg = flat_scene(craps_rig)
    ctx = PoseContext(frame, fg, reader.calibration, reader.background)
    touching = Die(d.value, d.x, d.y, d.w, d.h, 0.99, Pose.TOUCHING, True, d.outline, d.table_xy)
    found.pose_probs = np.array([0.7, 0.01, 0.01, 0.08, 0.2], np.float32)
    assert not reader.geometry_overrules(touching, found, ctx).sure
    found.pose_probs = np.array([0.95, 0.01, 0.01, 0.01, 0.02], np.float32)
    assert reader.geometry_overrules(touching, found, ctx).sure


def test_a_die_declined_for_the_pose_networks_doubt_alone_says_the_p_flat_it_needed(craps_rig):
    """So that frames of dice at rest may read it on their mean P(flat) (`at_rest.agree`); a die declined
    for another reason, or not read before, says nothing."""
    reader, d, found, frame, fg = flat_scene(craps_rig)
    ctx = PoseContext(frame, fg, reader.calibration, reader.background)
    found.pose_probs = np.array([0.7, 0.1, 0.1, 0.05, 0.05], np.float32)
    out = reader.geometry_overrules(d, found, ctx)
    assert not out.sure and out.needs_flat == FLAT_ALONE
    touching = Die(d.value, d.x, d.y, d.w, d.h, 0.99, Pose.TOUCHING, True, d.outline, d.table_xy)
    assert reader.geometry_overrules(touching, found, ctx).needs_flat == TOUCHING_FLAT
    unread = Die(d.value, d.x, d.y, d.w, d.h, 0.99, Pose.FLAT, False, d.outline, d.table_xy)
    assert reader.geometry_overrules(unread, found, ctx).needs_flat == 0.0
    found.pose_probs = np.array([0.95, 0.01, 0.01, 0.01, 0.02], np.float32)
    assert reader.geometry_overrules(d, found, ctx).needs_flat == 0.0


def test_a_die_the_face_networks_pose_head_finds_plainly_not_flat_is_declined_whatever_the_pose_network_says(
        craps_rig):
    """Two networks disagree: the pose network sure enough the die is flat, the face network's own pose head
    (its narrower crop) plainly not. Tune seed 183 (cocked and stacked dice, banca francesa): a cocked die read
    flat in all three frames at pose-network P(flat) 0.87, face head 0.12; flat dice read under 0.3: 1 of 400
    (seed 183), 1 of 632 (seed 60). Declined outright (a dealer's read), not named tipped."""
    reader, d, found, frame, fg = flat_scene(craps_rig)
    ctx = PoseContext(frame, fg, reader.calibration, reader.background)
    found.pose_probs = np.array([0.99, 0.0, 0.01, 0.0, 0.0], np.float32)
    found.head_flat = HEAD_NOT_FLAT
    assert reader.geometry_overrules(d, found, ctx).sure
    found.head_flat = HEAD_NOT_FLAT - 0.01
    out = reader.geometry_overrules(d, found, ctx)
    assert not out.sure and out.lie is Pose.FLAT and out.needs_flat == 0.0
    touching = Die(d.value, d.x, d.y, d.w, d.h, 0.99, Pose.TOUCHING, True, d.outline, d.table_xy)
    assert not reader.geometry_overrules(touching, found, ctx).sure
    found.head_flat = None  # no face network pose head (a classifier without one): nothing said
    assert reader.geometry_overrules(d, found, ctx).sure


def test_a_die_the_geometry_names_tipped_stays_named_tipped_when_the_face_head_doubts_it_too(craps_rig,
                                                                                           monkeypatch):
    """The head's doubt declines only dice still called flat or touching: a die the silhouette and the pose
    network name cocked keeps that name (unseen seed 187: one cocked die was declined unnamed, before this order)."""
    reader, d, found, frame, fg = flat_scene(craps_rig)
    ctx = PoseContext(frame, fg, reader.calibration, reader.background)
    monkeypatch.setattr("vision.read_decisions.silhouette_ratio", lambda die, context: 1.5)  # too big for flat
    found.pose_probs = np.array([0.2, 0.7, 0.05, 0.03, 0.02], np.float32)
    found.head_flat = 0.05
    out = reader.geometry_overrules(d, found, ctx)
    assert out.lie is Pose.COCKED


def test_the_reader_keeps_the_face_heads_p_flat_beside_the_pose_networks(craps_rig, monkeypatch):
    """read(): each die's `head_flat` is what the face network's pose head said on the crop it was read on,
    kept when the pose network's probabilities replace the head's."""
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(7)
    frame, _ = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
    reader = DiceReader(cal, background=empty)
    seen = []
    judge = reader.geometry_overrules
    monkeypatch.setattr(reader, "geometry_overrules", lambda d, f, ctx: seen.append(f) or judge(d, f, ctx))
    assert len(reader.read(frame).values) == 2
    assert len(seen) == 2 and all(f.head_flat is not None and 0.0 <= f.head_flat <= 1.0 for f in seen)
    assert all(f.head_flat != float(f.pose_probs[0]) for f in seen)


def test_the_checks_after_the_pose_networks_doubt_still_decline_a_die_outright(craps_rig, monkeypatch):
    """read(): a die declined for the pose network's doubt still goes through the later checks (a lamp, a
    neighbour, the frame's edge: `doubt`) and its confidence's; any of them declines it outright."""
    rig, empty, cal = craps_rig
    rng = np.random.default_rng(7)
    frame, _ = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
    reader = DiceReader(cal, background=empty)
    monkeypatch.setattr(reader, "geometry_overrules", lambda d, f, ctx: reader.not_flat_enough(d, None))
    doubted = reader.read(frame).dice
    assert len(doubted) == 2 and all(not d.sure and d.needs_flat == FLAT_ALONE for d in doubted)
    assert all(d.declined == "not_surely_flat" for d in doubted)
    monkeypatch.setattr(reader, "doubt", lambda d, dice, ctx: "lamp")
    # declined outright: the reason that decided it replaces the doubt the frames could have lifted (DECLINED)
    assert all(not d.sure and d.needs_flat == 0.0 and d.declined == "lamp" for d in reader.read(frame).dice)


def test_a_die_named_stacked_unsurely_is_declined_when_its_silhouette_is_no_stacks():
    """Tune looks, seed 9221: of the dice the pose network named stacked, 36 were flat (mostly white dice), P(stacked)
    0.18-0.97; 21 of them, and 3 of 191 upper dice of stacks, were named at under 0.9 with a silhouette under 1.15
    times a flat die's. An upper die stands one edge higher: its sides and the lower die's widen the silhouette."""
    assert stack_unsure(STACK_SURE - 0.01, STACK_SILHOUETTE - 0.01)
    assert not stack_unsure(STACK_SURE, STACK_SILHOUETTE - 0.01)  # the network is sure: a stack
    assert not stack_unsure(STACK_SURE - 0.01, STACK_SILHOUETTE)  # as large as a stack
    assert not stack_unsure(0.5, None)  # not alone in its blob: the network decides


def test_a_die_the_pose_network_names_stacked_unsurely_is_the_dealers_when_its_silhouette_is_small(craps_rig,
                                                                                                   monkeypatch):
    """A rendered die named stacked at P 0.65: with the silhouette of a flat die it is declined with the lie `flat`,
    so the judge voids the throw `uncertain` (the dealer reads it) rather than `stacked`; with a stack's silhouette,
    or named stacked surely, it stays stacked. (The silhouette is set here: this rig's flat dice measure 1.14-1.25.)"""
    import vision.read_decisions as reader_module

    reader, d, found, frame, fg = flat_scene(craps_rig)
    ctx = PoseContext(frame, fg, reader.calibration, reader.background)
    stacked = Die(d.value, d.x, d.y, d.w, d.h, 0.99, Pose.STACKED, True, d.outline, d.table_xy)
    unsure = np.array([0.3, 0.01, 0.65, 0.02, 0.02], np.float32)
    sure = np.array([0.03, 0.01, 0.94, 0.01, 0.01], np.float32)
    for ratio, probs, lie in [(1.05, unsure, Pose.FLAT), (1.3, unsure, Pose.STACKED), (1.05, sure, Pose.STACKED)]:
        monkeypatch.setattr(reader_module, "silhouette_ratio", lambda die, c, r=ratio: r)
        found.pose_probs = probs
        out = reader.geometry_overrules(stacked, found, ctx)
        assert out.lie is lie and out.sure == (lie is Pose.STACKED) and out.needs_flat == 0.0


def test_rendered_stacks_named_stacked_unsurely_stay_named_when_their_silhouette_is_a_stacks(monkeypatch):
    """Rendered stacks of the tune looks, the pose network made unsure of each (P(stacked) 0.6): an upper die whose
    silhouette is a stack's (>= STACK_SILHOUETTE) stays named stacked."""
    rng = np.random.default_rng(23)
    rig = random_rig("banca-francesa", rng, split="tune")
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    reader = DiceReader(calibrate(empty, rig.layout, float(rig.camera.position[2])), background=empty)
    judge, ratios = reader.geometry_overrules, []

    def unsure(d, f, ctx):
        if d.lie is Pose.STACKED:
            f.pose_probs = np.array([0.3, 0.02, 0.6, 0.04, 0.04], np.float32)
            ratios.append(silhouette_ratio(d, ctx))
        return judge(d, f, ctx)

    monkeypatch.setattr(reader, "geometry_overrules", unsure)
    named = 0
    for _ in range(4):
        frame, _ = render(rig.scene(random_scene(rig, "stacked", rng), rng), rng)
        before = len(ratios)
        lies = [d.lie for d in reader.read(frame).dice]
        if len(ratios) > before and ratios[-1] is not None and ratios[-1] >= STACK_SILHOUETTE:
            assert Pose.STACKED in lies
            named += 1
    assert named >= 2, ratios


@pytest.mark.parametrize("game,kind,seed", [("banca-francesa", "cocked", 21), ("cussec", "cocked", 22),
                                            ("banca-francesa", "stacked", 23), ("cussec", "stacked", 24)])
def test_rendered_cocked_and_stacked_dice_of_the_tune_looks_are_never_read_flat(game, kind, seed):
    """Rendered tables of the tune looks (real OpenCV on a rendered frame): the tipped die, or the upper die
    of a stack, is named so or declined: never read flat with a value (issue 18)."""
    rng = np.random.default_rng(seed)
    rig = random_rig(game, rng, split="tune")
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    reader = DiceReader(calibrate(empty, rig.layout, float(rig.camera.position[2])), background=empty)
    for _ in range(3):
        frame, truth = render(rig.scene(random_scene(rig, kind, rng), rng), rng)
        reading = reader.read(frame)
        for t in truth:
            if t.pose != kind:
                continue
            near = [d for d in reading.dice if np.hypot(d.x - t.x, d.y - t.y) < 0.6 * reading.die_size_px]
            assert not any(d.is_read and d.lie in (Pose.FLAT, Pose.TOUCHING) for d in near), (t, near)
