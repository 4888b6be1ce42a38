"""Write rendered table frames with YOLO labels, to train the face classifier on casino dice too.

Output: OUT/images/NAME.png, OUT/labels/NAME.txt (class cx cy w h pose, class 0-5 = faces 1-6, cocked
dice labelled with their most exposed face, pose an index into POSES; dice hidden under another are
not labelled) and
OUT/labels/NAME.die (the die edge in pixels from the calibration, as the reader will use, then the
camera's nadir x, y and focal length in pixels: the pose network's `View`).
The seeds used here (1000+) never overlap the evaluation seeds (0-99). Tables take only the `tune`
looks (vision/synthetic_looks.py): the `unseen` looks are never rendered for training. `--random-dice`
(`--dark-pips`, `--pale-dice`) and `--random-felt` widen them with dice and felts of random colours, never of the
unseen looks' families. `--nadir-cocked` renders a share of the frames as a valid throw with one die tipped
towards the camera's foot by about its view angle (`valid_with_one_tipped_to_nadir`), the cocked die hardest to
tell from flat. `--lean` leans each table's camera off straight down (`camera_leaning`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import calibrate
from vision.pose_net import View
from vision.synthetic import render
from vision.synthetic_held import chip_beside, cocked_held, tipped_to_nadir_held
from vision.synthetic_looks import DICE, FELTS, RAILS, DieStyle
from vision.synthetic_scenes import camera_leaning, random_rig, random_scene, valid_with_one_tipped_to_nadir

KINDS = ("valid", "not_past_middle", "cocked", "cocked", "cocked", "touching", "touching", "overlapping", "overlapping",
         "stacked", "stacked", "stacked", "off_table", "at_wall")
DEFAULT_KINDS = sorted(set(KINDS) - {"at_wall"})  # the mix before dice at walls: old recipes render as before
POSES = {"flat": 0, "touching": 0, "off_table": 0, "cocked": 1, "stacked": 2, "overlapping": 3, "overlapped": 4}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                    help="comma-separated kinds of throw to render (default: the usual mix)")
    ap.add_argument("--cocked-tilt", default="15,40", help="degrees LO,HI a cocked die is tipped by")
    ap.add_argument("--under-lamp", type=float, help="share of throws with a die where a lamp is mirrored "
                    "(default: each look's own, 0.2-0.4)")
    ap.add_argument("--looks-without", default="", help="comma-separated felt, rail or dice names (tune looks) "
                    "never rendered: to hold a family of looks out of training and judge on it")
    ap.add_argument("--games", default="craps,banca-francesa,cussec,paikao", help="tables to render, in turn "
                    "(craps tables have casino dice only: no white ones)")
    ap.add_argument("--looks-with", default="", help="comma-separated names: only looks with one of them")
    ap.add_argument("--random-dice", type=float, default=0.0, help="share of rigs whose dice get a random colour "
                    "(`random_die_style`; never a white or ivory body, so white dice stay a family held out)")
    ap.add_argument("--random-felt", type=float, default=0.0, help="share of rigs whose felt gets a random colour "
                    "(`random_felt`: never of the unseen felts' families, blue, purple or grey, nor the dice's hue)")
    ap.add_argument("--dark-pips", type=float, default=0.0, help="share of the random dice with a light coloured "
                    "body and dark pips (the rest: light pips)")
    ap.add_argument("--pale-dice", type=float, default=0.0, help="share of the random dice with a pale, faintly "
                    "tinted body and dark pips (`pale_die_style`: never of the unseen ivory dice's tint)")
    ap.add_argument("--nadir-cocked", type=float, default=0.0, help="share of frames that are a valid throw with "
                    "one die tipped towards the camera's foot by about its view angle (`tipped_to_nadir`)")
    ap.add_argument("--held-cocked", type=float, default=0.0, help="share of frames that are a valid throw with "
                    "one die cocked as real dice are, its raised edge held (`synthetic_held`: wedged at a wall or the "
                    "dome's glass or against a die, or on a chip, a stack of chips or a coin, drawn); half of them "
                    "off a dome with a chip or coin beside a flat die too (`chip_beside`)")
    ap.add_argument("--lean", type=float, default=0.0, help="degrees: each table's camera leans off straight down by "
                    "up to this, towards a direction drawn (`camera_leaning`; vision/camera_check.py)")
    args = ap.parse_args(argv)
    without = {n for n in args.looks_without.split(",") if n}
    with_ = {n for n in args.looks_with.split(",") if n}
    known = set(FELTS["tune"]) | set(RAILS["tune"]) | set(DICE["tune"])
    if (without | with_) - known:
        ap.error(f"unknown look names {sorted((without | with_) - known)}; known: {', '.join(sorted(known))}")
    all_games = ("craps", "banca-francesa", "cussec", "paikao")
    if set(args.games.split(",")) - set(all_games):
        ap.error(f"unknown games {sorted(set(args.games.split(',')) - set(all_games))}; known: {', '.join(all_games)}")
    wanted = set(args.kinds.split(","))
    unknown = wanted - set(KINDS)
    if unknown:
        ap.error(f"unknown kinds {sorted(unknown)}; known: {', '.join(sorted(set(KINDS)))}")
    lo, hi = (float(v) for v in args.cocked_tilt.split(","))
    rng = np.random.default_rng(args.seed)
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "labels").mkdir(parents=True, exist_ok=True)
    games = args.games.split(",")
    rigs: dict[str, tuple] = {}
    for i in range(args.frames):
        game = games[i % len(games)]
        if game not in rigs or i % 40 < len(games):
            rig = wanted_rig(game, rng, without, with_)
            if args.under_lamp is not None:
                rig = replace(rig, look=replace(rig.look, under_lamp=args.under_lamp))
            if args.random_dice and rng.random() < args.random_dice:  # no draw when off: old sets stay as they were
                dark = bool(args.dark_pips and rng.random() < args.dark_pips)  # no draw when off
                pale = bool(args.pale_dice and rng.random() < args.pale_dice)  # no draw when off
                style = pale_die_style(rng) if pale else random_die_style(rng, rig.look.felt, dark)
                rig = replace(rig, look=replace(rig.look, style=style))
            if args.random_felt and rng.random() < args.random_felt:  # no draw when off
                rig = rig.on_felt(random_felt(rng, rig.look.style.body), "random")
            if args.lean:  # no draw when off
                rig = camera_leaning(rig, float(rng.uniform(0.0, args.lean)), float(rng.uniform(0.0, 2.0 * np.pi)))
            empty, _ = render(rig.scene([], rng, clean=True), rng)
            cal = calibrate(empty, rig.layout, float(rig.camera.position[2]))
            rigs[game] = (rig, cal.die_px, View.of(cal, *empty.shape[1::-1]))
        rig, die_px, view = rigs[game]
        kinds = [k for k in KINDS if k in wanted and not (k == "stacked" and game == "paikao")
                 and not (k == "not_past_middle" and game != "craps")] or ["valid"]
        supports = []
        if args.nadir_cocked and rng.random() < args.nadir_cocked:  # no draw when off: old sets stay as they were
            dice = valid_with_one_tipped_to_nadir(rig, rng)
        elif args.held_cocked and rng.random() < args.held_cocked:  # no draw when off
            dice, supports = held_throw(rig, rng, (lo, hi))
        else:
            dice = random_scene(rig, kinds[int(rng.integers(0, len(kinds)))], rng, (lo, hi))
        frame, truth = render(rig.scene(dice, rng, supports=supports), rng)
        h, w = frame.shape[:2]
        name = f"syn{args.seed}_{i:05d}"
        cv2.imwrite(str(args.out / "images" / f"{name}.png"), frame)
        lines = []
        for t in truth:
            if not t.visible:
                continue
            box = 1.25 * die_px
            lines.append(f"{t.value - 1} {t.x / w:.6f} {t.y / h:.6f} {box / w:.6f} {box / h:.6f} {POSES[t.pose]}")
        (args.out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
        # The die size the reader uses, and the camera's nadir and focal length (the pose network's view).
        (args.out / "labels" / f"{name}.die").write_text(
            f"{die_px:.3f} {view.nadir_x:.2f} {view.nadir_y:.2f} {view.focal_px:.2f}\n")
    print(f"wrote {args.frames} frames to {args.out}")
    return 0


def held_throw(rig, rng: np.random.Generator, tilt: tuple[float, float]) -> tuple[list, list]:
    """A valid throw with one die held cocked (dice, supports): off a dome, a third of them tipped towards the camera's
    foot (`tipped_to_nadir_held`), the rest `cocked_held`; off a dome, half with a chip or a coin beside a flat die."""
    if rig.layout.dome is None and rng.random() < 1 / 3:
        dice, supports = tipped_to_nadir_held(rig, rng)
    else:
        dice, supports, _ = cocked_held(rig, rng, tilt)
    if rig.layout.dome is None and rng.random() < 0.5:
        supports = supports + chip_beside(rig, dice, rng, supports)
    return dice, supports


def hsv_of(bgr: tuple[int, int, int]) -> tuple[int, int, int]:
    """One BGR colour as OpenCV's HSV (hue 0-180, saturation and value 0-255)."""
    h, s, v = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0]
    return int(h), int(s), int(v)


def bgr_of(hue, saturation, value) -> tuple[int, int, int]:
    """One OpenCV HSV colour as BGR (`hsv_of` the other way)."""
    return tuple(int(c) for c in cv2.cvtColor(np.uint8([[[hue, saturation, value]]]), cv2.COLOR_HSV2BGR)[0, 0])


def hue_gap(a: int, b: int) -> int:
    """How far apart two OpenCV hues are round the colour wheel (0-90)."""
    return min(abs(a - b), 180 - abs(a - b))


def random_hue(rng: np.random.Generator, wanted) -> int:
    """A hue drawn until `wanted(hue)` holds (100 draws at most: the last one otherwise)."""
    for _ in range(100):
        hue = int(rng.integers(0, 180))
        if wanted(hue):
            break
    return hue


UNSEEN_PALE_HUES = (6, 36)  # OpenCV hues of the unseen ivory dice's tint (21, vision/synthetic_looks.py DICE), +-15


def random_die_style(rng: np.random.Generator, felt: tuple[int, int, int], dark_pips: bool = False) -> DieStyle:
    """A die of a random colour, hue unlike the felt's: a saturated or dark body with light pips, or (`dark_pips`)
    a light, still saturated body with dark pips; any opacity, pips showing through, rounding, gloss. Never a
    white or ivory body (saturation >= 90 of 255): white dice stay a family a network trained on these never saw
    (off-white dice: `pale_die_style`)."""
    felt_hue = hsv_of(felt)[0]
    hue = random_hue(rng, lambda h: hue_gap(h, felt_hue) >= 15)
    saturation = rng.integers(90, 256)
    value = rng.integers(170, 256) if dark_pips else rng.integers(60, 230)
    body = bgr_of(hue, saturation, value)
    pips = tuple(int(v) for v in (rng.integers(0, 60, 3) if dark_pips else rng.integers(215, 256, 3)))
    alpha = float(rng.uniform(0.7, 1.0))
    return DieStyle("random", body, pips, alpha,
                    float(rng.uniform(0.0, 0.5)) if alpha < 0.95 else 0.0, float(rng.uniform(0.0, 0.2)),
                    float(rng.uniform(0.0, 1.0)))


def pale_die_style(rng: np.random.Generator) -> DieStyle:
    """An opaque off-white die (value 200-250), faintly tinted (saturation 0-70), with dark pips, as real off-white
    dice are: any tint but the unseen ivory dice's family (UNSEEN_PALE_HUES), so those stay unseen."""
    lo, hi = UNSEEN_PALE_HUES  # 2 hues more each side: a faint tint's hue moves on its way through BGR
    hue = random_hue(rng, lambda h: not lo - 2 <= h <= hi + 2)
    body = bgr_of(hue, rng.integers(0, 71), rng.integers(200, 251))
    pips = tuple(int(v) for v in rng.integers(0, 60, 3))
    return DieStyle("pale", body, pips, 1.0, 0.0, float(rng.uniform(0.0, 0.2)),
                    float(rng.uniform(0.0, 1.0)))


UNSEEN_FELT_HUES = (88, 162)  # OpenCV hues (0-180) of the unseen felts' families, blue (108) and purple (142), +-20


def random_felt(rng: np.random.Generator, die_body: tuple[int, int, int]) -> tuple[int, int, int]:
    """A felt of a random colour (BGR) for training only: any hue outside the unseen felts' families (blue and
    purple, UNSEEN_FELT_HUES) and 15 away from the dice's own when they are coloured, saturated (>= 80 of 255: never
    grey, the third unseen felt), mid dark. Real tables come in any colour; the unseen looks stay unseen."""
    die_hue, die_saturation, _ = hsv_of(die_body)
    lo, hi = UNSEEN_FELT_HUES
    hue = random_hue(rng, lambda h: not lo <= h <= hi and not (die_saturation >= 60 and hue_gap(h, die_hue) < 15))
    return bgr_of(hue, rng.integers(80, 231), rng.integers(50, 191))


def look_names(look) -> set[str]:
    """The felt's, the dice's and the rail's names of a look (the rail by its nearest named colour)."""
    rails = RAILS[look.split]
    rail = min(rails, key=lambda n: sum((a - b) ** 2 for a, b in zip(rails[n], look.rail)))
    return {look.felt_name, look.style.name, rail}


def wanted_rig(game: str, rng: np.random.Generator, without: set[str], with_: set[str]):
    """A rig whose look has none of `without` and, when given, one of `with_` (drawn again until so)."""
    for _ in range(1000):
        rig = random_rig(game, rng)
        names = look_names(rig.look)
        if not names & without and (not with_ or names & with_):
            return rig
    raise SystemExit(f"no {game} look without {sorted(without)} and with one of {sorted(with_)} in 1000 draws")


if __name__ == "__main__":
    sys.exit(main())
