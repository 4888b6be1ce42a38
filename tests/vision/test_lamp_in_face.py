"""A lamp mirrored in a die's glossy top face: a spot that reads as a pip, or hides one (issue 18: 7 of 9 wrong
results published on another renderer's tables had a lamp in that die's face). The reader declines the die:
a light-pipped face with a bright spot much larger than its pips, or a face read 3 or 5 whose middle spot is
unlike its corner pips, or a dark-pipped face read 2 or 4 whose middle is not plain face, or a dark-pipped face washed
out where the pips a higher value has may hide (`lamp_in_face`), or any die read below the calibrated confidence
floor (a lamp over a dark pip greys it)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.calibration import calibrate
from vision.dice_reader import DiceReader, ReaderSettings, square_outline
from vision.face_classifier import DEFAULT_WEIGHTS, FaceClassifier
from vision.pose_net import PoseNet
from vision.face_checks import lamp_in_face
from vision.reading import Die, Pose
from vision.synthetic import render
from vision.synthetic_scenes import random_rig, random_scene
from vision.synthetic_score import match

EDGE = 40.0  # die edge in pixels
GRID = 0.27  # pip offset from the face centre, in die edges


def drawn_die(body, pips, value_pips, lamp: bool, angle: float = 20.0, value: int = 3,
              lamp_axes: tuple[int, int] = (9, 5)) -> tuple[np.ndarray, Die]:
    """A die face drawn square on green felt, turned by `angle`, with pips at grid offsets and, when
    `lamp`, a white ellipse (a lamp's mirror image) over its middle; the Die says it was read `value`."""
    frame = np.full((200, 200, 3), (40, 110, 30), np.uint8)
    x = y = 100.0
    outline = square_outline(x, y, EDGE, angle)
    cv2.fillConvexPoly(frame, np.round(np.array(outline) * 16).astype(np.int32), body, cv2.LINE_AA, shift=4)
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    for u, v in value_pips:
        px, py = x + EDGE * GRID * (u * c - v * s), y + EDGE * GRID * (u * s + v * c)
        cv2.circle(frame, (int(round(px * 16)), int(round(py * 16))), int(0.09 * EDGE * 16), pips, -1,
                   cv2.LINE_AA, shift=4)
    if lamp:
        cv2.ellipse(frame, (int(x), int(y)), lamp_axes, angle + 30, 0, 360, (255, 255, 255), -1, cv2.LINE_AA)
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)
    return frame, Die(value, x, y, EDGE, EDGE, 0.99, Pose.FLAT, True, outline, None)


RED, WHITE, WHITE_PIP, BLACK_PIP = (40, 36, 196), (232, 234, 236), (245, 245, 245), (25, 25, 25)
GREEN = (70, 140, 30)
TWO = ((-1, -1), (1, 1))
THREE = ((-1, -1), (0, 0), (1, 1))
FOUR = ((-1, -1), (-1, 1), (1, -1), (1, 1))
FIVE = FOUR + ((0, 0),)


def test_a_lamp_in_the_middle_of_a_red_two_is_seen():
    frame, die = drawn_die(RED, WHITE_PIP, TWO, lamp=True)
    assert lamp_in_face(frame, die, EDGE)


@pytest.mark.parametrize("pips", [TWO, THREE, ((-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0))])
def test_light_pips_alone_are_not_a_lamp(pips):
    frame, die = drawn_die(RED, WHITE_PIP, pips, lamp=False)
    assert not lamp_in_face(frame, die, EDGE)


def test_a_tube_lamp_the_size_of_a_pip_in_the_middle_of_a_green_four_read_five_is_seen():
    """No larger than a pip (the spot-size rule cannot see it), but longer than the corner pips: a lamp."""
    frame, die = drawn_die(GREEN, WHITE_PIP, FOUR, lamp=True, value=5, lamp_axes=(6, 2))
    assert lamp_in_face(frame, die, EDGE)


@pytest.mark.parametrize("value, pips", [(5, FIVE), (3, THREE)])
def test_a_middle_pip_like_its_corners_is_a_pip(value, pips):
    frame, die = drawn_die(GREEN, WHITE_PIP, pips, lamp=False, value=value)
    assert not lamp_in_face(frame, die, EDGE)


@pytest.mark.parametrize("value, pips", [(5, FOUR + ((0.3, 0.0),)), (3, TWO + ((0.0, -0.3),))])
def test_a_lamp_like_a_pip_but_off_the_middle_of_a_four_or_a_two_is_seen(value, pips):
    """A lamp's image as large and as bright as a pip, 0.08 die edges off the middle of a 4 or a 2 (what the
    spot-size and middle-unlike rules cannot see): a drilled middle pip lies midway between the corner pips."""
    frame, die = drawn_die(GREEN, WHITE_PIP, pips, lamp=False, value=value)
    assert lamp_in_face(frame, die, EDGE)


SIX = ((-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1))


def lamp_band(frame: np.ndarray, die: Die, angle: float = 20.0, length: float = 0.85) -> None:
    """A tube lamp's image: a white band 0.15 die edges wide (a tube 5 times as long as wide, as the unseen looks'
    longest, mirrored about 10 mm long) and `length` long through the face's middle. Half the face's middle or more
    under a lamp sets what `lamp_in_face` takes for the face's colour: not seen then (docs/vision.md)."""
    box = ((die.x, die.y), (0.15 * EDGE, length * EDGE), angle)
    cv2.fillConvexPoly(frame, np.round(cv2.boxPoints(box)).astype(np.int32), (255, 255, 255), cv2.LINE_AA)


def test_a_lamp_band_over_a_white_sixs_middle_pips_read_four_is_seen():
    """Unseen seed 439 throw 198: a tube lamp's image along an ivory 6's middle hid two pips; read 4 at P 0.996 and
    published. Drawn, the band is seen (its edges make the middle uneven, and the 6's side middles are lighter than
    the face); a 4's face is plain there."""
    frame, die = drawn_die(WHITE, BLACK_PIP, SIX, lamp=False, value=4)
    lamp_band(frame, die)
    assert lamp_in_face(frame, die, EDGE)
    plain, four = drawn_die(WHITE, BLACK_PIP, FOUR, lamp=False, value=4)
    assert not lamp_in_face(plain, four, EDGE)


def test_a_lamp_band_along_a_white_fives_diagonal_read_two_is_seen():
    """A band over a white 5's middle and two corner pips, read 2. (Unseen seed 449 has such a die read 2 at P 0.981
    under a wider band, over most of its middle: that one is not seen, docs/vision.md.)"""
    frame, die = drawn_die(WHITE, BLACK_PIP, FIVE, lamp=False, value=2)
    lamp_band(frame, die, angle=20.0 - 45.0, length=1.15)
    assert lamp_in_face(frame, die, EDGE)


def test_empty_places_lighter_than_the_face_are_a_lamp():
    """`empty_places_lit` alone, on a face patch's lightness: plain face 200 with pips at 50 (contrast 150). A 2's or
    a 4's middle, or a 4's two opposite side middles, lighter by more than EMPTY_LIT of the contrast: a lamp's image
    over pips it hides. One side middle alone is not: a lamp hiding one of a 6's middle pips leaves five pips, not a
    4's four."""
    from vision.face_checks import EMPTY_LIT, MIDDLE, SIDE_PAIRS, empty_places_lit

    face = np.full((64, 64), 200.0, np.float32)
    assert not empty_places_lit(face, 200.0, 50.0, 4) and not empty_places_lit(face, 200.0, 50.0, 2)
    lifted = 200.0 + 1.5 * EMPTY_LIT * 150.0
    middle = face.copy()
    middle[MIDDLE] = lifted
    assert empty_places_lit(middle, 200.0, 50.0, 2) and empty_places_lit(middle, 200.0, 50.0, 4)
    (top, bottom), _ = SIDE_PAIRS
    sides = face.copy()
    sides[top | bottom] = lifted
    assert empty_places_lit(sides, 200.0, 50.0, 4) and not empty_places_lit(sides, 200.0, 50.0, 2)
    one = face.copy()
    one[top] = lifted
    assert not empty_places_lit(one, 200.0, 50.0, 4)
    faint = face.copy()
    faint[top | bottom] = 200.0 + 0.5 * EMPTY_LIT * 150.0
    assert not empty_places_lit(faint, 200.0, 50.0, 4)


def test_a_lamp_washing_out_a_white_fours_other_diagonal_read_two_is_seen():
    """Unseen seed 751 throw 189 (fortieth session): an ivory 4 with a lamp's image over its other two corners and most
    of its face, read 2 at P 0.972. The lamp sets the face's colour (the patch's middle at the camera's ceiling), so
    `empty_places_lit` cannot see it; the two empty corners washed out to the ceiling can (`washed_where_pips_hide`).
    A plain white 2, and a 2 lit evenly short of the ceiling, are read."""
    frame, die = drawn_die(WHITE, BLACK_PIP, TWO, lamp=False, value=2)
    assert not lamp_in_face(frame, die, EDGE)
    frame, die = drawn_die(WHITE, BLACK_PIP, FOUR, lamp=False, value=2)
    lamp_band(frame, die, angle=20.0 + 45.0, length=1.2)
    wide = ((die.x, die.y), (0.55 * EDGE, 1.2 * EDGE), 20.0 + 45.0)  # most of the face: the lamp sets its colour
    cv2.fillConvexPoly(frame, np.round(cv2.boxPoints(wide)).astype(np.int32), (255, 255, 255), cv2.LINE_AA)
    assert lamp_in_face(frame, die, EDGE)
    bright, two = drawn_die((246, 247, 248), BLACK_PIP, TWO, lamp=False, value=2)
    assert not lamp_in_face(bright, two, EDGE)


def test_places_washed_out_where_a_higher_value_has_pips_are_a_lamp():
    """`washed_where_pips_hide` alone, on a face patch's lightness: plain face 230, pips 50. Washed out (WASHED) at
    every place of the pips a higher value has and this one lacks: a lamp may hide them. One corner of a diagonal, or
    one side middle, is not (no value has that pip alone more); a 5 or a 6 has no higher value with pips hidden."""
    from vision.face_checks import DIAGONALS, MIDDLE, SIDE_PAIRS, WASHED, washed_where_pips_hide

    def face(value_pips, washed=()):
        lum = np.full((64, 64), 230.0, np.float32)
        for place in washed:
            lum[place] = WASHED + 1.0
        for a, b in value_pips:
            lum[a] = lum[b] = 50.0
        return lum

    (d0a, d0b), (d1a, d1b) = DIAGONALS
    (top, bottom), (left, right) = SIDE_PAIRS
    two = [(d0a, d0b)]
    assert not washed_where_pips_hide(face(two), 2)
    assert washed_where_pips_hide(face(two, (d1a, d1b)), 2)  # a 4 (a 5, a 6) with its other diagonal hidden
    assert washed_where_pips_hide(face(two, (MIDDLE,)), 2)  # a 3 with its middle hidden
    assert not washed_where_pips_hide(face(two, (d1a,)), 2)
    assert washed_where_pips_hide(face(two, (d1a, d1b)), 3) and not washed_where_pips_hide(face(two, (MIDDLE,)), 3)
    assert washed_where_pips_hide(face([], (d1a, d1b)), 1) and not washed_where_pips_hide(face([], (d1a,)), 1)
    four = [(d0a, d0b), (d1a, d1b)]
    assert not washed_where_pips_hide(face(four), 4)
    assert washed_where_pips_hide(face(four, (MIDDLE,)), 4) and washed_where_pips_hide(face(four, (left, right)), 4)
    assert not washed_where_pips_hide(face(four, (top,)), 4)
    assert not washed_where_pips_hide(face(four, (top, bottom, MIDDLE)), 5)
    assert not washed_where_pips_hide(face(four, (MIDDLE,)), 6) and not washed_where_pips_hide(face(two), None)
    just_short = np.full((64, 64), WASHED - 1.0, np.float32)
    assert not washed_where_pips_hide(just_short, 1) and not washed_where_pips_hide(just_short, 4)


def test_dark_pips_on_a_white_face_are_left_to_the_confidence_floor():
    frame, die = drawn_die(WHITE, BLACK_PIP, THREE, lamp=True)
    assert not lamp_in_face(frame, die, EDGE)


@pytest.mark.parametrize("value, pips", [(2, TWO), (4, FOUR)])
def test_a_white_face_read_two_or_four_with_a_plain_middle_is_no_lamp(value, pips):
    frame, die = drawn_die(WHITE, BLACK_PIP, pips, lamp=False, value=value)
    assert not lamp_in_face(frame, die, EDGE)


@pytest.mark.parametrize("value, pips", [(4, FIVE), (2, THREE)])
def test_a_lamp_hiding_the_middle_pip_of_a_white_five_or_three_read_one_pip_short_is_seen(value, pips):
    """A lamp's image about the size of the pip, over the middle pip: the face reads one pip short (a 5 as 4, a 3 as
    2), but the middle of a real 2 or 4 is plain face, and this one is not: the pip's rim shows (`middle_plain`).
    (A lamp image well larger than the pip covers it evenly and is not seen this way: axes of 5 px and more here,
    the pip's radius 3.6 px. That is the rule's limit, docs/vision.md.)"""
    frame, die = drawn_die(WHITE, BLACK_PIP, pips, lamp=True, value=value, lamp_axes=(3, 3))
    assert lamp_in_face(frame, die, EDGE)


def lamp_throw(seed: int, throw: int):
    """Throw `throw` of rendered craps/banca/cussec/P'ai Kao tables of the tune looks where a die lands
    under a lamp every time (the study set of this check: tune looks, seeds 31-32). Earlier throws are
    rendered (not read) so that the random stream is the same."""
    rng = np.random.default_rng(seed)
    games = ["craps", "banca-francesa", "cussec", "paikao"]
    for i in range(throw + 1):
        game = games[i % 4]
        if i % 40 < 4:
            rig = random_rig(game, rng, split="tune")
            rig = dataclasses.replace(rig, look=dataclasses.replace(rig.look, under_lamp=1.0))
            empty, _ = render(rig.scene([], rng, clean=True), rng)
        frame, truth = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
    return rig, empty, frame, truth


def test_a_rendered_red_two_with_a_lamp_in_its_middle_is_declined_not_read_three():
    """Tune looks, seed 32, throw 16: a red 2 with a lamp mirrored in its middle was read 3 (P 0.84)."""
    rig, empty, frame, truth = lamp_throw(32, 16)
    cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
    reading = DiceReader(cal, background=empty).read(frame)
    pairs = match(reading, truth, reading.die_size_px)
    glared = [(t, d) for t, d in pairs if t.glare]
    assert glared and all(d is not None for _, d in glared)
    for t, d in glared:
        assert not d.is_read or d.value == t.value, (t, d)
    assert any(lamp_in_face(frame, d, reading.die_size_px) for _, d in glared)
    # The value found there is wrong (3): declining it is what keeps the result right.
    loose = DiceReader(cal, background=empty, settings=ReaderSettings(calibrated_confidence=0.0))
    loose_read = {(round(t.x), round(t.y)): d for t, d in match(loose.read(frame), truth, reading.die_size_px)}
    assert any(loose_read[(round(t.x), round(t.y))] is not None
               and loose_read[(round(t.x), round(t.y))].value != t.value for t, _ in glared)


@pytest.mark.parametrize("rule_left", ["unlike", "off_centre"])
def test_a_rendered_green_four_with_a_lamp_in_its_middle_is_declined_not_read_five(monkeypatch, rule_left):
    """Tune looks, seed 33 (a study set of this session, like 31-32), throw 287: a green 4 with a lamp
    mirrored in its middle, read 5 at P 0.98 — above the confidence floor, the lamp no larger than a pip.
    Either middle-pip rule alone declines it (the spot unlike the corner pips; the spot not midway between
    them, nineteenth session); without both the reader publishes the 5."""
    import vision.face_checks as face_checks

    rig, empty, frame, truth = lamp_throw(33, 287)
    cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
    reader = DiceReader(cal, background=empty)
    reading = reader.read(frame)
    glared = [(t, d) for t, d in match(reading, truth, reading.die_size_px) if t.glare]
    assert [t.value for t, _ in glared] == [4] and glared[0][1] is not None
    die = glared[0][1]
    assert die.value == 5 and not die.is_read and lamp_in_face(frame, die, reading.die_size_px)

    def unlike_off():
        monkeypatch.setattr(face_checks, "MIDDLE_AREA", (0.0, np.inf))
        monkeypatch.setattr(face_checks, "MIDDLE_PEAK", (0.0, np.inf))
        monkeypatch.setattr(face_checks, "MIDDLE_ELONGATION", np.inf)

    if rule_left == "off_centre":
        unlike_off()
    else:
        monkeypatch.setattr(face_checks, "MIDDLE_OFFSET", np.inf)
    alone = {t.value: d for t, d in match(reader.read(frame), truth, reading.die_size_px) if t.glare}
    assert alone[4] is not None and alone[4].value == 5 and not alone[4].is_read  # one rule is enough
    unlike_off()
    monkeypatch.setattr(face_checks, "MIDDLE_OFFSET", np.inf)
    again = {t.value: d for t, d in match(reader.read(frame), truth, reading.die_size_px) if t.glare}
    assert again[4].is_read and again[4].value == 5  # the wrong value the rules keep from being published


def test_a_rendered_white_five_with_a_lamp_on_its_middle_pip_is_declined_not_read_four(monkeypatch):
    """Tune looks, seed 33, throw 1: a white 5 whose middle pip a lamp hides, read 4 (P 0.86). The confidence floor
    declines it; so does the plain-middle rule alone (`middle_plain`), which also declines such dice read above the
    floor (unseen seed 401 throw 333: an ivory 5 read 4 at P 0.978, published before the rule), and the middle-dip
    rule alone (`middle_dipped`, twentieth session)."""
    import vision.face_checks as face_checks

    rig, empty, frame, truth = lamp_throw(33, 1)
    cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
    no_floor = DiceReader(cal, background=empty, settings=ReaderSettings(calibrated_confidence=0.0))
    reading = no_floor.read(frame)
    glared = [(t, d) for t, d in match(reading, truth, reading.die_size_px) if t.glare]
    assert [t.value for t, _ in glared] == [5] and glared[0][1] is not None
    die = glared[0][1]
    assert die.value == 4 and not die.is_read and lamp_in_face(frame, die, reading.die_size_px)
    monkeypatch.setattr(face_checks, "MIDDLE_PLAIN", np.inf)
    dipped = {t.value: d for t, d in match(no_floor.read(frame), truth, reading.die_size_px) if t.glare}
    assert dipped[5].value == 4 and not dipped[5].is_read  # the middle darker than its ring: `middle_dipped` too
    monkeypatch.setattr(face_checks, "MIDDLE_DIP", np.inf)
    again = {t.value: d for t, d in match(no_floor.read(frame), truth, reading.die_size_px) if t.glare}
    assert again[5].is_read and again[5].value == 4  # the wrong value the rules keep from being published


def test_an_ivory_six_under_a_lamp_read_wrong_is_declined(monkeypatch):
    """Unseen looks, seed 463 (its first use, nineteenth session, after the rule was written), throw 26: a cussec
    ivory 6 with a lamp mirrored in its face, read wrong at P >= 0.95 without `empty_places_lit` (the lamp's image
    lies, lighter than the face, over pips it hides); declined with it. Found with the float networks: the 8-bit ones
    the reader runs since the twenty-second session read it 4 at P 0.94, under the floor whether or not the rule sees
    the lamp, so what the rule keeps out is shown with the float ones."""
    import vision.face_checks as face_checks

    rng = np.random.default_rng(463)
    games = ["craps", "banca-francesa", "cussec", "paikao"]
    tables = {}
    for i in range(27):  # the scratch study's stream: a table per game, each new every 40 throws
        game = games[i % 4]
        if i % 40 < 4:
            rig = random_rig(game, rng, split="unseen")
            tables[game] = rig, render(rig.scene([], rng, clean=True), rng)[0]
        rig, empty = tables[game]
        frame, truth = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
    cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
    glared = [(t, d) for t, d in match(DiceReader(cal, background=empty).read(frame), truth, cal.die_px) if t.glare]
    assert [(t.value, t.style) for t, _ in glared] == [(6, "ivory")] and glared[0][1] is not None
    assert not glared[0][1].is_read  # the service's reader
    weights = DEFAULT_WEIGHTS.parent
    reader = DiceReader(cal, background=empty, classifier=FaceClassifier(weights / "face_net.onnx"),
                        pose_net=PoseNet(weights / "pose_net.onnx"))
    glared = [d for t, d in match(reader.read(frame), truth, cal.die_px) if t.glare]
    assert not glared[0].is_read
    monkeypatch.setattr(face_checks, "EMPTY_LIT", np.inf)
    again = [d for t, d in match(reader.read(frame), truth, cal.die_px) if t.glare]
    assert again[0].is_read and again[0].value != 6 and again[0].confidence >= 0.95  # what the rule keeps out


def test_a_lamp_over_a_white_three_s_middle_pip_that_still_greys_it_is_seen():
    """Tune seed 9995 throw 574: a white 3 under an oval lamp image read 2 at P 0.983 (a wrong cussec result). The lamp
    lies evenly over the pip (the middle passes `middle_plain`), but the pip still greys the middle: darker than the
    lamp-lit ring around it (`middle_dipped`). Drawn: a lamp 9 x 6 px, 90% over the face; a plain 2 is not seen."""
    from vision.face_checks import face_patch, middle_dipped, middle_plain

    frame, die = drawn_die(WHITE, BLACK_PIP, THREE, lamp=False, value=2)
    lamp = np.zeros(frame.shape[:2], np.float32)
    cv2.ellipse(lamp, (100, 100), (9, 6), 50, 0, 360, 1.0, -1, cv2.LINE_AA)
    lamp = 0.9 * cv2.GaussianBlur(lamp, (0, 0), 0.8)[..., None]
    frame = (frame * (1.0 - lamp) + 255.0 * lamp).astype(np.uint8)
    patch = face_patch(frame, die, EDGE)
    assert middle_plain(patch.lum, patch.colour, patch.low)  # the rule before does not see it
    assert middle_dipped(patch.lum, patch.low) and lamp_in_face(frame, die, EDGE)
    plain, two = drawn_die(WHITE, BLACK_PIP, TWO, lamp=False, value=2)
    patch = face_patch(plain, two, EDGE)
    assert not middle_dipped(patch.lum, patch.low) and not lamp_in_face(plain, two, EDGE)


def test_a_middle_darker_than_the_ring_around_it_is_dipped():
    """`middle_dipped` alone: face 200, pips 50 (contrast 150). A middle darker than its ring by more than MIDDLE_DIP
    of the contrast is a pip under a lamp; a middle as light or lighter (a face darkens towards its edges) is not."""
    from vision.face_checks import AROUND_MIDDLE, MIDDLE, MIDDLE_DIP, middle_dipped

    face = np.full((64, 64), 200.0, np.float32)
    assert not middle_dipped(face, 50.0)
    lit = face.copy()
    lit[AROUND_MIDDLE | MIDDLE] = 240.0
    assert not middle_dipped(lit, 50.0)
    lit[MIDDLE & ~AROUND_MIDDLE] = 240.0 - 2.5 * MIDDLE_DIP * 190.0
    assert middle_dipped(lit, 50.0)
    brighter = face.copy()
    brighter[MIDDLE] = 210.0
    assert not middle_dipped(brighter, 50.0)
