"""Simulated P'ai Kao bowl and tile reveals for `tablehw run --simulate` (seed 002, Macau 1985).

After "no more bets" the dealer shakes the bowl and lifts the lid; the camera reads the four dice
(now and then overlapping or one out of the bowl: shaken again, Art. 1.5). Once the table announces
the first seat and waits for the tiles, the dealer deals the 32 shuffled tiles in stacks of four in
the dealing order and, seat by seat as each is opened (the banker last), enters its tiles at the
console as the two pairs the seat set (a tile now and then turned face up in the deal, Art. 2.2; two
now and then: that seat is out, 2.3).
Now and then the dealer slips on the keypad ("6-7", no tile): the table refuses the entry and the
dealer enters the seat again.
"""

from __future__ import annotations

import logging
from typing import Any

from ..rounds.inputs import ConsoleCommand, DiceSeen
from ..rules.paikao_tiles import SET
from .table import DICE_VOIDS, SimulatedDiceTable

log = logging.getLogger(__name__)


class SimulatedBowl(SimulatedDiceTable):
    devices = ("console", "camera")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.stacks: dict[int, list[str]] = {}
        self.queue: list[tuple[int, dict]] = []

    def camera(self, round_no: int, attempt: int) -> DiceSeen:
        """The four dice in the bowl (no rendered bowl exists: random faces, whatever `camera` says)."""
        void = self.rng.choice(DICE_VOIDS["paikao"]) if self.rng.random() < self.settings.void_rate else None
        return self.seen(round_no, attempt, tuple(self.rng.randint(1, 6) for _ in range(4)), void)

    def react(self, phase: str, round_no: int, attempt: int) -> None:
        super().react(phase, round_no, attempt)
        if phase == "dealing" and not self.queue:
            self.deal(round_no)
        elif phase == "held":
            self.later(lambda: self.still("held", round_no) and self.sink(
                ConsoleCommand("confirm", who="sim-dealer", why="tiles coming", source="sim")))
        if phase in ("dealing", "held"):
            self.later(lambda: self.enter_next(round_no), 0.25)
        elif phase in ("betting", "no_more_bets"):
            self.queue = []

    def deal(self, round_no: int) -> None:
        """Shuffle the 32 tiles and deal four to each seat; the seats are opened in a random order."""
        tiles = [str(tile) for tile, n in SET.items() for _ in range(n)]
        self.rng.shuffle(tiles)
        seats = list(range(8))
        self.stacks = {seat: tiles[4 * i:4 * i + 4] for i, seat in enumerate(seats)}
        opened = seats[1:]
        self.rng.shuffle(opened)
        self.queue = [(seat, self.entry(seat)) for seat in opened + [0]]  # the banker opens last (Art. 8.2)

    def entry(self, seat: int) -> dict[str, Any]:
        four = list(self.stacks[seat])
        self.rng.shuffle(four)
        roll = self.rng.random()  # turned face up in the deal (Art. 2.2); two put a player's seat out (2.3)
        rate = self.settings.void_rate
        face_up = four[:2] if seat and roll < rate / 4 else four[:1] if roll < rate else []
        return {"seat": seat, "pairs": [four[:2], four[2:]], "face_up": face_up}

    def enter_next(self, round_no: int) -> None:
        if not self.queue or not any(self.still(p, round_no) for p in ("dealing", "held")):
            return
        seat, entry = self.queue.pop(0)
        if self.rng.random() < self.settings.void_rate / 2:
            wrong = {**entry, "pairs": [["6-7", entry["pairs"][0][1]], entry["pairs"][1]]}
            self.sink(ConsoleCommand("tiles", who="sim-dealer", source="sim", tiles=wrong))  # a key slip: refused
        self.sink(ConsoleCommand("tiles", who="sim-dealer", source="sim", tiles=entry))
        if self.queue:
            self.later(lambda: self.enter_next(round_no), 0.25)
