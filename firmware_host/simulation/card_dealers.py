"""Simulated dealers of the card tables whose coups need decisions: blackjack (004 §V) and chemin de fer (§I).

The dealer deals from the simulated shoe through a rules-core validator of his own, as a trained
dealer follows the procedure; when it waits for a decision he makes a random legal one — what the
players (and, at chemin de fer, the banker) would say — and tells the table's console. Now and then he
slips, and waits until the table has settled it before dealing on:
- one card too many once the coup is complete (V.19; I.106): the supervisor confirms it is burned;
- blackjack: a card drawn while a player was still deciding (V.18): unseen, it goes to the next box
  that asks (`next_box`); turned, to the discard (`discard`);
- chemin de fer: a fault of I.104-106 he declares (chemin_de_fer_dealer.py), which the supervisor applies.
The supervisor is the simulation too: he turns the key switch on, confirms, and turns it off.
"""

from __future__ import annotations

import logging

from ..rounds.inputs import ConsoleCommand, SupervisorKey
from ..rules.bets import Bet
from .wheel_and_shoe import SimulatedShoe

log = logging.getLogger(__name__)

DEALER, SUPERVISOR = "sim-dealer", "sim-supervisor"


class SimulatedCardDealer(SimulatedShoe):
    """The shoe and a dealer who deals a coup card by card and decision by decision (see the module docstring)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.places: list[str] = []  # what the table said the next coup is dealt to
        self.coup_round = 0  # the round whose coup the dealer is dealing
        self.slip: str | None = None  # what the dealer did wrong: the table is held until it is settled
        self.finished = None  # the last coup the dealer saw complete

    # --- the devices interface -----------------------------------------------------------------
    def deal(self, round_no: int, attempt: int, places: list[str]) -> None:
        with self._hand:
            self.places = list(places)

    def react(self, phase: str, round_no: int, attempt: int) -> None:
        if phase == "betting":
            with self._hand:
                if self.model.finished:
                    self._change_unannounced_shoe()
        elif phase == "dealing":
            with self._hand:
                if self.model.finished:  # never raise into the engine
                    log.error("simulated shoe %d: its last coup was played; nothing dealt", self.number)
                    return
                if self.coup_round != round_no or self.coup is None or self.coup.is_void:
                    self._abandon()
                    opened = self.opening()
                    self.coup_no += 1
                    self.coup, self.coup_round = self.model_coup(opened), round_no
                    self.record.note(self.coup_no, open=opened)
                self.slip = None  # back to dealing: whatever was held is settled
                coup = self.coup
                if self.finished is coup:
                    return  # his coup is complete: nothing more to deal (the table re-reads it)
            self.later(lambda: self._deal(coup, round_no, attempt), 0.25)
        elif phase == "held":
            self.later(lambda: self.still("held", round_no) and self.settle_slip())
        elif phase == "preparing":
            self.later(self._new_shoe, 2)

    def settle_slip(self) -> None:
        """The table is held: the dealer answers for a V.18 card, the supervisor for anything else."""
        with self._hand:
            slip = self.slip
        if slip in ("next_box", "discard"):
            self.sink(ConsoleCommand(slip, who=DEALER, source="sim"))
        elif slip is None:  # the shoe went quiet (a slow machine): the dealer resumes the coup
            self.sink(ConsoleCommand("confirm", who=DEALER, why="dealing on", source="sim"))
        else:
            self.sink(SupervisorKey(True, who=SUPERVISOR))
            self.sink(ConsoleCommand("confirm", who=SUPERVISOR, why=f"settled as the text fixes ({slip})", source="sim"))
            self.sink(SupervisorKey(False, who=SUPERVISOR))

    # --- the coup ----------------------------------------------------------------------------------
    def opening(self) -> dict:
        """What the next coup is dealt to (the record's `open` line, and `model_coup`'s argument)."""
        return {}

    def replay_card(self, card: str, how: str) -> None:
        if how == "held":
            self.coup.hold(card)
        else:
            super().replay_card(card, how)

    def replay_line(self, line: dict) -> None:
        if "decision" in line:
            for decision in line["decision"]:
                self.coup.decide(**decision)
        elif "fault" in line:
            self.coup.fault(**line["fault"])

    def _deal(self, coup, round_no: int, attempt: int) -> None:
        with self._hand:
            if coup is not self.coup or self.slip is not None or not any(
                    self.still(phase, round_no) for phase in ("dealing", "confirming")):
                return
            due = coup.due()
            if due.complete and self.finished is coup:
                self.extra_card(coup)
                return
            if due.complete:
                again = self.complete(coup)
            elif due.decision is not None:
                again = self.decision(coup, due)
            else:
                again = self.card(coup)
            if again and coup.is_complete and self.finished is not coup:
                again = self.complete(coup)
        if again:
            self.later(lambda: self._deal(coup, round_no, attempt), 0.25)

    def complete(self, coup) -> bool:
        """The coup is complete: once per coup; True now and then, for one card too many."""
        self.finish(coup)
        return not coup.is_void and self.rng.random() < self.settings.void_rate

    def finish(self, coup) -> None:
        """The dealer's coup is over: nothing more is dealt into it, and the game follows its outcome (`completed`)."""
        self.finished = coup
        self.completed(coup)

    def card(self, coup) -> bool:
        """The next card to where it is due; False when the dealer stops (a slip, an empty shoe)."""
        card = self.next_card(coup)
        if card is None:
            return False
        coup.deal(card)
        self.hand_over(card, "dealt")
        return True

    def extra_card(self, coup) -> None:
        card = self.next_card(coup)
        if card is not None:
            coup.discard(card)
            self.slip = "extra"
            self.hand_over(card, "discarded")

    def decision(self, coup, due) -> bool:
        """Make the due decision (the game's `choose`) on the dealer's coup and tell the console."""
        action, decisions, play = self.choose(coup, due)
        for decision in decisions:
            coup.decide(**decision)
        self.record.note(self.coup_no, decision=decisions)
        self.sink(ConsoleCommand(action, who=DEALER, source="sim", play=play))
        return True

    def choose(self, coup, due) -> tuple[str, list[dict], dict | None]:
        """(console action, the rules core's decisions it stands for, the play's details)."""
        raise NotImplementedError

    def completed(self, coup) -> None:
        """The dealer's coup is complete (before the table settles it)."""


class SimulatedBlackjackDealer(SimulatedCardDealer):
    """Blackjack: box decisions drawn from a rough basic strategy, insurance box by box, V.18 slips."""

    devices = ("console", "shoe")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.asked = 0  # the box asked about insurance next

    def opening(self) -> dict:
        return {"boxes": [int(place.split()[1]) for place in self.places if place.startswith("box ")]}

    def model_coup(self, opened: dict):
        self.asked = 0
        boxes = opened.get("boxes") or [1]
        return self.rules.new_coup(self.model, [Bet(f"box{n}", "box", 2, f"p{n}", n) for n in boxes])

    def decision(self, coup, due) -> bool:
        if due.decision != "insurance" and self.rng.random() < self.settings.void_rate / 3:
            card = self.next_card(coup)  # V.18: a card nobody asked for
            if card is None:
                return False
            unseen = self.rng.random() < 0.8
            (coup.hold if unseen else coup.discard)(card)
            self.slip = "next_box" if unseen else "discard"
            self.hand_over(card, "held" if unseen else "discarded")
            return False
        return super().decision(coup, due)

    def choose(self, coup, due) -> tuple[str, list[dict], dict | None]:
        if due.decision == "insurance":
            box = coup.boxes[self.asked]
            roll = self.rng.random()
            if box.hands[0].is_blackjack and roll < 0.5:
                action, decisions = "even_money", [{"decision": "even_money", "box": box.number}]
            elif roll < 0.3:
                action, decisions = "insure", [{"decision": "insure", "ticket": f"box{box.number}", "amount": 1}]
            else:
                action, decisions = "no_insurance", []
            self.asked += 1
            if self.asked >= len(coup.boxes):
                decisions.append({"decision": "close_insurance"})
            return action, decisions, None
        box = coup.box(int(due.decision.split()[1]))
        i = next(k for k, hand in enumerate(box.hands) if not hand.finished)
        allowed, total = coup.allowed(box, i), box.hands[i].total
        weights = {"split": 0.5, "double": 0.4, "surrender": 0.05}
        play = next((p for p in ("split", "double", "surrender") if p in allowed and self.rng.random() < weights[p]),
                    None)
        if play is None:
            stand_chance = 0.9 if total >= 17 else 0.5
            play = "stand" if "stand" in allowed and (self.rng.random() < stand_chance or "hit" not in allowed) else "hit"
        return ("draw" if play == "hit" else play), [{"decision": play}], None
