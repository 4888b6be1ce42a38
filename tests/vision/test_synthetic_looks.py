"""The renderer's looks and what they draw: two disjoint splits, pips showing through, lamps in faces, walls."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from vision.die_geometry import FACE_NORMALS
from vision.synthetic import render
from vision.synthetic_dice import FACE_TEX, PIP_STEP, face_texture, to_tex
from vision.synthetic_looks import (CASINO_DICE, DICE, FELTS, FONTS, LIGHT_AZIMUTHS, RAILS, SPLITS, WORDS,
                                    random_look)
from vision.synthetic_scenes import cocked_die, random_rig, random_scene, wall_places


@pytest.mark.parametrize("families", [FELTS, RAILS, DICE, FONTS, WORDS, CASINO_DICE])
def test_no_family_of_a_look_is_in_both_splits(families):
    tune, unseen = (set(families[s]) for s in SPLITS)
    assert tune and unseen and not tune & unseen


def test_the_splits_light_the_table_from_different_directions():
    def covered(split):
        return {a for lo, hi in LIGHT_AZIMUTHS[split] for a in range(int(lo), int(hi))}
    assert not covered("tune") & covered("unseen") and len(covered("tune") | covered("unseen")) == 360


@pytest.mark.parametrize("split", SPLITS)
def test_a_look_draws_only_from_its_split(split):
    rng = np.random.default_rng(1)
    for game in ("craps", "banca-francesa", "cussec"):
        for _ in range(10):
            look = random_look(split, game, rng)
            assert look.split == split and look.felt_name in FELTS[split] and look.style.name in DICE[split]
            assert game != "craps" or look.style.name in CASINO_DICE[split]


def test_an_unknown_split_is_refused():
    with pytest.raises(ValueError, match="unknown look split"):
        random_look("train", "craps", np.random.default_rng(0))


def test_a_translucent_die_shows_the_opposite_face_pips_faintly():
    """Face 2 of a red casino die: the 5 on the bottom shows through at its middle pip (where the 2 has none);
    an opaque die shows nothing there."""
    red, white = DICE["tune"]["red"], DICE["tune"]["white"]
    middle = int(round(to_tex(0.0)))
    between = int(round(to_tex(PIP_STEP * 0.5)))  # neither a pip of the 2 nor of the 5
    tex, _ = face_texture(red, 2)
    body = tex[between, between].mean()
    assert tex[middle, middle].mean() > body + 25  # a ghost of the 5's middle pip, lighter than the body
    assert tex[middle, middle].mean() < tex[int(round(to_tex(-PIP_STEP))), int(round(to_tex(-PIP_STEP)))].mean() - 40
    tex, _ = face_texture(white, 2)
    assert abs(tex[middle, middle].mean() - tex[between, between].mean()) < 3


def test_rounded_dice_have_clear_corners():
    tex, alpha = face_texture(dataclasses.replace(DICE["tune"]["white"], rounding=0.15), 1)
    assert alpha[0, 0] == 0.0 and alpha[FACE_TEX // 2, 0] > 0.9


def test_a_die_under_a_lamp_has_the_lamp_in_its_top_face():
    rng = np.random.default_rng(4)
    rig = random_rig("craps", rng)
    rig = dataclasses.replace(rig, look=dataclasses.replace(rig.look, under_lamp=1.0,
                                                             style=dataclasses.replace(rig.look.style, gloss=1.0)))
    glared = 0
    for _ in range(20):
        frame, truth = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
        for t in truth:
            if t.glare:
                glared += 1
                patch = frame[int(t.y) - 8:int(t.y) + 9, int(t.x) - 8:int(t.x) + 9]
                assert patch.min(axis=2).max() > 200  # white, where the red body and white pips never are both
    assert glared >= 8


@pytest.mark.parametrize("game", ["craps", "banca-francesa", "cussec"])
def test_a_die_cocked_against_a_wall_touches_it_and_leans_towards_it(game):
    rng = np.random.default_rng(6)
    rig = random_rig(game, rng)
    leaning = 0
    for _ in range(30):
        die, on_wall = cocked_die(rig, 100.0, 100.0, rng, (15.0, 40.0))
        assert 15.0 <= die.tilt_deg <= 40.0 + 1e-6 and die.corners()[:, 2].min() == pytest.approx(0.0, abs=1e-6)
        if not on_wall:
            continue
        leaning += 1
        c = die.corners()
        if rig.layout.dome:
            (cx, cy), r = rig.layout.dome
            assert np.hypot(c[:, 0] - cx, c[:, 1] - cy).max() == pytest.approx(r, abs=0.5)
        else:
            w, h = rig.layout.felt_mm
            gaps = [c[:, 1].min(), w - c[:, 0].max(), h - c[:, 1].max()] + ([c[:, 0].min()] if game != "craps" else [])
            assert min(gaps) == pytest.approx(0.0, abs=1e-6)
    assert leaning >= 8 and wall_places(rig)


def test_a_stacked_die_rests_on_the_lower_one_and_may_be_nearly_aligned():
    rng = np.random.default_rng(12)
    rig = random_rig("banca-francesa", rng)
    turns = []
    for _ in range(40):
        lower, upper = random_scene(rig, "stacked", rng)[:2]
        d = rig.layout.die_mm
        assert upper.centre[2] == pytest.approx(lower.centre[2] + d)
        assert math.hypot(*(upper.centre[:2] - lower.centre[:2])) <= 0.3 * d + 1e-9
        turns.append(abs((yaw(upper.rotation) - yaw(lower.rotation) + 45) % 90 - 45))
    assert min(turns) < 10 and max(turns) > 30


def yaw(rotation: np.ndarray) -> float:
    """The turn (degrees) of a die lying flat: the direction of one of its horizontal edges."""
    axis = next(rotation[:, k] for k in range(3) if abs(rotation[2, k]) < 1e-6)
    return math.degrees(math.atan2(axis[1], axis[0]))


def test_the_hidden_face_sums_to_seven_with_the_top():
    for v, n in FACE_NORMALS.items():
        assert sum(w for w, m in FACE_NORMALS.items() if m == tuple(-x for x in n)) == 7 - v
