"""Board grid layout: logical road columns placed on a board of six rows, with the dragon tail.

A column runs down from the top row. When it reaches the bottom row, or the cell below is
already taken (by an earlier tail), it turns right and runs along that row to its end: the
"dragon tail".
The next column starts one grid column right of where the previous one started; if a tail has
taken that top cell, it starts at the next free one.
"""

from __future__ import annotations

ROWS = 6


def dragon_tail_layout(lengths: list[int], rows: int = ROWS) -> list[tuple[int, int]]:
    """(x, y) board positions of every cell, column after column, top to bottom."""
    if rows < 1:
        raise ValueError(f"a board has at least one row, got {rows}")
    taken: set[tuple[int, int]] = set()
    positions: list[tuple[int, int]] = []
    start = -1
    for length in lengths:
        start += 1
        while (start, 0) in taken:
            start += 1
        x, y, turned = start, 0, False
        for i in range(length):
            if i:
                if not turned and y + 1 < rows and (x, y + 1) not in taken:
                    y += 1
                else:  # once turned, the tail runs right along its row
                    turned = True
                    x += 1
                    while (x, y) in taken:
                        x += 1
            taken.add((x, y))
            positions.append((x, y))
    return positions


def bead_plate_layout(count: int, rows: int = ROWS) -> list[tuple[int, int]]:
    """(x, y) of each coup on the bead plate: down each column of `rows`, then the next column."""
    return [(i // rows, i % rows) for i in range(count)]
