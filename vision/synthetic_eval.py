"""Score the reader and the throw judgement on rendered tables, where the truth is known exactly.

For each throw: render the resting dice (and, for the middle rule, frames of the throw), read them
with a reader calibrated on the rig's empty table, judge the throw, and compare with the truth
(synthetic_score counts: dice by condition, confident misreads, poses recognised, wrong published
results, the verdict of each kind of throw with its reason). Tables take their looks from one split
(synthetic_looks): `tune` to work on, `unseen` only to report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from .at_rest import agree
from .calibration import calibrate
from .dice_reader import DiceReader
from .empty_table import SAMPLES, EmptyTable, averaged
from .felt_check import unvalidated_felt
from .layouts import layout_for
from .reading import Pose, Reading
from .synthetic import Scene, SceneDie, render
from .synthetic_held import chip_beside, cocked_held, tipped_to_nadir_held
from .synthetic_scenes import (DICE_PER_GAME, TableRig, flat, free_spots, random_rig, random_scene, throw_track,
                               valid_with_one_tipped_to_nadir)
from .synthetic_score import EXPECTED, SyntheticScore, add, match
from .throw_watch import locate
from .throw_judge import judge, rules_for

__all__ = ["EXPECTED", "LampProbe", "SyntheticScore", "TippedProbe", "evaluate_synthetic", "probe_lamp_places",
           "probe_cocked_held", "probe_tipped_to_nadir", "track_readings"]


def calibrated_reader(rig: TableRig, rng: np.random.Generator, classifier="default", pose_net="default") -> DiceReader:
    """The reader of a rig as the service builds it: calibrated on the rig's empty table, which it keeps."""
    empty, _ = render(rig.scene([], rng, clean=True), rng)
    return DiceReader(calibrate(empty, rig.layout, float(rig.camera.position[2])), classifier=classifier,
                      pose_net=pose_net, background=empty)


def track_readings(reader: DiceReader, rig: TableRig, dice: list[SceneDie], kind: str,
                   rng: np.random.Generator, frames: int = 12) -> list[Reading]:
    """Render and read the frames of the throw before the dice came to rest."""
    out = []
    for row in throw_track(rig, dice, kind, rng, frames):
        moving = []
        for (x, y), die in zip(row, dice):
            moving.append(SceneDie(np.array([x, y, die.centre[2]]), die.rotation, die.style, "moving", die.size_mm))
        frame, _ = render(rig.scene(moving, rng), rng)
        out.append(locate(reader, frame))
    return out


def evaluate_synthetic(n_throws: int, seed: int = 0, classifier="default", games=None, pose_net="default",
                       throws_per_rig: int = 25, on_throw=None, split: str = "tune", reads: int = 1,
                       model: str = "calibration") -> SyntheticScore:
    """Render, read and judge `n_throws` throws on tables of the `split` looks (a new rig every
    `throws_per_rig` throws per game); `on_throw(i, game, kind, frame, truth, reading, verdict)` sees each.
    `reads` > 1 judges what that many frames of the resting dice agree on (`at_rest.agree`), as the service
    does (firmware_host/dice_camera.py: 3 reads over the 0.3 s rest): the same scene under other sensor
    noise, drawn from a stream of its own, so the first frame and every later throw are those of `reads=1`.
    `model`: the empty table each throw is read against, the calibration's (its clean frame) or, `learned`, the
    model the service reads a throw against (`learned_model`, its frames from a stream of their own: the same
    throws), refreshed as the service refreshes it (`EmptyTable.refresh`: the judge is told what it holds that the
    clean frame does not)."""
    check_model(model)
    rng = np.random.default_rng(seed)
    score = SyntheticScore()
    games = games or list(EXPECTED)
    reader = rig = None
    felt_refused = False
    for i in range(n_throws):
        game = games[i % len(games)]
        if rig is None or rig.game != game or i % throws_per_rig < len(games):
            rig = random_rig(game, rng, split=split)
            reader = calibrated_reader(rig, rng, classifier, pose_net)
            felt_refused = service_refuses_felt(reader)
            table = EmptyTable(reader.background)
        kinds = list(EXPECTED[game])
        kind = kinds[int(rng.integers(0, len(kinds)))]
        dice = random_scene(rig, kind, rng)
        scene = rig.scene(dice, rng)
        frame, truth = render(scene, rng)
        reading = read_throw(reader, table, scene, frame, model, np.random.default_rng([seed, i, 2]))
        if reads > 1:
            noise = np.random.default_rng([seed, i])
            reading = agree([reading] + [table.seen(reader.read(render(scene, noise)[0])) for _ in range(reads - 1)])
        track = track_readings(reader, rig, dice, kind, rng) if kind in ("not_past_middle", "wall_bounce") else ()
        verdict = judge(reading, rules_for(game), reader.calibration, track)
        add(score, game, kind, truth, reading, verdict, reader.calibration.die_px, felt_refused)
        if on_throw is not None:
            on_throw(i, game, kind, frame, truth, reading, verdict)
    return score


def still_frames(scene: Scene, rng: np.random.Generator) -> list[np.ndarray]:
    """SAMPLES still frames of the table taken while bets were open: the scene without its dice, in its light, each
    frame with noise of its own."""
    return [render(replace(scene, dice=[]), rng)[0] for _ in range(SAMPLES)]


def learned_model(scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """The empty-table model the service reads a throw against: its still frames averaged (`EmptyTable.offer`,
    refreshed)."""
    return averaged(still_frames(scene, rng))


MODELS = ("calibration", "learned")  # the empty tables a rendered throw may be read against


def check_model(model: str) -> None:
    if model not in MODELS:
        raise ValueError(f"model must be 'calibration' or 'learned', got {model!r}")


def read_throw(reader: DiceReader, table: EmptyTable, scene: Scene, frame: np.ndarray, model: str,
               still_rng: np.random.Generator) -> Reading:
    """A throw's frame read against the empty table `model` names: the table's (`calibration`: the clean frame it was
    made with) or, `learned`, the model the service reads it against (`learned_model` from `still_rng`'s frames,
    refreshed as the service refreshes its model); either way the judge is told what the model holds (`seen`)."""
    if model == "learned":
        table.refresh(learned_model(scene, still_rng), reader)
    return table.seen(reader.read(frame))


def service_refuses_felt(reader: DiceReader) -> bool:
    """Whether the service refuses this table for its felt: the check it runs on the calibration photo
    (vision/felt_check.py), here on the reader's own empty table."""
    return unvalidated_felt(reader.background, reader.calibration) is not None


@dataclass(slots=True)
class TippedProbe:
    """What `probe_tipped_to_nadir` and `probe_cocked_held` count."""

    tipped: int = 0  # dice tipped towards the camera's foot (or cocked)
    named: int = 0  # ... that the reader named cocked
    seen_flat: int = 0  # ... that the reader called flat (alone or touching)
    read: int = 0  # ... and read with a value
    read_wrong: int = 0  # ... not its most exposed face's (craps reads a cocked die by that face: a wrong result)
    voiding: int = 0  # throws of games whose rules void a cocked die (banca francesa, cussec)
    published: int = 0  # ... judged valid all the same: a wrong result
    flat: int = 0  # the flat dice of the same frames
    flat_right: int = 0  # ... read with their value
    felt_refused: int = 0  # voiding throws on tables whose felt the service refuses (vision/felt_check.py) ...
    felt_refused_published: int = 0  # ... judged valid all the same (the service would not have run that table)
    refused_tipped: int = 0  # tipped (or cocked) dice on tables whose felt the service refuses ...
    refused_named: int = 0  # ... named cocked
    # Voiding throws by what holds the cocked die ("nothing", "die", "chip or coin", "wall", "dome"): [throws, judged
    # valid]; and the void reasons they got ("valid": none).
    by_holder: dict[str, list[int]] = field(default_factory=dict)
    verdicts: dict[str, int] = field(default_factory=dict)


def probe_tipped_to_nadir(n_throws: int, seed: int, split: str = "unseen", games=None, throws_per_rig: int = 30,
                          held: bool = False, model: str = "calibration") -> TippedProbe:
    """Valid throws with one die tipped towards the camera's foot by about its view angle (`tipped_to_nadir`: it
    shows no side face, as a flat die under the camera), read from one frame and judged: how often that die is
    taken for flat and read, and how often a game that voids a cocked die publishes the throw valid. The games take
    turns; each gets a new rig every `throws_per_rig` throws. The tipped die rests on bare felt, held by nothing (no
    die can: the probe's worst case), or with `held` as a die can rest tipped (`synthetic_held.tipped_to_nadir_held`:
    a chip or a coin under its raised edge, drawn, or wedged against another die). `games` default: craps, banca
    francesa and cussec; held, craps and banca francesa (nothing holds such a die in a dome: a dome game is refused).
    `model` as `evaluate_synthetic`'s: `learned` reads each throw as the service does, against its model of the table
    without the dice (a chip holding the die lay there before: the model holds it)."""
    if games is None:
        games = ("craps", "banca-francesa") if held else ("craps", "banca-francesa", "cussec")
    domed = [g for g in games if held and layout_for(g).dome is not None]
    if domed:
        raise ValueError(f"held dice tipped towards the camera's foot: nothing holds them in a dome "
                         f"({', '.join(domed)})")

    def draw(rig: TableRig, rng: np.random.Generator) -> tuple[list[SceneDie], list, str]:
        if held:
            dice, supports = tipped_to_nadir_held(rig, rng)
            return dice, supports, "chip or coin" if supports else "die"
        return valid_with_one_tipped_to_nadir(rig, rng), [], "nothing"
    return probe_one_cocked(n_throws, seed, split, games, throws_per_rig, draw, model)


def probe_cocked_held(n_throws: int, seed: int, split: str = "unseen", games=("craps", "banca-francesa", "cussec"),
                      throws_per_rig: int = 30, model: str = "calibration") -> TippedProbe:
    """Valid throws with one die cocked as real dice are (`synthetic_held.cocked_held`: wedged against a wall or the
    dome's glass, tipped towards the table's middle, or its raised edge on a chip, a stack of chips or a coin, drawn),
    read from one frame and judged, counted as `probe_tipped_to_nadir` counts (`model` as there)."""
    return probe_one_cocked(n_throws, seed, split, games, throws_per_rig, cocked_held, model)


def probe_tables(n_throws: int, games, throws_per_rig: int, split: str, rng: np.random.Generator):
    """The probes' tables, throw by throw: (game, rig, its calibrated reader, whether the table is new). The games take
    turns; each gets a new table of `split` looks every `throws_per_rig` throws."""
    rigs: dict[str, tuple[TableRig, DiceReader]] = {}
    for i in range(n_throws):
        game = games[i % len(games)]
        new = game not in rigs or i % throws_per_rig < len(games)
        if new:
            rig = random_rig(game, rng, split=split)
            rigs[game] = rig, calibrated_reader(rig, rng)
        yield game, *rigs[game], new


def probe_one_cocked(n_throws: int, seed: int, split: str, games, throws_per_rig: int, draw,
                     model: str = "calibration") -> TippedProbe:
    """The probes' loop: `draw(rig, rng)` gives a throw's dice (one of them cocked), the supports to draw and what
    holds the cocked die; `model` as `evaluate_synthetic`'s (the still frames from a stream of their own: the same
    throws)."""
    check_model(model)
    rng, still_rng = np.random.default_rng(seed), np.random.default_rng([seed, 1])
    out = TippedProbe()
    refused: dict[str, bool] = {}  # by game: whether the service refuses the felt of its table now
    tables: dict[str, EmptyTable] = {}  # by game: its table's empty-table model, the clean frame its reference
    for game, rig, reader, new in probe_tables(n_throws, games, throws_per_rig, split, rng):
        if new:
            refused[game] = service_refuses_felt(reader)
            tables[game] = EmptyTable(reader.background)
        felt_refused, table = refused[game], tables[game]
        dice, supports, holder = draw(rig, rng)
        scene = rig.scene(dice, rng, supports=supports)
        frame, truth = render(scene, rng)
        reading = read_throw(reader, table, scene, frame, model, still_rng)
        for t, d in match(reading, truth, reader.calibration.die_px):
            if t.pose == "cocked":
                named = d is not None and d.lie is Pose.COCKED
                out.tipped += 1
                out.named += named
                out.refused_tipped += felt_refused
                out.refused_named += felt_refused and named
                flat = d is not None and d.lie in (Pose.FLAT, Pose.TOUCHING)
                out.seen_flat += flat
                out.read += flat and d.is_read
                out.read_wrong += d is not None and d.is_read and d.value != t.value
            else:
                out.flat += 1
                out.flat_right += d is not None and d.is_read and d.value == t.value
        rules = rules_for(game)
        if rules.cocked_void:
            verdict = judge(reading, rules, reader.calibration)
            valid = verdict.valid
            out.voiding += 1
            out.published += valid
            counts = out.by_holder.setdefault(holder, [0, 0])
            counts[0] += 1
            counts[1] += valid
            reason = "valid" if valid else verdict.reason.value
            out.verdicts[reason] = out.verdicts.get(reason, 0) + 1
            if felt_refused:  # the service would not run this table
                out.felt_refused += 1
                out.felt_refused_published += valid
    return out


@dataclass(slots=True)
class LampCounts:
    """One reader's counts in `probe_lamp_places`."""

    lamp_right: int = 0  # flat dice under a lamp (one mirrored in the top face) read with their value
    lamp_wrong: int = 0  # ... read with another value
    other_right: int = 0  # the other flat dice read with their value
    other_wrong: int = 0
    valid: int = 0  # throws judged valid
    wrong_published: int = 0  # ... with a die read wrong


@dataclass(slots=True)
class LampProbe:
    """What `probe_lamp_places` counts: the reader as the service builds it (learning the lamps' places) and the same
    reader without them, on the same frames."""

    lamp_dice: int = 0
    other_dice: int = 0
    learning: LampCounts = field(default_factory=LampCounts)
    without: LampCounts = field(default_factory=LampCounts)
    places: int = 0  # lamp places the learning readers held at the end of their tables, summed


def probe_lamp_places(n_throws: int, seed: int, split: str = "unseen", games=("craps", "banca-francesa", "cussec",
                      "paikao"), throws_per_rig: int = 50) -> LampProbe:
    """Valid throws with a die where a lamp is mirrored in every one, on tables kept for `throws_per_rig` throws of
    their game, as a table's camera keeps its reader (`evaluate_synthetic` draws a new table every throw, where
    nothing can be learned): read by the reader as the service builds it, which learns the table's lamp places
    (`lamp_spots`), and by the same reader without them, on the same frames; one frame, judged."""
    rng = np.random.default_rng(seed)
    out = LampProbe()
    tables: dict[str, tuple[TableRig, DiceReader, DiceReader]] = {}
    for i in range(n_throws):
        game = games[i % len(games)]
        if game not in tables or (i // len(games)) % throws_per_rig == 0:
            if game in tables:
                out.places += len(tables[game][1].lamp_spots.learned())
            rig = random_rig(game, rng, split=split)
            rig = replace(rig, look=replace(rig.look, under_lamp=1.0))
            learning = calibrated_reader(rig, rng)
            without = DiceReader(learning.calibration, classifier=learning.classifier, pose_net=learning.pose_net,
                                 background=learning.background, learn_lamps=False)  # the same networks, loaded once
            tables[game] = rig, learning, without
        rig, learning, without = tables[game]
        frame, truth = render(rig.scene(random_scene(rig, "valid", rng), rng), rng)
        rules = rules_for(game)
        for reader, counts in ((learning, out.learning), (without, out.without)):
            reading = reader.read(frame)
            wrong = False
            for t, d in match(reading, truth, reader.calibration.die_px):
                if t.pose != "flat":
                    continue
                right = d is not None and d.is_read and d.value == t.value
                misread = d is not None and d.is_read and d.value != t.value
                wrong |= misread
                if t.glare:
                    counts.lamp_right += right
                    counts.lamp_wrong += misread
                else:
                    counts.other_right += right
                    counts.other_wrong += misread
                if reader is learning:
                    out.lamp_dice += bool(t.glare)
                    out.other_dice += not t.glare
            valid = judge(reading, rules, reader.calibration).valid
            counts.valid += valid
            counts.wrong_published += valid and wrong
    out.places += sum(len(learning.lamp_spots.learned()) for _, learning, _ in tables.values())
    return out


@dataclass(slots=True)
class FlatCounts:
    """Flat dice of `probe_chip_beside`: how many, read with their value, read with another."""

    dice: int = 0
    right: int = 0
    wrong: int = 0


@dataclass(slots=True)
class ChipCounts:
    """One empty-table model's counts in `probe_chip_beside`: flat dice within 3 die edges of a chip or coin, the
    other flat dice, and the throws judged valid (with a die read wrong: a wrong result)."""

    by_chip: FlatCounts = field(default_factory=FlatCounts)
    other: FlatCounts = field(default_factory=FlatCounts)
    valid: int = 0
    wrong_published: int = 0


@dataclass(slots=True)
class ChipProbe:
    """What `probe_chip_beside` counts, each throw read two ways: against the calibration's clean empty table
    (`calibration`), and as the service reads it (`service`: against the model it learned from still frames with the
    chip on the table, or, where the reader read a die in them, `refused`, against its model from before the chip);
    how the service's models came (`models`: EmptyTable.how, by count)."""

    calibration: ChipCounts = field(default_factory=ChipCounts)
    service: ChipCounts = field(default_factory=ChipCounts)
    models: dict[str, int] = field(default_factory=dict)
    refused: int = 0
    holding: int = 0  # service models that hold something the table before the chip did not (`EmptyTable.objects`)


def probe_chip_beside(n_throws: int, seed: int, split: str = "unseen", games=("craps", "banca-francesa"),
                      throws_per_rig: int = 30) -> ChipProbe:
    """Valid throws, every die flat, a chip or a coin lying 0.5-6 mm beside one of them in most (`chip_beside`), as
    chips lie about a craps layout: how often the dice by it are read, against the others; one frame, judged.

    Each throw is read twice. Against the calibration's empty table. And as the service reads a throw onto a table
    where the chip lay while bets were open: its model from before the chip was put down (`learned_model` of the
    table without it, in the throw's light), offered SAMPLES still frames of the table with the chip (`EmptyTable`:
    learned when the reader finds no die in them), read by a second reader with the same networks. The still frames
    and models are drawn from a second generator, so the throws are those of the first reading alone."""
    rng, still_rng = np.random.default_rng(seed), np.random.default_rng([seed, 1])
    out = ChipProbe()
    services: dict[str, tuple[DiceReader, np.ndarray]] = {}  # by game: its table's service reader and search area
    for game, rig, reader, new in probe_tables(n_throws, games, throws_per_rig, split, rng):
        cal = reader.calibration
        if new:
            services[game] = (DiceReader(cal, classifier=reader.classifier, pose_net=reader.pose_net),
                              cal.search_mask(*cal.image_size, 0.25))
        service, region = services[game]
        dice = [flat(rig, x, y, rng) for x, y in free_spots(rig, DICE_PER_GAME[game], rng)]
        supports = chip_beside(rig, dice, rng)
        scene = rig.scene(dice, rng, supports=supports)
        frame, truth = render(scene, rng)
        before = learned_model(replace(scene, supports=[]), still_rng)
        model = EmptyTable(before, region=region)
        service.use_background(before)
        for still in still_frames(scene, still_rng):
            model.offer(still, service)
        out.models[model.how] = out.models.get(model.how, 0) + 1
        out.refused += model.refused > 0
        chips = [rig.camera.project(np.array([[s.x, s.y, 0.0]]))[0] for s in supports]
        out.holding += bool(model.objects)
        count_chip_throw(reader.read(frame), truth, chips, game, cal, out.calibration)
        count_chip_throw(model.seen(service.read(frame)), truth, chips, game, cal, out.service)
    return out


def count_chip_throw(reading: Reading, truth, chips, game: str, cal, out: ChipCounts) -> None:
    """One throw of `probe_chip_beside` read against one model: its flat dice by where they lie, and its verdict."""
    wrong = False
    for t, d in match(reading, truth, cal.die_px):
        counts = out.by_chip if any(math.hypot(t.x - u, t.y - v) < 3.0 * cal.die_px for u, v in chips) else out.other
        counts.dice += 1
        counts.right += d is not None and d.is_read and d.value == t.value
        misread = d is not None and d.is_read and d.value != t.value
        counts.wrong += misread
        wrong |= misread
    valid = judge(reading, rules_for(game), cal).valid
    out.valid += valid
    out.wrong_published += valid and wrong
