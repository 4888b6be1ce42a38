"""Dice outcomes: every ordered set of faces for n dice, indexed so tables can be read by number."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from .errors import RulesError


class BadThrow(RulesError, ValueError):
    """Faces that are not a throw of this game's dice."""


@lru_cache(maxsize=None)
def all_faces(n_dice: int) -> np.ndarray:
    """Every outcome of n dice as rows of faces 1–6, in the order of `outcome_index` (6**n rows)."""
    rows = list(itertools.product(range(1, 7), repeat=n_dice))
    table = np.array(rows, dtype=np.int8).reshape(len(rows), n_dice)
    table.setflags(write=False)
    return table


def outcome_index(faces: tuple[int, ...] | list[int], n_dice: int) -> int:
    """The row of `all_faces(n_dice)` for these faces; refuses anything that is not n faces 1–6."""
    if len(faces) != n_dice:
        raise BadThrow(f"a throw has {n_dice} dice, got {len(faces)} faces: {list(faces)}")
    index = 0
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, (int, np.integer)) or not 1 <= face <= 6:
            raise BadThrow(f"a die shows 1 to 6, got {face!r} in {list(faces)}")
        index = index * 6 + int(face) - 1
    return index
