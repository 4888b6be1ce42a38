"""What every card table shares: the shoe from shuffle to its last coup, the cards journalled one by one.

A `ShoeFamily` follows the scanner's shoe (004 §I.13-14, II.4-7, V.8-11): every card out of it is
journalled (`card` records) and checkpointed, a card between coups goes to the discard and counts as
out of the shoe, the cut card announces the last coup, and after it the table waits (`preparing`)
for a new shoe. A coup interrupted by a restart, or that went quiet, cannot be vouched for: it is
voided and its stakes returned. Punto banco (table_families.py), blackjack (blackjack_table.py) and
chemin de fer (chemin_de_fer_table.py) add their coup.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from ..rules.cards import parse_card
from ..rules.misdeal import Misdeal, Remedy
from .families import Family
from .inputs import CardSeen, CutCardSeen, Phase, ShoeLoaded

log = logging.getLogger(__name__)


class ShoeFamily(Family):
    """The shoe's part of a card table; subclasses deal the coup (`card`) and rebuild it (`restore_state`)."""

    play_phase = Phase.DEALING
    dealing_phases = (Phase.DEALING, Phase.CONFIRMING)  # a card then belongs to the coup (one too many when complete)

    def __init__(self, engine, rules, book) -> None:
        super().__init__(engine, book)
        self.rules = rules
        self.shoe = rules.new_shoe()
        self.shoe_number = 1
        self.coup = None

    def state_view(self) -> dict[str, Any]:
        view = {"shoe": self.shoe_number, "cards_left": self.shoe.cards_left, "last_coup": self.shoe.last_coup}
        if self.coup is not None and self.engine.phase in (Phase.DEALING, Phase.HELD):
            view["due"] = self.coup.due().view()
        return view

    def state_data(self) -> Any:
        return {"shoe": self.shoe_number}

    def shoe_start(self):
        """The journal's record of the shoe in play (None: the first shoe); sets its number."""
        start = self.engine.journal.last_record(("shoe",))
        self.shoe = self.rules.new_shoe()
        if start is not None:
            self.shoe_number = start.data()["shoe"]
        return start

    # --- cards ---------------------------------------------------------------------------------
    def handle(self, item: Any) -> None:
        engine = self.engine
        if isinstance(item, CardSeen) and engine.phase in self.dealing_phases:
            self.card(item)  # while confirming, the coup is complete: any card is one too many
        elif isinstance(item, CutCardSeen):
            if self.coup is not None and engine.phase in (Phase.DEALING, Phase.HELD):
                self.coup.cut_card()
            else:
                self.shoe.cut_card()
            self.journal_card({"action": "cut", "after": item.after_position})
            engine.event("last_coup", {"after_position": item.after_position})
        elif isinstance(item, ShoeLoaded):
            self.new_shoe()
        elif isinstance(item, CardSeen):
            self.stray_card(item)
        else:
            super().handle(item)

    def card(self, item: CardSeen) -> None:
        raise NotImplementedError

    def deal_card(self, item: CardSeen) -> bool:
        """The card into the coup, journalled (True); or the misdeal it is, handled by `misdeal` (False)."""
        try:
            self.coup.deal(item.card)
        except Misdeal as misdeal:
            self.misdeal(item, misdeal)
            return False
        self.journal_card({"action": "dealt", "card": item.card, "position": item.position})
        return True

    def misdeal(self, item: CardSeen, misdeal: Misdeal) -> None:
        raise NotImplementedError

    def misdeal_announced(self, item: CardSeen, misdeal: Misdeal) -> dict | None:
        """Log a misdeal; one that cannot be corrected (or a coup already void) voids the round at once
        (None). Otherwise the event detail the held table announces."""
        engine = self.engine
        detail = {"kind": misdeal.kind.value, "card": item.card, "remedy": misdeal.remedy.value,
                  "article": misdeal.article, "message": misdeal.message}
        log.warning("round %d misdeal: %s", engine.round, misdeal)
        if misdeal.remedy is Remedy.VOID_COUP or self.coup.is_void:
            self.journal_card({"action": "void", "card": item.card, "position": item.position})
            engine.event("misdeal", detail)
            engine.void_round(f"misdeal: {misdeal.kind.value}")
            return None
        return detail

    def journal_card(self, data: dict, txn=None) -> None:
        """A card (or a decision) of the coup: journalled with the state, then checkpointed."""
        if txn is None:
            with self.engine.journal.transaction() as own:
                self.journal_card(data, own)
            self.engine.checkpoint("card", self.engine.round)  # a crash with part of the coup out of the shoe
            return
        txn.record("card", data, round=self.engine.round)
        self.engine.publish_state(txn)

    def stray_card(self, item: CardSeen) -> None:
        """A card out of the shoe between coups: it goes to the discard (and counts as out of the shoe)."""
        engine = self.engine
        log.warning("card %s out of the shoe while %s: not part of a coup, discarded", item.card, engine.phase.value)
        try:
            self.shoe.take(parse_card(item.card), self.shoe.rules.article)
        except Misdeal as exc:
            engine.event("misdeal", {"kind": exc.kind.value, "card": item.card, "message": exc.message})
            return
        self.journal_card({"action": "discarded", "card": item.card, "position": item.position})
        engine.event("misdeal", {"kind": "card_not_due", "card": item.card, "phase": engine.phase.value,
                                 "remedy": "burn_card"})

    def save_coup_log(self, data: dict) -> Any:
        """The scanner's log of this coup, card by card, as the round's evidence (None without a store)."""
        engine = self.engine
        if engine.evidence is None:
            return None
        body = {"shoe": self.shoe_number, "round": engine.round, **data,
                "burned": [str(c) for c in self.coup.burned], "discarded": [str(c) for c in self.coup.discarded]}
        return engine.evidence.save(f"{self.game}-{engine.round:08d}-{engine.attempt}.json", json.dumps(body).encode())

    # --- the coup's end ------------------------------------------------------------------------
    def dealer_void(self, who: str | None, why: str | None) -> None:
        if self.coup is not None and not self.coup.is_void:
            self.coup.void(why or "dealer void", "dealer console")
        self.engine.void_round("dealer_void", who=who, why=why)

    def reading_overdue(self) -> None:
        self.engine.set_phase(Phase.HELD, event="device", detail={"device": "shoe", "message": "no card in time"})

    def interrupted(self) -> str:
        return "void_round"  # cards dealt while the controller was down cannot be vouched for

    def settle(self, coup) -> list:
        return self.book.settle_with(self.rules.settle(coup, self.book.bets()))

    # --- shoes -------------------------------------------------------------------------------
    def round_finished(self) -> None:
        self.coup = None
        if self.shoe.finished and self.engine.wants_more_rounds():
            self.engine.set_phase(Phase.PREPARING, event="shoe_finished", detail={"shoe": self.shoe_number})
        else:
            super().round_finished()

    def new_shoe(self) -> None:
        self.shoe = self.rules.new_shoe()
        self.shoe_number += 1
        with self.engine.journal.transaction() as txn:
            txn.record("shoe", {"shoe": self.shoe_number}, round=self.engine.round or None)
            self.engine.event("new_shoe", {"shoe": self.shoe_number}, txn=txn)  # the boards start the shoe
        if self.engine.phase is Phase.PREPARING and self.engine.table_open:
            self.engine.open_round()
