"""The simulated shoe's own record of itself: its cards in order and every card that has left it.

A real shoe does not reshuffle when the controller under the table dies: the cards already drawn
stay drawn, and the dealer remembers the coups dealt from it. The simulated shoe keeps that
physical state in `simulated-shoe.jsonl` in the table's storage folder (beside the journal), and
reads it back when the process starts again.

Why its own file and not the controller's journal: the simulator stands for the world outside
the controller. A shoe rebuilt from what the controller recorded would agree with the controller
by construction, and would hide the very thing the crash tests look for (a card out of the shoe
that the controller never recorded). So a card is written here, and fsynced, before it is handed
to the controller, as a physical card is out of the shoe before the scanner reports it.

Lines (JSON): first `{"shoe": N, "cards": [...], "cut_at": P}` (a shoe loaded: its order and where
the cut card sits), then one per card `{"coup": K, "card": "5C", "as": "dealt" | "discarded" | "held"}`,
`{"coup": K, "cut": P}` when the cut card comes out, and at the tables whose coups need decisions
`{"coup": K, "open": {...}}`, `{"coup": K, "decision": {...}}`, `{"coup": K, "fault": {...}}`. A torn last line (a kill during the
write) is a card that was never handed over: it is dropped.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputFileError

FILE_NAME = "simulated-shoe.jsonl"


@dataclass
class ShoeRecord:
    """What the file says: the shoe's number, its cards in order, the cut card's place, what left it."""

    shoe: int
    cards: list[str]
    cut_at: int
    out: list[dict] = field(default_factory=list)  # card and cut lines, in order

    @property
    def position(self) -> int:
        """How many cards have left the shoe."""
        return sum(1 for line in self.out if "card" in line)


class ShoeLog:
    """Appends to, and reads back, `<storage>/simulated-shoe.jsonl`."""

    def __init__(self, storage: Path) -> None:
        self.path = Path(storage) / FILE_NAME

    def read(self) -> ShoeRecord | None:
        """The shoe in the file, or None when there is none yet."""
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return None
        lines = text.split("\n")
        if not text.endswith("\n"):
            lines = lines[:-1]  # torn by a kill mid-write: that card never reached the controller
        entries = []
        for number, line in enumerate(lines, 1):
            if not line:
                continue
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputFileError(f"{self.path}: line {number} is not JSON ({exc.msg}); "
                                     "delete the file to start the simulated table on a new shoe") from None
        if not entries or not isinstance(entries[0].get("cards"), list):
            raise InputFileError(f"{self.path}: line 1 does not describe a shoe (shoe, cards, cut_at); "
                                 "delete the file to start the simulated table on a new shoe")
        head = entries[0]
        return ShoeRecord(head["shoe"], head["cards"], head["cut_at"], entries[1:])

    def start(self, shoe: int, cards: list[str], cut_at: int) -> None:
        """A new shoe is loaded: the file is replaced (atomically) by its first line."""
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as handle:
            handle.write(json.dumps({"shoe": shoe, "cards": cards, "cut_at": cut_at}) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
        folder = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def card(self, coup: int, card: str, how: str) -> None:
        """A card left the shoe (`how`: dealt to the coup, or discarded as one too many)."""
        self._append({"coup": coup, "card": card, "as": how})

    def cut(self, coup: int, position: int) -> None:
        """The cut card came out after `position` cards."""
        self._append({"coup": coup, "cut": position})

    def note(self, coup: int, **entry) -> None:
        """What else the dealer did in a coup: `open` (the places dealt), a `decision`, a `fault`."""
        self._append({"coup": coup, **entry})

    def _append(self, entry: dict) -> None:
        with open(self.path, "a") as handle:
            handle.write(json.dumps(entry) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
