"""Scoring the reader on rendered tables (vision/synthetic_score.py): which reported die is which true die."""

from __future__ import annotations

import math

from vision.reading import Die, Pose, Reading
from vision.synthetic import TruthDie
from vision.synthetic_score import MATCH_REACH, SyntheticScore, add, match, reach
from vision.throw_judge import Verdict, VoidReason, void

DIE_PX = 50.0


def truth(pose: str, tilt: float) -> TruthDie:
    """A white 4 whose top face's centre is seen at (600, 400)."""
    return TruthDie(4, pose, 600.0, 400.0, (0.0, 0.0), "white", tilt, True)


def reading(*dice: Die) -> Reading:
    return Reading(tuple(dice), die_size_px=DIE_PX, image_size=(1280, 720), calibrated=True)


def test_a_die_lying_flat_is_matched_within_six_tenths_of_a_die_edge_of_its_face_centre():
    flat = truth("flat", 0.0)
    near = Die(4, 600.0 + 0.55 * DIE_PX, 400.0, DIE_PX, DIE_PX, 0.99)
    far = Die(4, 600.0 + 0.65 * DIE_PX, 400.0, DIE_PX, DIE_PX, 0.99)
    assert reach(flat) == MATCH_REACH
    assert match(reading(near), [flat], DIE_PX) == [(flat, near)]
    assert match(reading(far), [flat], DIE_PX) == [(flat, None)]


def test_a_cocked_die_is_matched_where_the_reader_centres_it_on_its_face_and_raised_side():
    """Tune seeds 60 and 62: cocked dice tipped 31 and 34 degrees, named cocked by the reader 0.67 and 0.64 die edges
    from their top faces' centres, were counted missed (not recognised) with a reach of 0.6 for every die."""
    cocked = truth("cocked", 31.0)
    named = Die(None, 600.0, 400.0 + 0.67 * DIE_PX, DIE_PX, DIE_PX, 0.4, Pose.COCKED, False)
    assert reach(cocked) == MATCH_REACH + 0.5 * math.sin(math.radians(31.0))
    assert match(reading(named), [cocked], DIE_PX) == [(cocked, named)]
    score = SyntheticScore()
    add(score, "craps", "cocked", [cocked], reading(named), void(VoidReason.UNCERTAIN, "a die cocked"), DIE_PX)
    assert score.poses == {("cocked", "named"): 1}
    # Beyond its reach a die is still not that die: a die a whole edge away is another.
    other = Die(4, 600.0 + 1.0 * DIE_PX, 400.0, DIE_PX, DIE_PX, 0.99)
    assert match(reading(other), [cocked], DIE_PX) == [(cocked, None)]


def test_a_tipped_die_seen_flat_is_never_read_flat_while_it_is_declined_and_read_flat_once_given_a_value():
    """Issue 18: a cocked die or a stacked pair "must be recognised as such (never read flat)". The score keeps both
    readings apart: `recognised` (named as not lying flat) and `never_read_flat` (given no value as a flat die). A
    stacked die seen flat and declined is not recognised but not read flat either; one given a value is read flat."""
    stacked = truth("stacked", 0.0)
    declined = Die(4, 600.0, 400.0, DIE_PX, DIE_PX, 0.97, Pose.FLAT, False, needs_flat=0.75)
    read = Die(4, 600.0, 400.0, DIE_PX, DIE_PX, 0.99, Pose.FLAT, True)
    named = Die(None, 600.0, 400.0, DIE_PX, DIE_PX, 0.5, Pose.STACKED, False)
    score = SyntheticScore()
    for die in (declined, read, named, None):
        add(score, "cussec", "stacked", [stacked], reading(*([die] if die else [])),
            void(VoidReason.STACKED, "a stacked die"), DIE_PX)
    rates = score.pose_rates()["stacked"]
    assert rates == {"dice": 4, "recognised": 0.25, "named": 0.25, "seen_flat": 2, "read_flat": 1,
                     "never_read_flat": 0.75, "missed": 1}
    assert score.pose_rates()["cocked"]["dice"] == 0


def test_wrong_results_on_felts_the_service_refuses_are_counted_apart():
    """`make bench` prints the wrong results on the tables the service runs beside those on felts it refuses
    (vision/felt_check.py): a wrong result on a refused felt is still a wrong result of the reader, counted in both."""
    flat = truth("flat", 0.0)
    die = Die(4, 600.0, 400.0, DIE_PX, DIE_PX, 0.99, Pose.FLAT, True)
    score = SyntheticScore()
    for kind, refused in (("valid", False), ("cocked", True), ("valid", True)):  # cussec voids a cocked die
        add(score, "cussec", kind, [flat], reading(die), Verdict(True, None, (4,), "read"), DIE_PX, felt_refused=refused)
    doc = score.as_json()
    assert (doc["valid_verdicts"], doc["wrong_results"]) == (3, 1)
    assert (doc["refused_valid"], doc["refused_wrong"]) == (2, 1)


def test_flat_dice_and_poses_on_the_tables_the_service_runs_leave_out_the_felts_it_refuses():
    """`make bench` prints flat dice right and cocked and stacked dice recognised on the tables the service runs too
    (`on_tables_run`), as it prints the wrong results: the whole figure counts every table, this one leaves out the
    tables whose felt the service refuses to start on (vision/felt_check.py)."""
    flat, cocked = truth("flat", 0.0), truth("cocked", 20.0)
    right = Die(4, 600.0, 400.0, DIE_PX, DIE_PX, 0.99, Pose.FLAT, True)
    wrong = Die(5, 600.0, 400.0, DIE_PX, DIE_PX, 0.99, Pose.FLAT, True)
    named = Die(None, 600.0, 400.0, DIE_PX, DIE_PX, 0.5, Pose.COCKED, False)
    seen_flat = Die(4, 600.0, 400.0, DIE_PX, DIE_PX, 0.9, Pose.FLAT, False, declined="not_surely_flat")
    score = SyntheticScore()
    for die, refused in ((right, False), (right, False), (wrong, False), (wrong, True), (wrong, True)):
        add(score, "craps", "valid", [flat], reading(die), void(VoidReason.UNCERTAIN, "-"), DIE_PX,
            felt_refused=refused)
    for die, refused in ((named, False), (seen_flat, True)):
        add(score, "cussec", "cocked", [cocked], reading(die), void(VoidReason.COCKED, "-"), DIE_PX,
            felt_refused=refused)
    doc = score.as_json()
    assert (doc["flat_dice"], doc["flat_accuracy"]) == (5, 0.4)
    assert doc["poses"]["cocked"]["recognised"] == 0.5
    run = doc["on_tables_run"]
    assert (run["flat_dice"], run["flat_accuracy"]) == (3, round(2 / 3, 5))
    assert run["poses"]["cocked"] == {"dice": 1, "recognised": 1.0, "named": 1.0, "seen_flat": 0, "missed": 0}
    assert run["poses"]["stacked"]["dice"] == 0


def test_flat_dice_declined_are_counted_by_why_and_only_flat_ones():
    """`make bench` prints where flat dice are declined (`Die.declined`): dice tipped in truth are not counted there."""
    flat, stacked = truth("flat", 0.0), truth("stacked", 0.0)
    score = SyntheticScore()
    for why in ("lamp", "confidence", "lamp", ""):
        die = Die(4, 600.0, 400.0, DIE_PX, DIE_PX, 0.9, Pose.FLAT, False, declined=why)
        add(score, "cussec", "valid", [flat], reading(die), void(VoidReason.UNCERTAIN, "not sure"), DIE_PX)
    doubted = Die(4, 600.0, 400.0, DIE_PX, DIE_PX, 0.9, Pose.FLAT, False, declined="not_surely_flat")
    add(score, "cussec", "stacked", [stacked], reading(doubted), void(VoidReason.UNCERTAIN, "not sure"), DIE_PX)
    assert score.as_json()["flat_declined_by"] == {"lamp": 2, "confidence": 1, "-": 1}
    assert score.declined == 5
