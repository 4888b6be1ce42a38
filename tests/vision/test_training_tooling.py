"""The training tooling that renders families of looks and judges pose networks on them (vision/training).

Torch is never needed here: the sets are rendered by the package and judged with ONNX Runtime.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from vision.pose_net import DEFAULT_POSE_WEIGHTS, POSES
from vision.synthetic_scenes import random_rig
from vision.training import judge_pose_family, make_synthetic_set
from vision.training.make_synthetic_set import look_names, wanted_rig


def test_no_look_filter_draws_the_rigs_random_rig_draws():
    """Without a filter the tool draws exactly one rig per rig from the same stream, so the sets of the
    recipes recorded in vision/training/README.md are made again as they were."""
    for game in ("craps", "banca-francesa", "cussec", "paikao"):
        a, b = np.random.default_rng(1234), np.random.default_rng(1234)
        for _ in range(5):
            assert pickle.dumps(wanted_rig(game, a, set(), set())) == pickle.dumps(random_rig(game, b))
        assert a.random() == b.random()


def test_a_family_held_out_is_never_drawn_and_one_asked_for_always_is():
    rng = np.random.default_rng(7)
    for _ in range(30):
        assert "white" not in look_names(wanted_rig("cussec", rng, {"white"}, set()).look)
        assert "walnut" in look_names(wanted_rig("banca-francesa", rng, set(), {"walnut"}).look)


def test_unknown_names_games_and_kinds_are_refused_by_name(tmp_path, capsys):
    for args, named in ((["--looks-without", "ivory"], "ivory"), (["--games", "roulette"], "roulette"),
                        (["--kinds", "flying"], "flying")):
        with pytest.raises(SystemExit) as exit_:
            make_synthetic_set.main(["--out", str(tmp_path / "x"), "--frames", "1", *args])
        assert exit_.value.code == 2 and named in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.mark.skipif(not DEFAULT_POSE_WEIGHTS.is_file(), reason="no committed pose network")
def test_a_rendered_family_is_judged_die_by_die(tmp_path, capsys):
    family = tmp_path / "family"
    assert make_synthetic_set.main(["--out", str(family), "--frames", "4", "--seed", "7200",
                                    "--games", "banca-francesa", "--kinds", "valid,cocked",
                                    "--looks-without", "white"]) == 0
    labels = sorted((family / "labels").glob("*.txt"))
    assert len(labels) == 4 and len(list((family / "labels").glob("*.die"))) == 4
    dice = sum(len(p.read_text().split("\n")) - 1 for p in labels)
    from vision.pose_net import PoseNet

    probs = judge_pose_family.flat_probabilities(family, PoseNet(DEFAULT_POSE_WEIGHTS))
    assert sorted(probs) == list(range(len(POSES)))
    seen = [p for ps in probs.values() for p in ps]
    assert len(seen) == dice >= 8 and all(0.0 <= p <= 1.0 for p in seen)
    assert judge_pose_family.main([str(family), str(DEFAULT_POSE_WEIGHTS)]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith(DEFAULT_POSE_WEIGHTS.name) and f"flat n={len(probs[0])}" in line


def test_nadir_cocked_frames_are_valid_throws_with_one_die_labelled_cocked(tmp_path):
    """`--nadir-cocked 1.0`: every frame a valid throw of the game's dice, one of them tipped towards the camera's
    foot and labelled cocked (pose 1), the rest flat (pose 0)."""
    out = tmp_path / "nadir"
    assert make_synthetic_set.main(["--out", str(out), "--frames", "3", "--seed", "7300",
                                    "--games", "banca-francesa", "--nadir-cocked", "1.0"]) == 0
    labels = sorted((out / "labels").glob("*.txt"))
    assert len(labels) == 3
    for path in labels:
        poses = sorted(int(line.split()[5]) for line in path.read_text().splitlines() if line.strip())
        assert poses == [0, 0, 1], path.name


def test_held_cocked_frames_are_valid_throws_with_one_die_labelled_cocked(tmp_path):
    """`--held-cocked 1.0`: every frame a valid throw of the game's dice, one of them cocked and held (on a chip or a
    coin, wedged, or tipped towards the camera's foot and held) and labelled cocked (pose 1); a die wedging it, or
    lying by a chip, is flat (pose 0)."""
    out = tmp_path / "held"
    assert make_synthetic_set.main(["--out", str(out), "--frames", "4", "--seed", "7310",
                                    "--games", "craps,cussec", "--held-cocked", "1.0"]) == 0
    labels = sorted((out / "labels").glob("*.txt"))
    assert len(labels) == 4
    for i, path in enumerate(labels):
        poses = sorted(int(line.split()[5]) for line in path.read_text().splitlines() if line.strip())
        assert poses == ([0, 1] if i % 2 == 0 else [0, 0, 1]), path.name


def hsv(bgr) -> tuple[int, int, int]:
    """One BGR colour as OpenCV's HSV, worked out here (not with the code under test's helper)."""
    import cv2

    return tuple(int(c) for c in cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0])


def test_random_dice_are_never_white_nor_of_the_felt_s_hue():
    """`--random-dice`: dice of any colour with light pips, or (`--dark-pips`) a light coloured body with dark
    pips, but never a white or ivory body, so white dice stay a family a network trained on them never saw; a
    body of the felt's own hue would hide the die."""
    from vision.training.make_synthetic_set import random_die_style

    rng = np.random.default_rng(5)
    felt = (60, 110, 25)  # the tune looks' green
    felt_hue = hsv(felt)[0]
    for dark in (False, True):
        hues = set()
        for _ in range(200):
            style = random_die_style(rng, felt, dark)
            h, s, v = hsv(style.body)
            assert (max(style.pips) < 60 and v >= 165) if dark else min(style.pips) >= 215, style
            assert s >= 80, style  # saturated: no white, ivory or grey body
            assert min(abs(h - felt_hue), 180 - abs(h - felt_hue)) >= 14, style
            assert 0.7 <= style.alpha <= 1.0 and 0.0 <= style.gloss <= 1.0
            hues.add(h // 30)
        assert len(hues) == 6  # every part of the colour wheel


def test_pale_dice_are_never_of_the_unseen_ivory_dice_s_tint():
    """`--pale-dice`: opaque off-white dice with dark pips of any faint tint, but never the unseen ivory dice's
    (vision/synthetic_looks.py DICE), so those stay a look no network was trained on."""
    from vision.synthetic_looks import DICE
    from vision.training.make_synthetic_set import UNSEEN_PALE_HUES, pale_die_style

    lo, hi = UNSEEN_PALE_HUES
    ivory_h, ivory_s, _ = hsv(DICE["unseen"]["ivory"].body)
    assert lo + 15 <= ivory_h <= hi - 15 and ivory_s > 20  # the range keeps the ivory family out
    rng = np.random.default_rng(11)
    hues = set()
    for _ in range(300):
        style = pale_die_style(rng)
        h, s, v = hsv(style.body)
        assert (s <= 12 or not lo <= h <= hi) and s <= 72 and 198 <= v <= 251, (h, s, v)
        assert max(style.pips) < 60 and style.alpha == 1.0 and style.ghost == 0.0, style
        hues.add(h // 30)
    assert len(hues) >= 5  # tints round the wheel, but for the ivory dice's


def test_random_felts_are_never_of_the_unseen_felts_families_nor_the_dice_s_hue():
    """`--random-felt`: felts of any colour for training, but never blue, purple or grey (the unseen looks' felts,
    vision/synthetic_looks.py FELTS), and never of the coloured dice's own hue (the die would vanish in it)."""
    from vision.synthetic_looks import DICE, FELTS
    from vision.training.make_synthetic_set import UNSEEN_FELT_HUES, random_felt

    lo, hi = UNSEEN_FELT_HUES
    for name, colour in FELTS["unseen"].items():  # the families the range keeps out
        h, s, _ = hsv(colour)
        assert s < 80 or lo + 20 <= h <= hi - 20, name
    rng = np.random.default_rng(7)
    for die in DICE["tune"].values():
        die_h, die_s, _ = hsv(die.body)
        hues = set()
        for _ in range(200):
            h, s, v = hsv(random_felt(rng, die.body))
            assert not lo <= h <= hi and s >= 78 and 48 <= v <= 192, (die.name, h, s, v)
            if die_s >= 60:
                assert min(abs(h - die_h), 180 - abs(h - die_h)) >= 14, (die.name, h)
            hues.add(h // 10)
        assert len(hues) >= 8, die.name  # most of the wheel left (the tune felts: three hues)


def test_averaging_two_networks_mixes_each_weight_and_refuses_networks_of_other_shapes():
    """`average_networks.py` (WiSE-FT, vision/training/README.md): each weight (1 - alpha) * base + alpha *
    tuned in the weights' own precision; a network with other weights, or an alpha outside 0-1, is refused."""
    from vision.training.average_networks import average_weights

    base = {"conv.weight": np.array([[1.0, -2.0]], np.float32), "conv.bias": np.array([0.5], np.float32)}
    tuned = {"conv.weight": np.array([[3.0, 2.0]], np.float32), "conv.bias": np.array([-0.5], np.float32)}
    mixed = average_weights(base, tuned, 0.75)
    assert mixed["conv.weight"].dtype == np.float32
    assert mixed["conv.weight"].tolist() == [[2.5, 1.0]] and mixed["conv.bias"].tolist() == [-0.25]
    assert average_weights(base, tuned, 0.0)["conv.weight"].tolist() == base["conv.weight"].tolist()
    with pytest.raises(ValueError, match="alpha 1.5"):
        average_weights(base, tuned, 1.5)
    with pytest.raises(ValueError, match="only in tuned"):
        average_weights(base, {**tuned, "head.weight": np.zeros(1, np.float32)}, 0.5)
    with pytest.raises(ValueError, match="conv.bias"):
        average_weights(base, {**tuned, "conv.bias": np.zeros(2, np.float32)}, 0.5)
