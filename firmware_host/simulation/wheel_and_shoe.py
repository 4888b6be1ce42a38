"""Simulated roulette wheel and card shoe for `tablehw run --simulate`.

The wheel spins when the table is `spinning`, alternating the ball's direction (004 §X.15) and
now and then failing a launch (a no-spin, X.16). The shoe holds shuffled decks with the cut card
about 12 cards from the end; its dealer follows the tableau with a rules-core validator of its
own (as a trained dealer would), and now and then draws one card too many, which the table must
catch as a misdeal and hold until the dealer burns it.
"""

from __future__ import annotations

import json
from typing import Any

from ..rounds.inputs import CardSeen, ConsoleCommand, CutCardSeen, ShoeLoaded, SpinSeen
from ..rules.cards import RANKS, SUITS
from .table import SimulatedTable


class SimulatedWheel(SimulatedTable):
    devices = ("console", "wheel")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.direction = "cw"
        self.spins = 0

    def react(self, phase: str, round_no: int, attempt: int) -> None:
        if phase == "spinning":
            self.later(lambda: self.still("spinning", round_no, attempt) and self.sink(self.spin(round_no, attempt)))

    def spin(self, round_no: int, attempt: int) -> SpinSeen:
        self.spins += 1
        self.direction = "ccw" if self.direction == "cw" else "cw"
        number = self.rng.randint(0, 36)
        void = "no_spin" if self.rng.random() < self.settings.void_rate else None
        log = {"wheel": "simulated", "spin": self.spins, "round": round_no, "attempt": attempt,
               "ball_direction": self.direction, "number": None if void else number, "fault": void}
        evidence = self.evidence.save(f"roulette-{round_no:08d}-{attempt}.json", json.dumps(log).encode())
        return SpinSeen(None if void else number, self.direction, void, evidence)


class SimulatedShoe(SimulatedTable):
    devices = ("console", "shoe")
    rules: Any = None  # the punto banco rule book (set by the wiring)

    def load(self) -> None:
        cards = [f"{rank}{suit}" for _ in range(self.rules.shoe_rules.decks) for rank in RANKS for suit in SUITS]
        self.rng.shuffle(cards)
        self.cards = cards
        self.position = 0
        self.cut_at = len(cards) - self.rules.shoe_rules.cut_from_end - self.rng.randint(0, 4)
        self.model = self.rules.new_shoe()

    def react(self, phase: str, round_no: int, attempt: int) -> None:
        if phase == "dealing":
            if not hasattr(self, "model"):
                self.load()
            coup = self.rules.new_coup(self.model)
            self.later(lambda: self._deal(coup, round_no, attempt), 0.25)
        elif phase == "held":
            self.later(lambda: self.still("held", round_no) and self.sink(
                ConsoleCommand("confirm", who="sim-dealer", why="extra card burned", source="sim")))
        elif phase == "preparing":
            self.later(self._new_shoe, 2)

    def _new_shoe(self) -> None:
        self.load()
        self.sink(ShoeLoaded())

    def _deal(self, coup, round_no: int, attempt: int) -> None:
        if not any(self.still(phase, round_no) for phase in ("dealing", "held", "confirming")):
            return
        if self.position == self.cut_at:
            self.cut_at = -1
            coup.cut_card()
            self.sink(CutCardSeen(self.position))
        card = self.cards[self.position]
        self.position += 1
        if coup.is_complete:  # one card too many (a dealing slip): the table must catch it
            coup.discard(card)
            self.sink(CardSeen(card, self.position))
            return
        coup.deal(card)
        self.sink(CardSeen(card, self.position))
        if not coup.is_complete or self.rng.random() < self.settings.void_rate:
            self.later(lambda: self._deal(coup, round_no, attempt), 0.25)
