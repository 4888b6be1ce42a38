"""Why a die is not read (`Die.declined`): named by the first check that declined it, kept through the frames'
agreement, and told in the verdict's words, the evidence's JSON and the bench's tallies."""

from __future__ import annotations

import inspect
import re
from dataclasses import replace

import numpy as np
import pytest

from vision.at_rest import agree, agreed_die
from vision.dice_reader import DiceReader
from vision.reading import DECLINED, Die, Pose, Reading
from vision.synthetic import render
from vision.synthetic_scenes import random_scene
from vision.throw_judge import judge, rules_for

CRAPS = rules_for("craps")


def die(value, x, sure=True, declined="", confidence=0.99, **kw):
    return Die(value, x, 100.0, 25.0, 25.0, confidence, Pose.FLAT, sure, declined=declined, **kw)


def test_the_verdict_tells_the_dealer_why_a_die_was_not_read():
    for why, words in DECLINED.items():
        verdict = judge(Reading((die(3, 100), die(5, 200, sure=False, declined=why)), die_size_px=25.0), CRAPS)
        assert not verdict.valid and verdict.reason.value == "uncertain"
        assert verdict.detail == f"die at (200, 100) px: the reader is not sure of its value ({words})"
    # a reason the reader does not give (a reading from elsewhere) is left out, not shown raw
    verdict = judge(Reading((die(3, 100), die(5, 200, sure=False, declined="<b>")), die_size_px=25.0), CRAPS)
    assert verdict.detail == "die at (200, 100) px: the reader is not sure of its value"


def test_the_evidence_json_says_why_a_die_was_not_read_and_nothing_for_a_die_read():
    assert die(5, 200, sure=False, declined="lamp").as_json()["declined"] == "lamp"
    assert "declined" not in die(5, 200).as_json()
    assert "declined" not in die(5, 200, sure=False).as_json()  # nothing said: nothing made up


def test_the_frames_agreement_keeps_the_reason_or_clears_it_when_they_read_the_die():
    sure = Reading((die(3, 100, confidence=0.97), die(5, 200)), die_size_px=25.0)
    short = Reading((die(3, 100, sure=False, declined="confidence", confidence=0.94, needs_confidence=0.95),
                     die(5, 200)), die_size_px=25.0)
    read = agree([sure, short, sure])  # mean 0.96 >= 0.95: read on the mean
    assert read.dice[0].is_read and read.dice[0].declined == ""
    low = Reading((die(3, 100, confidence=0.95), die(5, 200)), die_size_px=25.0)
    out = agree([low, short, low])  # mean 0.947: the frame's reason stands
    assert not out.dice[0].is_read and out.dice[0].declined == "confidence"
    lamp = Reading((die(3, 100, sure=False, declined="lamp"), die(5, 200)), die_size_px=25.0)
    out = agree([sure, lamp, sure])  # read in some frames, declined outright in another
    assert not out.dice[0].is_read and out.dice[0].declined == "frames_disagree"
    assert agree([lamp, sure, sure]).dice[0].declined == "lamp"  # the first frame's own reason
    later = Reading((die(3, 100), die(5, 200), die(2, 300)), die_size_px=25.0)
    out = agree([sure, later])
    assert [d.declined for d in out.unmatched] == ["later_frames_only"]


def test_the_confidence_check_names_itself_only_when_nothing_declined_the_die_before(craps_rig):
    reader = DiceReader(craps_rig[2], background=craps_rig[1])
    touching = replace(die(2, 100.0, confidence=0.95), lie=Pose.TOUCHING)
    assert reader.confident(touching).declined == "confidence"
    doubted = replace(touching, sure=False, needs_flat=0.8, declined="not_surely_flat")
    assert reader.confident(doubted).declined == "not_surely_flat"


@pytest.mark.parametrize("kind", ["valid", "cocked", "stacked", "touching", "overlapping"])
def test_every_die_a_calibrated_reader_declines_on_rendered_throws_says_why(kind, craps_rig):
    """The service's reader (calibrated, against the empty table) on rendered throws of each kind: a die read says
    nothing, a die with a value it did not read says a reason the verdict has words for; a die it names tipped says
    it does not lie flat."""
    rig, empty, cal = craps_rig
    reader = DiceReader(cal, background=empty)
    rng = np.random.default_rng(11)
    reasons = []
    for _ in range(3):
        frame, _ = render(rig.scene(random_scene(rig, kind, rng), rng), rng)
        for d in reader.read(frame).dice:
            if d.is_read:
                assert d.declined == ""
            elif d.value is not None:
                assert d.declined in DECLINED, d
                reasons.append(d.declined)
            if d.lie in (Pose.COCKED, Pose.STACKED, Pose.OVERLAPPING) and d.value is not None:
                assert d.declined == "not_flat" or not d.sure
    if kind in ("cocked", "stacked", "overlapping"):
        assert reasons, "a throw of dice not lying flat declined none of them"


def test_every_reason_the_reader_gives_has_words_for_the_dealer():
    """The reasons written in the reader and the frames' agreement are DECLINED's keys, every one of them."""
    source = "".join(inspect.getsource(f) for f in (DiceReader.read, DiceReader.doubt, DiceReader.confident,
                                                     DiceReader.geometry_overrules, DiceReader.lie_by_geometry,
                                                     DiceReader.not_flat_enough, DiceReader.blurred_die, agree,
                                                     agreed_die))
    given = set(re.findall(r'declined=(?:d\.declined or )?"([a-z_]+)"', source))
    given |= set(re.findall(r'(?:self\.decline\(.*?|return |why or |else )"([a-z_]+)"', source))
    assert given - set(DECLINED) == set()
    assert {"confidence", "lamp", "lamp_spot", "not_flat", "not_surely_flat", "too_big_for_flat", "no_value",
            "settled_not_flat", "not_a_die_alone", "frames_disagree", "later_frames_only", "blurred"} <= given


def test_the_verdict_carries_the_reason_as_a_key_for_the_back_office():
    verdict = judge(Reading((die(3, 100), die(5, 200, sure=False, declined="lamp")), die_size_px=25.0), CRAPS)
    assert verdict.declined == "lamp" and verdict.as_json()["declined"] == "lamp"
    other = judge(Reading((die(3, 100), die(5, 200, sure=False, declined="<b>")), die_size_px=25.0), CRAPS)
    assert other.declined == "" and "declined" not in other.as_json()
    assert judge(Reading((die(3, 100), die(5, 200)), die_size_px=25.0), CRAPS).declined == ""
