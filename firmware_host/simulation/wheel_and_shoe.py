"""Simulated roulette wheel and card shoe for `tablehw run --simulate`.

The wheel spins when the table is `spinning`, alternating the ball's direction (004 §X.15) and
now and then failing a launch (a no-spin, X.16). The shoe holds shuffled decks with the cut card
about 12 cards from the end; its dealer follows the tableau with a rules-core validator of its
own (as a trained dealer would), and now and then draws one card too many, which the table must
catch as a misdeal and hold until the dealer burns it. The shoe survives a controller restart
as a physical one does: the cards already drawn stay drawn (shoe_log.py).
"""

from __future__ import annotations

import json
import logging
import random
import threading
from typing import Any

from ..rounds.inputs import CardSeen, ConsoleCommand, CutCardSeen, ShoeLoaded, SpinSeen
from ..rules.cards import RANKS, SUITS
from .shoe_log import ShoeLog, ShoeRecord
from .table import SimulatedTable

log = logging.getLogger(__name__)


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
    """The card shoe and its dealer. The shoe's order and the cards out of it are kept in the storage
    folder (shoe_log.py), so a controller restart finds the shoe as it was, as a physical one is."""

    devices = ("console", "shoe")
    rules: Any = None  # the punto banco rule book (set by the wiring)

    def __init__(self, *args, seed: int = 1, **kwargs) -> None:
        super().__init__(*args, seed=seed, **kwargs)
        self.seed = seed
        self.record = ShoeLog(self.evidence.storage)
        self._hand = threading.Lock()  # the shoe and the dealer's coup: engine thread (phases) and timer thread (cards)
        self.coup: Any = None  # the coup the dealer is dealing (a rules-core validator over `model`)
        self.coup_no = 0  # the dealer's coup number in this shoe (groups the record's card lines by coup)

    def start(self, sink) -> None:
        with self._hand:
            found = self.record.read()
            if found is None:
                self.load(1)
            else:
                self._take_up(found)
                log.info("simulated shoe %d taken up again: %d cards out, last coup %d, cut card %s", self.number,
                         self.position, self.coup_no, "out" if self.cut_at < 0 else f"at {self.cut_at}")
        super().start(sink)

    def load(self, number: int) -> None:
        """Shuffle shoe `number` (its order follows from the seed and the number) and put it on the table."""
        cards = [f"{rank}{suit}" for _ in range(self.rules.shoe_rules.decks) for rank in RANKS for suit in SUITS]
        random.Random(f"tablehw-simulated-shoe:{self.seed}:{number}").shuffle(cards)
        cut_at = len(cards) - self.rules.shoe_rules.cut_from_end - self.rng.randint(0, 4)
        self.record.start(number, cards, cut_at)
        self._take_up(ShoeRecord(number, cards, cut_at))

    def _take_up(self, found: ShoeRecord) -> None:
        """The dealer's knowledge of the shoe: its cards, and every coup dealt from it replayed through the
        rules core (the last one, if the table stopped in the middle of it, is abandoned: void)."""
        self.number, self.cards, self.cut_at = found.shoe, found.cards, found.cut_at
        self.model = self.rules.new_shoe()
        self.coup, self.coup_no, self.position = None, 0, 0
        opened: dict[int, dict] = {}
        for line in found.out:
            if "open" in line:
                opened[line["coup"]] = line["open"]
                continue
            if self.coup is None or line["coup"] != self.coup_no:
                self._abandon()
                self.coup, self.coup_no = self.model_coup(opened.get(line["coup"], {})), line["coup"]
            if "cut" in line:
                self.coup.cut_card()
                self.cut_at = -1
            elif "card" in line:
                self.replay_card(line["card"], line["as"])
                self.position += 1
            else:
                self.replay_line(line)
        self._abandon()

    def model_coup(self, opened: dict):
        """The dealer's own validator for a coup (`opened`: what the coup's opening line recorded)."""
        return self.rules.new_coup(self.model)

    def replay_card(self, card: str, how: str) -> None:
        """A card the record says left the shoe: `dealt` to the coup or `discarded`."""
        if how == "discarded":
            self.coup.discard(card)
        else:
            self.coup.deal(card)

    def replay_line(self, line: dict) -> None:
        """A line of the record other than a card or the cut card (a decision, in the games with some)."""

    def _abandon(self) -> None:
        """The coup in hand will not be finished (the table voided it, or restarted): its cards are discarded."""
        if self.coup is not None and not self.coup.is_void and not self.coup.is_complete:
            self.coup.void("abandoned: the table did not finish this coup", "simulated dealer")

    def react(self, phase: str, round_no: int, attempt: int) -> None:
        if phase == "betting":
            with self._hand:
                if self.model.finished:
                    self._change_unannounced_shoe()
        elif phase == "dealing":
            with self._hand:
                self._abandon()
                if self.model.finished:  # cannot follow a betting phase (see above); never raise into the engine
                    log.error("simulated shoe %d: its last coup was played; nothing dealt", self.number)
                    return
                self.coup = self.rules.new_coup(self.model)
                self.coup_no += 1
                coup = self.coup
            self.later(lambda: self._deal(coup, round_no, attempt), 0.25)
        elif phase == "held":
            self.later(lambda: self.still("held", round_no) and self.sink(
                ConsoleCommand("confirm", who="sim-dealer", why="extra card burned", source="sim")))
        elif phase == "preparing":
            self.later(self._new_shoe, 2)

    def _change_unannounced_shoe(self) -> None:
        """The table opened a round on a shoe whose last coup was played: the cut card came out while the
        controller was down, so it never heard of it. The dealer changes the shoe and says so on the console."""
        log.warning("simulated shoe %d is finished but the table opened a round: the dealer changes the shoe",
                    self.number)
        self.load(self.number + 1)
        self.sink(ConsoleCommand("new_shoe", who="sim-dealer", source="sim",
                                 why="the cut card came out while the controller was down"))

    def _new_shoe(self) -> None:
        with self._hand:
            self.load(self.number + 1)
        self.sink(ShoeLoaded())

    def _deal(self, coup, round_no: int, attempt: int) -> None:
        with self._hand:
            if coup is not self.coup or not any(self.still(phase, round_no) for phase in ("dealing", "held", "confirming")):
                return
            card = self.next_card(coup)
            if card is None:
                return
            extra = coup.is_complete  # one card too many (a dealing slip): the table must catch it
            if extra:
                coup.discard(card)
            else:
                coup.deal(card)
            self.hand_over(card, "discarded" if extra else "dealt")
            again = not extra and (not coup.is_complete or self.rng.random() < self.settings.void_rate)
        if again:
            self.later(lambda: self._deal(coup, round_no, attempt), 0.25)

    def next_card(self, coup) -> str | None:
        """The next card in the shoe, the cut card first when it comes out (None: the shoe is empty)."""
        if self.position >= len(self.cards):
            log.error("simulated shoe %d is empty", self.number)
            return None
        if self.position == self.cut_at:
            self.cut_at = -1
            coup.cut_card()
            self.record.cut(self.coup_no, self.position)
            self.sink(CutCardSeen(self.position))
        return self.cards[self.position]

    def hand_over(self, card: str, how: str) -> None:
        """The card leaves the shoe (recorded first, as a physical card is out before it is seen), then the
        scanner reports it."""
        self.record.card(self.coup_no, card, how)
        self.position += 1
        self.sink(CardSeen(card, self.position))
