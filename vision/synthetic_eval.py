"""Score the reader and the throw judgement on rendered tables, where the truth is known exactly.

For each throw: render the resting dice (and, for the middle rule, frames of the throw), read them
with a reader calibrated on the rig's empty table, judge the throw, and compare with the truth.
Counted: flat dice read right, confident misreads (a read value that is wrong, or a die read where
there is none), declined dice, and
for each kind of throw whether the verdict is the expected one (with its reason).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .calibration import calibrate
from .dice_reader import DiceReader
from .reading import Reading
from .synthetic import SceneDie, TruthDie, render
from .synthetic_scenes import TableRig, random_rig, random_scene, throw_track
from .throw_watch import locate
from .throw_judge import Verdict, judge, rules_for

# What the judgement must say for each kind of throw, per game ("valid" or a void reason).
EXPECTED = {
    "craps": {"valid": "valid", "cocked": "valid", "off_table": "off_table", "stacked": "stacked",
              "overlapping": "valid", "touching": "valid", "not_past_middle": "not_past_middle",
              "wall_bounce": "valid"},
    "banca-francesa": {"valid": "valid", "cocked": "cocked", "off_table": "off_table", "stacked": "stacked",
                       "overlapping": "overlapping", "touching": "valid"},
    "cussec": {"valid": "valid", "cocked": "cocked", "off_table": "off_table", "stacked": "stacked",
               "overlapping": "overlapping", "touching": "valid"},
    "paikao": {"valid": "valid", "overlapping": "overlapping", "off_table": "off_table"},
}


@dataclass(slots=True)
class SyntheticScore:
    dice: int = 0
    flat: int = 0
    flat_right: int = 0
    read_right: int = 0
    misread: int = 0
    phantom: int = 0
    declined: int = 0
    missed: int = 0
    verdicts: Counter = field(default_factory=Counter)  # (game, kind, said) -> count
    failures: list = field(default_factory=list)

    def kind_rates(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for (game, kind, said), n in self.verdicts.items():
            want = EXPECTED[game][kind]
            row = out.setdefault(f"{game}/{kind}", {"expected": want, "throws": 0, "right": 0})
            row["throws"] += n
            row["right"] += n if said == want else 0
        for row in out.values():
            row["rate"] = round(row["right"] / max(row["throws"], 1), 4)
        return out

    def void_class_rates(self) -> dict[str, dict]:
        """Each void reason: throws that should be void for it, and the share judged so."""
        out: dict[str, dict] = {}
        for (game, kind, said), n in self.verdicts.items():
            want = EXPECTED[game][kind]
            if want == "valid":
                continue
            row = out.setdefault(want, {"throws": 0, "right": 0})
            row["throws"] += n
            row["right"] += n if said == want else 0
        for row in out.values():
            row["rate"] = round(row["right"] / max(row["throws"], 1), 4)
        return out

    def as_json(self) -> dict:
        return {"dice": self.dice, "flat_dice": self.flat,
                "flat_accuracy": round(self.flat_right / max(self.flat, 1), 5),
                "read_right": self.read_right, "confident_misreads": self.misread + self.phantom,
                "misread": self.misread, "phantom": self.phantom, "declined": self.declined,
                "missed": self.missed, "void_classes": self.void_class_rates(), "kinds": self.kind_rates()}


def match(reading: Reading, truth: list[TruthDie], die_px: float) -> list[tuple[TruthDie, object]]:
    """Pair each visible true die with the nearest reported die within 0.6 die edges."""
    pairs, used = [], set()
    for t in truth:
        if not t.visible:
            continue
        best, best_d = None, 0.6 * die_px
        for i, d in enumerate(reading.dice):
            dist = float(np.hypot(d.x - t.x, d.y - t.y))
            if i not in used and dist < best_d:
                best, best_d = i, dist
        if best is not None:
            used.add(best)
        pairs.append((t, reading.dice[best] if best is not None else None))
    return pairs


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


def evaluate_synthetic(n_throws: int, seed: int = 0, classifier="default", games=None,
                       throws_per_rig: int = 25, on_throw=None) -> SyntheticScore:
    rng = np.random.default_rng(seed)
    score = SyntheticScore()
    games = games or list(EXPECTED)
    reader = rig = None
    for i in range(n_throws):
        game = games[i % len(games)]
        if rig is None or rig.game != game or i % throws_per_rig < len(games):
            rig = random_rig(game, rng)
            empty, _ = render(rig.scene([], rng, clean=True), rng)
            reader = DiceReader(calibrate(empty, rig.layout, float(rig.camera.position[2])), classifier=classifier,
                                background=empty)
        kinds = list(EXPECTED[game])
        kind = kinds[int(rng.integers(0, len(kinds)))]
        dice = random_scene(rig, kind, rng)
        frame, truth = render(rig.scene(dice, rng), rng)
        reading = reader.read(frame)
        track = track_readings(reader, rig, dice, kind, rng) if kind in ("not_past_middle", "wall_bounce") else ()
        verdict = judge(reading, rules_for(game), reader.calibration, track)
        add(score, game, kind, truth, reading, verdict, reader.calibration.die_px)
        if on_throw is not None:
            on_throw(i, game, kind, frame, truth, reading, verdict)
    return score


def add(score: SyntheticScore, game: str, kind: str, truth: list[TruthDie], reading: Reading, verdict: Verdict,
        die_px: float) -> None:
    said = "valid" if verdict.valid else verdict.reason.value
    score.verdicts[(game, kind, said)] += 1
    if said != EXPECTED[game][kind]:
        score.failures.append((game, kind, said, verdict.detail))
    pairs = match(reading, truth, die_px)
    matched = {id(d) for _, d in pairs if d is not None}
    # A die read where no die is (or a second die read on one die) is as wrong as a misread.
    score.phantom += sum(1 for d in reading.dice if id(d) not in matched and d.is_read)
    for t, d in pairs:
        score.dice += 1
        is_flat = t.pose in ("flat", "touching", "off_table")
        score.flat += is_flat
        if d is None:
            score.missed += 1
        elif not d.is_read:
            score.declined += 1
        elif d.value == t.value:
            score.read_right += 1
            score.flat_right += is_flat
        else:
            score.misread += 1
