"""The throw judgement: a pure function over a `Reading`, the calibration and the game's validity rules.

Rules per game are those of the regulations digest (first table); each `ThrowRules` names its
source. The reasons are checked in a fixed order, so one throw gets one reason: off_table, stacked,
overlapping, cocked, not_past_middle, uncertain (frames that disagree; something where the empty-table model holds an
object; a blurred image), wrong_count, foreign_object, uncertain (a die not read).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Sequence

import numpy as np

from .calibration import Calibration
from .errors import GameRulesError
from .reading import DECLINED, HELD, Blob, Die, Pose, Reading
from .throw_track import passed_middle


class VoidReason(str, Enum):
    OFF_TABLE = "off_table"
    COCKED = "cocked"
    STACKED = "stacked"
    OVERLAPPING = "overlapping"
    NOT_PAST_MIDDLE = "not_past_middle"
    WRONG_COUNT = "wrong_count"
    FOREIGN_OBJECT = "foreign_object"
    UNCERTAIN = "uncertain"


@dataclass(frozen=True, slots=True)
class ThrowRules:
    """When a game voids a throw."""

    game: str
    n_dice: int
    cocked_void: bool  # False: a cocked die is read by its most exposed top face
    overlapping_void: bool  # False: a die leaning on another is read like a cocked die
    must_pass_middle: bool  # craps: dice must pass the middle unless one hit a wall
    in_dome: bool  # cussec / P'ai Kao: dice must rest inside the dome or bowl
    source: str
    stacked_void: bool = True  # a die under another cannot be read in any game
    touching_void: bool = False
    foreign_object_void: bool = False  # banca francesa IV.8 a: a die touching something that is not a die


RULES = {
    "craps": ThrowRules("craps", 2, cocked_void=False, overlapping_void=False, must_pass_middle=True, in_dome=False,
                        source="Macau 2010 Art. 3 (001); Portugal 1995 VI.6-7 (004)"),
    "banca-francesa": ThrowRules("banca-francesa", 3, cocked_void=True, overlapping_void=True, must_pass_middle=False,
                                 in_dome=False, source="Portugal 1995 IV.7(b), IV.8(a)(e)(f)(g) (004)",
                                 foreign_object_void=True),
    "cussec": ThrowRules("cussec", 3, cocked_void=True, overlapping_void=True, must_pass_middle=False, in_dome=True,
                         source="Portugal 1995 VII.6 (004)"),
    "paikao": ThrowRules("paikao", 4, cocked_void=True, overlapping_void=True, must_pass_middle=False, in_dome=True,
                         source="Macau P'ai Kao Art. 1.5 (002)"),
}


ANY_GAME = ThrowRules("any", 0, cocked_void=True, overlapping_void=True, must_pass_middle=False, in_dome=False,
                      source="no game given: every die must lie flat and be read")


def rules_for(game: str) -> ThrowRules:
    try:
        return RULES[game]
    except KeyError:
        raise GameRulesError(f"unknown game {game!r}; known: {', '.join(sorted(RULES))}") from None


@dataclass(frozen=True, slots=True)
class Verdict:
    """Valid with the values read, or void with one reason and a sentence saying why."""

    valid: bool
    reason: VoidReason | None
    values: tuple[int, ...] | None
    detail: str
    declined: str = ""  # void `uncertain` for a die not read: why (a `DECLINED` key; "" otherwise)

    def as_json(self) -> dict:
        out = {"verdict": "valid" if self.valid else "void", "reason": self.reason.value if self.reason else None,
               "values": list(self.values) if self.values is not None else None, "detail": self.detail}
        if self.declined:
            out["declined"] = self.declined
        return out


def void(reason: VoidReason, detail: str, declined: str = "") -> Verdict:
    return Verdict(False, reason, None, detail, declined)


def not_read(d: Die) -> Verdict:
    """Void `uncertain` for a die the reader did not read, saying why in the dealer's words and as a key (only a reason
    the reader gives: `DECLINED`'s, never another's)."""
    known = d.declined if d.declined in DECLINED else ""
    why = f" ({DECLINED[known]})" if known else ""
    return void(VoidReason.UNCERTAIN, f"{where(d)}: the reader is not sure of its value{why}", known)


def where(d: Die) -> str:
    return f"die at ({d.x:.0f}, {d.y:.0f}) px"


def on_table(die: Die, cal: Calibration, rules: ThrowRules) -> bool:
    """The die rests on the felt (inside the dome for dome games); uncalibrated: always True."""
    if die.table_xy is None:
        return True
    x, y = die.table_xy
    if rules.in_dome and cal.layout.dome is not None:
        (cx, cy), r = cal.layout.dome
        return float(np.hypot(x - cx, y - cy)) <= r - 0.3 * cal.layout.die_mm
    w, h = cal.layout.felt_mm
    return 0.0 <= x <= w and 0.0 <= y <= h


TOUCH_GAP = 0.25  # die edges: something kept aside this close to a die's box touches it (or all but: blur, shadow)


def gap(blob: Blob, die: Die) -> float:
    """Pixels between a kept-aside blob's box and a die's box (0 when they meet or overlap)."""
    dx = max(abs(blob.x - die.x) - (blob.w + die.w) / 2.0, 0.0)
    dy = max(abs(blob.y - die.y) - (blob.h + die.h) / 2.0, 0.0)
    return float(np.hypot(dx, dy))


def touching_object(reading: Reading) -> tuple[Die, Blob] | None:
    """A die at rest against something that is not a die: in one silhouette with something larger than its dice
    explain (`object`: a chip stack, a hand), or beside something die-sized the reader kept aside (`unread`: a
    coin, a lighter, ash) or the empty-table model holds (`held`: a chip lying there between throws) within
    TOUCH_GAP. None when nothing touches a die."""
    for d in reading.dice:
        b = object_touched_by(reading, d)
        if b is not None:
            return d, b
    return None


def object_touched_by(reading: Reading, d: Die) -> Blob | None:
    """What that is not a die the die `d` touches (`touching_object`), or None."""
    for b in reading.blobs:
        inside = abs(d.x - b.x) <= b.w / 2.0 and abs(d.y - b.y) <= b.h / 2.0
        beside = b.why in ("unread", HELD) and gap(b, d) <= TOUCH_GAP * reading.die_size_px
        if (b.why == "object" and inside) or beside:
            return b
    return None


def at_held_object(reading: Reading) -> tuple[Die | Blob, Blob] | None:
    """Something found where the empty-table model holds an object (`held`, vision/empty_table.py), with that
    object: a die thrown onto a chip, a chip or a die left lying there knocked away. The model hides the object,
    so the reader cannot tell what lies there now; None when nothing is."""
    held = [b for b in reading.blobs if b.why == HELD]
    found = [*reading.dice, *reading.unmatched, *(b for b in reading.blobs if b.why != HELD)]
    for b in held:
        for thing in found:
            if abs(thing.x - b.x) <= b.w / 2.0 and abs(thing.y - b.y) <= b.h / 2.0:
                return thing, b
    return None


def judge(reading: Reading, rules: ThrowRules, calibration: Calibration | None = None,
          track: Sequence[Reading] = ()) -> Verdict:
    """Judge one throw from its resting reading (and the frames of the throw, for the middle rule)."""
    dice = reading.dice
    if calibration is not None:
        for d in dice:
            if not on_table(d, calibration, rules):
                place = "outside the dome" if rules.in_dome else "off the felt"
                return void(VoidReason.OFF_TABLE, f"{where(d)} is {place} ({rules.source})")
    every_die_seen = bool(rules.n_dice) and len(dice) == rules.n_dice
    for d in dice:
        if d.lie is Pose.STACKED and rules.stacked_void:
            if rules.foreign_object_void and every_die_seen and object_touched_by(reading, d) is not None:
                # Every die of the throw is in view, so what this die seems to rest on is no die of it: the thing
                # it touches. That is seen, the stack only inferred: judged below as a foreign object (IV.8(a)).
                continue
            return void(VoidReason.STACKED, f"{where(d)} rests on another die")
    for d in dice:
        if d.lie is Pose.OVERLAPPING and rules.overlapping_void:
            return void(VoidReason.OVERLAPPING, f"{where(d)} overlaps another die ({rules.source})")
    for d in dice:
        if d.lie is Pose.COCKED and rules.cocked_void:
            return void(VoidReason.COCKED, f"{where(d)} is cocked on an edge ({rules.source})")
    if rules.must_pass_middle and calibration is not None and calibration.layout.middle is not None:
        # Where the dice went does not depend on their values: a throw that did not pass is void
        # whatever the reader makes of the faces.
        ok, why = passed_middle(reading, track, calibration)
        if ok is None:  # short of the middle, and a wall hit the frames cannot vouch for: the dealer's call
            return void(VoidReason.UNCERTAIN, f"{why} ({rules.source})")
        if not ok:
            return void(VoidReason.NOT_PAST_MIDDLE, f"{why} ({rules.source})")
    if reading.unmatched:  # frames of the resting dice disagree on what lies there (at_rest.agree)
        d = reading.unmatched[0]
        return void(VoidReason.UNCERTAIN, f"{where(d)}: found in some frames of the dice at rest only")
    held = at_held_object(reading)
    if held is not None:
        thing, b = held
        at = f"({b.x:.0f}, {b.y:.0f}) px"
        if rules.foreign_object_void and isinstance(thing, Die):
            return void(VoidReason.FOREIGN_OBJECT, f"{where(thing)} lies on something that is not a die, which the "
                                                   f"empty-table model holds at {at} (Portugal 1995 IV.8(a) (004))")
        return void(VoidReason.UNCERTAIN, f"something at ({thing.x:.0f}, {thing.y:.0f}) px lies where the empty-table "
                                          f"model holds an object, at {at} (a chip lying there between throws? a die "
                                          "left lying?): the reader cannot tell what lies there now")
    blurred = next((d for d in dice if d.declined == "blurred"), None)
    if blurred is not None:  # the camera's image is blurred (vision/blur_check.py): its count is no surer than its dice
        return not_read(blurred)
    if rules.n_dice and len(dice) != rules.n_dice:
        return void(VoidReason.WRONG_COUNT, f"{len(dice)} dice seen, {rules.game} throws {rules.n_dice}")
    touched = touching_object(reading) if rules.foreign_object_void else None
    if touched is not None:
        d, b = touched
        return void(VoidReason.FOREIGN_OBJECT, f"{where(d)} touches something that is not a die at "
                                               f"({b.x:.0f}, {b.y:.0f}) px (Portugal 1995 IV.8(a) (004))")
    for d in dice:
        if not d.is_read:
            return not_read(d)
    values = tuple(d.value for d in dice)
    notes = [f"die {i + 1} {d.lie.value}: most exposed face {d.value}" for i, d in enumerate(dice)
             if d.lie in (Pose.COCKED, Pose.OVERLAPPING)]
    return Verdict(True, None, values, "; ".join(notes) or "every die flat and read")
