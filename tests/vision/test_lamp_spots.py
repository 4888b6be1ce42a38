"""Where a table's lamps are mirrored in top faces, learned from the dice the lamp rules declined (vision/lamp_spots.py):
a fixed camera sees a lamp's image on the same pixels die after die, so a die lying over a place seen so is declined
even when the rules do not see the lamp on it (tune seed 9838, a table kept 100 throws: a red 4 read 5 at P 0.997
under a lamp the rules missed, a wrong result published before). A lamp the rules never see on any die is not
learned (docs/vision.md, twenty-first session)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

import vision.read_decisions as read_decisions
from vision.dice_reader import DiceReader
from vision.lamp_spots import MAX_SPOTS, SIGHTINGS, LampSpots, lamp_image
from vision.face_checks import face_patch, outline_angle
from vision.synthetic import render
from vision.synthetic_scenes import random_scene
from vision.synthetic_score import match

from .test_lamp_in_face import EDGE, FOUR, WHITE, BLACK_PIP, drawn_die

DIE = 20.0


def test_a_place_seen_on_two_dice_declines_a_die_whose_face_lies_over_it(caplog):
    spots = LampSpots(DIE)
    told = []
    spots.when_learned = lambda x, y: told.append((x, y))
    spots.saw(100.0, 100.0, (95.0, 98.0, 10.0))
    assert not spots.covers(100.0, 100.0, 0.0), "seen once: no die is declined yet"
    assert SIGHTINGS == 2 and told == []
    spots.saw(101.0, 99.0, (104.0, 103.0, 30.0))
    spots.saw(100.5, 100.5, (96.0, 104.0, 60.0))  # a third die: the place was learned already, nothing more to tell
    assert told == [(100.0, 100.0)]
    assert spots.covers(108.0, 92.0, 0.0)  # the place lies 8 px in along both edges of a 20 px face
    assert not spots.covers(112.0, 100.0, 0.0)  # 12 px along an edge: beside the face
    assert spots.covers(112.0, 100.0, 45.0)  # the same die turned 45 degrees: its corner reaches over the place
    assert spots.learned() == [(100.0, 100.0)]
    # The operator is told once, with what to do about it.
    said = [r.getMessage() for r in caplog.records if "lamp is mirrored" in r.getMessage()]
    assert len(said) == 1 and "(100, 100)" in said[0] and "polarise" in said[0]


def test_one_die_read_in_every_frame_it_rests_in_is_one_sighting():
    """A die the rules declined without a lamp on it (a glint) is read again in each frame of its throw: that is
    not a lamp seen on two dice, and declines no other die."""
    spots = LampSpots(DIE)
    for k in range(5):
        spots.saw(100.0 + 0.2 * k, 100.0, (95.0 + 0.2 * k, 98.0, 10.0 + 0.5 * k + 90.0 * (k % 2)))
    assert not spots.covers(100.0, 100.0, 0.0)
    assert spots.learned() == []
    spots.saw(100.0, 100.0, (95.5, 98.5, 25.0))  # another die, as close but turned otherwise: a second sighting
    assert spots.covers(100.0, 100.0, 0.0)


def test_places_kept_are_bounded_and_the_least_recently_seen_goes_first():
    spots = LampSpots(DIE)
    for k in range(MAX_SPOTS + 3):
        x = 30.0 * k
        spots.saw(x, 0.0, (x, 0.0, 0.0))
        spots.saw(x, 0.0, (x + 5.0, 0.0, 0.0))
    kept = spots.learned()
    assert len(kept) == MAX_SPOTS
    assert (0.0, 0.0) not in kept and (30.0 * (MAX_SPOTS + 2), 0.0) in kept
    for k in range(50):  # glints seen once each, anywhere: they push out one another, never a learned lamp
        spots.saw(1000.0 + 30.0 * k, 500.0, (1000.0 + 30.0 * k, 500.0, 0.0))
    assert spots.learned() == kept


def test_the_lamp_s_image_is_found_where_it_lies_on_the_face():
    """A white 4 turned 20 degrees, a lamp's image drawn off its middle: found there, in frame pixels."""
    frame, die = drawn_die(WHITE, BLACK_PIP, FOUR, lamp=False, value=4)
    cv2.ellipse(frame, (108, 94), (5, 3), 50, 0, 360, (255, 255, 255), -1, cv2.LINE_AA)
    patch = face_patch(frame, die, EDGE)
    at = lamp_image(patch.lum, patch.high, die.x, die.y, EDGE, outline_angle(die))
    assert at is not None and np.hypot(at[0] - 108.0, at[1] - 94.0) < 1.5, at


def test_the_reader_learns_the_table_s_lamps_and_declines_dice_over_them_the_rules_let_through(craps_rig,
                                                                                             monkeypatch):
    """Rendered: a glossy green craps table with three lamps, a die under one in every throw. Twelve throws read
    with the lamp rules: the places the reader learns are the lamps' images (each within 0.3 die edges of where the
    rig's lamp is mirrored in a top face). Then, the rules blinded (they see no lamp), later throws: a die under a
    lamp that a reader without the places reads is declined by the reader that learned them."""
    rig, empty, cal = craps_rig
    assert rig.lamp_spots and rig.look.style.gloss > 0
    rig = dataclasses.replace(rig, look=dataclasses.replace(rig.look, under_lamp=1.0))
    lamps = rig.camera.project(np.array([[x, y, rig.layout.die_mm] for x, y in rig.lamp_spots]))
    rng = np.random.default_rng(1)
    learning = DiceReader(cal, background=empty)
    for _ in range(12):
        frame, _ = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
        learning.read(frame)
    learned = learning.lamp_spots.learned()
    assert learned, "no lamp learned in twelve throws with a die under a lamp in each"
    for x, y in learned:
        assert np.hypot(*(lamps - (x, y)).T).min() < 0.3 * cal.die_px, (x, y, lamps)

    monkeypatch.setattr(read_decisions, "lamp_in_face", lambda *args, **kwargs: False)
    declined_by_places = 0
    without = DiceReader(cal, classifier=learning.classifier, pose_net=learning.pose_net, background=empty,
                         learn_lamps=False)
    for _ in range(20):
        frame, truth = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
        blind = without.read(frame)
        learned_reading = learning.read(frame)
        for (t, plain), (_, d) in zip(match(blind, truth, cal.die_px), match(learned_reading, truth, cal.die_px)):
            if t.glare and plain is not None and plain.is_read and d is not None:
                assert not d.is_read, "a die over a learned lamp place was read"
                declined_by_places += 1
    assert declined_by_places >= 1, "no die under a lamp was read by the blinded reader: nothing was shown"
