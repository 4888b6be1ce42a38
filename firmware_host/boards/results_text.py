"""Results strings for `tablehw board`: baccarat coups, roulette numbers, dice faces.

- baccarat: one letter per coup, `B`, `P` or `T`, each optionally followed by `b` (banker pair)
  and/or `p` (player pair); spaces and commas between coups are ignored: `BPbTBbp P`.
- roulette: numbers 0-36 separated by commas, each optionally followed by the ball's direction
  `cw` or `ccw`: `32,15cw,19ccw`.
- dice: throws separated by commas, faces joined by `-`: `3-4,6-6` (two dice for craps, three for
  cussec and banca francesa, four for P'ai Kao).
Every error names the entry (its position, counted from 1) and what was wrong with it.
"""

from __future__ import annotations

import re

from ..errors import InputFileError
from .baccarat_roads import Coup
from .roulette_stats import Spin

_COUP = re.compile(r"([BPT])([bp]*)")
_SPIN = re.compile(r"^(\d{1,2})(cw|ccw)?$")
DICE = {"craps": 2, "cussec": 3, "banca_francesa": 3, "paikao": 4}


def parse_coups(text: str) -> list[Coup]:
    compact = re.sub(r"[\s,]", "", text)
    coups, pos = [], 0
    while pos < len(compact):
        match = _COUP.match(compact, pos)
        if not match:
            raise InputFileError(f"baccarat results: coup {len(coups) + 1}: expected B, P or T "
                                 f"(pairs as b/p after it), got {compact[pos]!r}")
        pairs = match.group(2)
        if len(set(pairs)) != len(pairs):
            raise InputFileError(f"baccarat results: coup {len(coups) + 1} ({match.group(0)}): a pair is marked twice")
        coups.append(Coup(match.group(1), banker_pair="b" in pairs, player_pair="p" in pairs))
        pos = match.end()
    return coups


def _entries(text: str, what: str) -> list[str]:
    entries = [e.strip() for e in text.split(",")]
    if entries == [""]:
        return []
    for i, e in enumerate(entries, 1):
        if not e:
            raise InputFileError(f"{what} results: entry {i} is empty")
    return entries


def parse_spins(text: str) -> list[Spin]:
    spins = []
    for i, entry in enumerate(_entries(text, "roulette"), 1):
        match = _SPIN.match(entry.lower())
        if not match or int(match.group(1)) > 36:
            raise InputFileError(f"roulette results: entry {i} ({entry!r}): expected a number 0-36, "
                                 f"optionally followed by cw or ccw")
        spins.append(Spin(int(match.group(1)), match.group(2)))
    return spins


def parse_faces(text: str, game: str) -> list[tuple[int, ...]]:
    n = DICE[game]
    throws = []
    for i, entry in enumerate(_entries(text, game), 1):
        faces = entry.split("-")
        if len(faces) != n or not all(f.strip() in {"1", "2", "3", "4", "5", "6"} for f in faces):
            example = "-".join(str(d) for d in range(1, n + 1))
            raise InputFileError(f"{game} results: entry {i} ({entry!r}): expected {n} faces 1-6 joined by '-', "
                                 f"like {example}")
        throws.append(tuple(int(f) for f in faces))
    return throws
