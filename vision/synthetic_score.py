"""Counting what the reader and the judgement did on rendered tables: dice by condition, poses recognised,
wrong published results, and how often a read at confidence >= t was wrong (calibration)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .evaluation import reliability
from .reading import Die, Pose, Reading
from .synthetic import TruthDie
from .throw_judge import Verdict

# What the judgement must say for each kind of throw, per game ("valid" or a void reason).
EXPECTED = {
    "craps": {"valid": "valid", "cocked": "valid", "off_table": "off_table", "stacked": "stacked",
              "overlapping": "valid", "touching": "valid", "not_past_middle": "not_past_middle",
              "wall_bounce": "valid", "at_wall": "valid"},
    "banca-francesa": {"valid": "valid", "cocked": "cocked", "off_table": "off_table", "stacked": "stacked",
                       "overlapping": "overlapping", "touching": "valid", "at_wall": "valid"},
    "cussec": {"valid": "valid", "cocked": "cocked", "off_table": "off_table", "stacked": "stacked",
               "overlapping": "overlapping", "touching": "valid", "at_wall": "valid"},
    "paikao": {"valid": "valid", "overlapping": "overlapping", "off_table": "off_table", "at_wall": "valid"},
}
FLAT_TRUTH = ("flat", "touching", "off_table")
NOT_FLAT = (Pose.COCKED, Pose.STACKED, Pose.OVERLAPPING)


@dataclass(slots=True)
class Tally:
    """Dice of one condition: right, misread (read with a wrong value), declined, missed."""

    dice: int = 0
    right: int = 0
    misread: int = 0
    declined: int = 0
    missed: int = 0

    def add(self, die: Die | None, value: int) -> None:
        self.dice += 1
        if die is None:
            self.missed += 1
        elif not die.is_read:
            self.declined += 1
        elif die.value == value:
            self.right += 1
        else:
            self.misread += 1

    def as_json(self) -> dict:
        n = max(self.dice, 1)
        return {"dice": self.dice, "right": round(self.right / n, 4), "misread": round(self.misread / n, 4),
                "declined": round(self.declined / n, 4), "missed": round(self.missed / n, 4),
                "misreads": self.misread}


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
    throws: int = 0
    valid_verdicts: int = 0
    wrong_values: int = 0  # valid verdicts published with values that are not the dice's
    valid_when_void: int = 0  # valid verdicts published for a throw the rules void
    refused_valid: int = 0  # valid verdicts on tables whose felt the service refuses (vision/felt_check.py) ...
    refused_wrong: int = 0  # ... and wrong results among them (the service would not have run those tables)
    refused_flat: int = 0  # flat dice on tables whose felt the service refuses ...
    refused_flat_right: int = 0  # ... and those of them read right
    refused_poses: Counter = field(default_factory=Counter)  # `poses` of the dice on those tables alone
    verdicts: Counter = field(default_factory=Counter)  # (game, kind, said) -> count
    conditions: dict = field(default_factory=dict)  # condition name -> Tally
    poses: Counter = field(default_factory=Counter)  # (truth pose, "named" | "not flat" | "flat" | "missed")
    read_tipped: Counter = field(default_factory=Counter)  # truth pose -> its dice given a value (read as flat)
    flat_declined_by: Counter = field(default_factory=Counter)  # Die.declined -> flat dice declined for it
    confidences: list = field(default_factory=list)  # (confidence, right) of every die read (a value published)
    failures: list = field(default_factory=list)

    @property
    def wrong_results(self) -> int:
        return self.wrong_values + self.valid_when_void

    def tally(self, name: str) -> Tally:
        return self.conditions.setdefault(name, Tally())

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

    def pose_rates(self) -> dict[str, dict]:
        """Dice truly cocked or stacked (upper die), two ways: `recognised`, the share the reader named as not
        lying flat (`named`: with their own pose); `never_read_flat`, the share it gave no value as a die lying flat
        (named tipped, or seen flat and declined: issue 18's "recognised as such (never read flat)"). `seen_flat`
        counts the dice it took for flat, read or declined; `read_flat` those of them it read with a value.
        (Before 2026-11-29 the bench printed `seen_flat` under the name "read flat".)"""
        out = pose_counts(self.poses)
        for pose, row in out.items():
            read = self.read_tipped[pose]
            row["read_flat"] = read
            row["never_read_flat"] = round(1 - read / max(row["dice"], 1), 4)
        return out

    def run_figures(self) -> dict:
        """Flat dice right and cocked and stacked dice recognised on the tables the service runs: without those whose
        felt it refuses (vision/felt_check.py), as `felt_split` tells the wrong results."""
        flat, right = self.flat - self.refused_flat, self.flat_right - self.refused_flat_right
        poses = self.poses.copy()
        poses.subtract(self.refused_poses)
        return {"flat_dice": flat, "flat_accuracy": round(right / max(flat, 1), 5), "poses": pose_counts(poses)}

    def as_json(self) -> dict:
        return {"dice": self.dice, "flat_dice": self.flat,
                "flat_accuracy": round(self.flat_right / max(self.flat, 1), 5),
                "read_right": self.read_right, "confident_misreads": self.misread + self.phantom,
                "misread": self.misread, "phantom": self.phantom, "declined": self.declined,
                "missed": self.missed, "throws": self.throws, "valid_verdicts": self.valid_verdicts,
                "wrong_results": self.wrong_results, "wrong_values": self.wrong_values,
                "valid_when_void": self.valid_when_void,
                "refused_valid": self.refused_valid, "refused_wrong": self.refused_wrong,
                "on_tables_run": self.run_figures(),
                "conditions": {k: v.as_json() for k, v in sorted(self.conditions.items())},
                "flat_declined_by": dict(self.flat_declined_by.most_common()),
                "poses": self.pose_rates(), "reliability": reliability(self.confidences),
                "void_classes": self.void_class_rates(), "kinds": self.kind_rates()}


MATCH_REACH = 0.6  # die edges from the true top face's centre within which a reported die is that die ...
TIPPED_REACH = 0.5  # ... and, for a die tipped by t degrees, this x sin(t) die edges more


def reach(t: TruthDie) -> float:
    """How far (die edges) from a true die's top-face centre the reader's die may lie and be that die. The reader
    centres a die on what it sees of it: for a die lying flat, its top face; for a tipped one, its top face and the
    side face tipped up beside it, half of d x sin(tilt) wide in plan and more in perspective (on tune seeds 60 and
    62, two cocked dice named cocked lay 0.64 and 0.67 die edges from their faces' centres, and were counted missed)."""
    return MATCH_REACH + TIPPED_REACH * math.sin(math.radians(t.tilt_deg))


def match(reading: Reading, truth: list[TruthDie], die_px: float) -> list[tuple[TruthDie, Die | None]]:
    """Pair each visible true die with the nearest reported die within its `reach`."""
    pairs, used = [], set()
    for t in truth:
        if not t.visible:
            continue
        best, best_d = None, reach(t) * die_px
        for i, d in enumerate(reading.dice):
            dist = float(np.hypot(d.x - t.x, d.y - t.y))
            if i not in used and dist < best_d:
                best, best_d = i, dist
        if best is not None:
            used.add(best)
        pairs.append((t, reading.dice[best] if best is not None else None))
    return pairs


def condition_of(t: TruthDie) -> str:
    """The condition a die is counted under: its pose; for flat dice, touching or a lamp in its top face."""
    if t.pose not in FLAT_TRUTH:
        return t.pose
    if t.pose == "touching":
        return "flat, touching"
    return "flat, lamp in top face" if t.glare else "flat, isolated"


def add(score: SyntheticScore, game: str, kind: str, truth: list[TruthDie], reading: Reading, verdict: Verdict,
        die_px: float, felt_refused: bool = False) -> None:
    """Count one judged throw (`felt_refused`: on a table whose felt the service refuses)."""
    said = "valid" if verdict.valid else verdict.reason.value
    want = EXPECTED[game][kind]
    score.throws += 1
    score.verdicts[(game, kind, said)] += 1
    if said != want:
        score.failures.append((game, kind, said, verdict.detail))
    if verdict.valid:
        score.valid_verdicts += 1
        wrong = want != "valid" or sorted(verdict.values) != sorted(t.value for t in truth if t.visible)
        if want != "valid":
            score.valid_when_void += 1
        elif wrong:
            score.wrong_values += 1
            score.failures.append((game, kind, "wrong values", verdict.values, [t.value for t in truth]))
        score.refused_valid += felt_refused
        score.refused_wrong += felt_refused and wrong
    pairs = match(reading, truth, die_px)
    matched = {id(d) for _, d in pairs if d is not None}
    # A die read where no die is (or a second die read on one die) is as wrong as a misread.
    phantoms = [d for d in reading.dice if id(d) not in matched and d.is_read]
    score.phantom += len(phantoms)
    score.confidences += [(d.confidence, False) for d in phantoms]
    for t, d in pairs:
        score.dice += 1
        is_flat = t.pose in FLAT_TRUTH
        score.flat += is_flat
        score.refused_flat += is_flat and felt_refused
        score.tally(condition_of(t)).add(d, t.value)
        if is_flat:
            score.tally(f"flat, {t.style} dice, face {t.value}").add(d, t.value)
        if t.pose in ("cocked", "stacked"):
            seen = "missed" if d is None else "named" if d.lie.value == t.pose else (
                "not flat" if d.lie in NOT_FLAT else "flat")
            score.poses[(t.pose, seen)] += 1
            score.refused_poses[(t.pose, seen)] += felt_refused
            if d is not None and d.is_read:  # given a value: read as a die lying flat, what the issue forbids
                score.read_tipped[t.pose] += 1
        if d is not None and d.is_read:
            score.confidences.append((d.confidence, d.value == t.value))
        if d is None:
            score.missed += 1
        elif not d.is_read:
            score.declined += 1
            if is_flat:
                score.flat_declined_by[d.declined or "-"] += 1
        elif d.value == t.value:
            score.read_right += 1
            score.flat_right += is_flat
            score.refused_flat_right += is_flat and felt_refused
        else:
            score.misread += 1


def pose_counts(poses: Counter) -> dict[str, dict]:
    """Of a counts table of (true pose, what the reader made of the die): for cocked and stacked dice, how many,
    the share recognised (named not flat), the share named with their own pose, and those seen flat or missed."""
    out = {}
    for pose in ("cocked", "stacked"):
        n = sum(v for (p, _), v in poses.items() if p == pose)
        named = poses[(pose, "named")]
        out[pose] = {"dice": n, "recognised": round((named + poses[(pose, "not flat")]) / max(n, 1), 4),
                     "named": round(named / max(n, 1), 4), "seen_flat": poses[(pose, "flat")],
                     "missed": poses[(pose, "missed")]}
    return out
