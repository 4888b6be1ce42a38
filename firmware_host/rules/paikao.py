"""P'ai Kao dice: four dice pick the seat that receives the first stack (Macau, Art. 1.2-1.5).

The total of the four dice counts the seats starting from the banker, who counts as one;
dealing then goes from right to left and all eight seats always receive four tiles (Art. 1.4).
Seats are numbered 0 (the banker) to 7 in dealing order, right to left from the banker.
"""

from __future__ import annotations

from .dice import BadThrow

SEATS = 8


def first_seat(faces: tuple[int, ...] | list[int], seats: int = SEATS) -> int:
    """The seat (0 = banker) that receives the first stack for these four dice."""
    if len(faces) != 4 or any(isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6 for f in faces):
        raise BadThrow(f"P'ai Kao is decided by four dice showing 1 to 6, got {list(faces)}")
    return (sum(faces) - 1) % seats


def dealing_order(faces: tuple[int, ...] | list[int], seats: int = SEATS) -> list[int]:
    """Seats in the order the stacks are dealt: the first seat, then right to left round the table."""
    first = first_seat(faces, seats)
    return [(first + i) % seats for i in range(seats)]
