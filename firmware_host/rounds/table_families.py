"""Roulette and punto banco rounds: the wheel's spins and the shoe's cards through the rules core.

Roulette (004 §IX, X): after "no more bets" the ball is spinning; the wheel reports the number
and the ball's direction. A no-spin or void spin (X.16) is announced, the ball goes back on the
previous number and the wheel spins again with the bets as they are; the ball must alternate
direction (X.15), checked here as well as by the wheel. A valid spin that went the same way as the
last result (a relaunch between them went the other way) is a supervisor notice on `events`.

Punto banco (004 §II, III): every card out of the shoe goes through the rules core's dealing
validator. A misdeal is announced and the table is held until the dealer corrects it (confirm)
or voids the coup; one that cannot be corrected voids the coup (stakes returned). The cut card
announces the last coup; after it the table waits for a new shoe. The shoe is rebuilt after a
restart by replaying the journalled cards.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from ..rules.misdeal import Misdeal, Remedy
from ..rules.punto_banco_deal import baccarat_result
from ..rules.cards import parse_card
from ..rules.roulette import RouletteBet, spin_view
from .books import LayoutBook
from .families import Family
from .inputs import CardSeen, Phase, SpinSeen
from .shoe_family import ShoeFamily

log = logging.getLogger(__name__)


class RouletteFamily(Family):
    game = "roulette"
    play_phase = Phase.SPINNING

    def __init__(self, engine, rules) -> None:
        super().__init__(engine, LayoutBook(rules, RouletteBet))
        self.rules = rules
        self.last_number: int | None = None
        self.last_direction: str | None = None
        self.last_result_direction: str | None = None

    def state_view(self) -> dict[str, Any]:
        return {"wheel": self.rules.wheel_name, "last_number": self.last_number, "last_direction": self.last_direction}

    def state_data(self) -> Any:
        return {"last_number": self.last_number, "last_direction": self.last_direction,
                "last_result_direction": self.last_result_direction}

    def restore_state(self, data: Any) -> None:
        if isinstance(data, dict):
            self.last_number, self.last_direction = data.get("last_number"), data.get("last_direction")
            self.last_result_direction = data.get("last_result_direction")

    def betting_closed(self) -> None:
        self.engine.expect_reading(Phase.SPINNING)

    def handle(self, item: Any) -> None:
        if isinstance(item, SpinSeen):
            if self.engine.phase is Phase.SPINNING:
                self.seen(item)
            else:
                log.warning("a spin result arrived while %s: ignored", self.engine.phase.value)
        else:
            super().handle(item)

    def seen(self, item: SpinSeen) -> None:
        back_on = {"ball_back_on": self.last_number}  # X.16: the ball goes back on the previous number
        reason = item.void_reason
        if reason is None and (item.number is None or not 0 <= item.number <= 36):
            reason = "ball_not_detected"
        if reason is None and item.direction and item.direction == self.last_direction:
            reason = "direction_not_alternated"  # X.15
        if item.direction and reason != "direction_not_alternated":
            self.last_direction = item.direction
        if reason == "spin_missed":
            self.last_direction = None  # the missed spin's direction is unknown: the wheel's driver checks it
        if reason:
            self.engine.reading(None, {}, void_reason=reason, evidence=item.evidence, detail=back_on)
            return
        if item.direction and item.direction == self.last_result_direction:
            self.engine.event("direction_not_alternated", {"direction": item.direction, "attempt": self.engine.attempt})
        fields = {"number": item.number, "outcome": {**spin_view(item.number), "direction": item.direction}}
        self.engine.reading((item.number, item.direction), fields, evidence=item.evidence)

    def attempt_voided(self, reason: str) -> None:
        super().attempt_voided(reason)
        self.engine.expect_reading(Phase.SPINNING)

    def settle(self, outcome: tuple[int, str | None]) -> list:
        number, direction = outcome
        self.last_number, self.last_result_direction = number, direction
        return self.book.settle_with(self.rules.settle(number, self.book.bets()))

    def outcome_from(self, fields: dict) -> Any:
        return (fields["number"], fields.get("outcome", {}).get("direction")) if "number" in fields else None

    def manual_outcome(self, result: dict) -> tuple[Any, dict]:
        number = result.get("number")
        if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 36:
            raise ValueError(f"a roulette result is a number 0 to 36, got {number!r}")
        return (number, None), {"number": number, "outcome": {**spin_view(number), "direction": None}}


@dataclass(frozen=True)
class JournalledCoup:
    """A finished coup rebuilt from its journalled result (after a restart), enough to settle it."""

    winner: str
    is_void: bool = False

    def result(self) -> JournalledCoup:
        return self


class BaccaratFamily(ShoeFamily):
    game = "punto_banco"

    def __init__(self, engine, rules) -> None:
        super().__init__(engine, rules, LayoutBook(rules))
        self.held: tuple[Any, Misdeal] | None = None

    def restore_state(self, data: Any) -> None:
        """Rebuild the shoe: replay every journalled card since the shoe was loaded."""
        if isinstance(data, dict):
            self.shoe_number = data.get("shoe", 1)
        shoe_start = self.shoe_start()
        coup, coup_round = None, None
        for record in self.engine.journal.records(kind="card", after=shoe_start.seq if shoe_start else 0):
            data = record.data()
            if coup is None or record.round != coup_round:
                if coup is not None and not coup.is_void and not coup.is_complete:
                    coup.void("interrupted by a restart", "recovery")
                coup, coup_round = self.rules.new_coup(self.shoe), record.round
            action = data["action"]
            if action == "dealt":
                coup.deal(data["card"], data.get("to"))
            elif action == "discarded":
                coup.discard(data["card"])
            elif action == "cut":
                coup.cut_card()
        if coup is not None and not coup.is_void and not coup.is_complete:
            coup.void("interrupted by a restart", "recovery")

    # --- the coup ----------------------------------------------------------------------------
    def betting_closed(self) -> None:
        self.coup = self.rules.new_coup(self.shoe)
        self.held = None
        self.engine.expect_reading(Phase.DEALING)

    def card(self, item: CardSeen) -> None:
        if self.deal_card(item):
            self._maybe_complete()

    def misdeal(self, item: CardSeen, misdeal: Misdeal) -> None:
        detail = self.misdeal_announced(item, misdeal)
        if detail is None:
            return
        self.held = (item, misdeal)
        self.engine.set_phase(Phase.HELD, event="misdeal", detail=detail)

    def confirm_held(self) -> None:
        """The dealer's confirm on a held coup: a misdeal corrected (the card goes where it was due, or
        to the discard); or, when the table was held because the shoe went quiet, the coup resumes and
        its cards are awaited again (the dealer may void it instead)."""
        if self.held is None:
            self.engine.event("dealing_resumed", {"reason": "no card in time"})
            self.engine.expect_reading(Phase.DEALING)
            return
        item, misdeal = self.held
        self.held = None
        if misdeal.remedy is Remedy.BURN_CARD:
            self.coup.discard(item.card)
            self.journal_card({"action": "discarded", "card": item.card, "position": item.position})
        else:
            self.coup.deal(item.card, misdeal.due.to if misdeal.due else None)
            self.journal_card({"action": "dealt", "card": item.card, "position": item.position,
                               "to": misdeal.due.to if misdeal.due else None})
        if self.engine.pending is not None:  # the coup was complete and waiting for the dealer's confirm
            self.engine.set_phase(Phase.CONFIRMING, event="misdeal_corrected", detail={"card": item.card})
            return
        self.engine.set_phase(Phase.DEALING, event="misdeal_corrected", detail={"card": item.card})
        self._maybe_complete()

    def _maybe_complete(self) -> None:
        if not self.coup.is_complete:
            return
        result = self.coup.result()
        view = result.view()
        cards = {"player": view.pop("player"), "banker": view.pop("banker")}
        evidence = self.save_coup_log({"cards": cards})
        self.engine.reading(self.coup, {"cards": cards, "outcome": view}, evidence=evidence)

    def outcome_from(self, fields: dict) -> Any:
        winner = fields.get("outcome", {}).get("winner")
        return JournalledCoup(winner) if winner else None

    def manual_outcome(self, result: dict) -> tuple[Any, dict]:
        cards = result.get("cards") or {}
        try:
            player = [parse_card(c) for c in cards.get("player", [])]
            banker = [parse_card(c) for c in cards.get("banker", [])]
        except Misdeal as exc:
            raise ValueError(exc.message) from None
        if not 2 <= len(player) <= 3 or not 2 <= len(banker) <= 3:
            raise ValueError("a coup has two or three cards for the player and for the banker")
        view = baccarat_result(player, banker).view()
        fields = {"cards": {"player": view.pop("player"), "banker": view.pop("banker")}, "outcome": view}
        return JournalledCoup(view["winner"]), fields
