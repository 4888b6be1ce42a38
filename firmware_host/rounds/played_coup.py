"""Card tables whose coup needs the console (blackjack, chemin de fer): plays, held misdeals, the supervisor.

The shoe's scanner tells the cards; the console tells what cards cannot (a player's "card" or "no
card", a double, a banco, a fault). Each play is checked by the rules core, journalled as a `card`
record beside the cards (so a restart rebuilds the shoe, and a complete coup, exactly), and the
state published. A card the procedure does not allow is a misdeal: the table is held (`held`) with
the card out of the shoe but not in the coup, and nothing settles until it is resolved:
- a card drawn against a player's wish, still face down, goes to the next box that asks (blackjack
  V.18: the dealer's `next_box`; `discard` when it was turned);
- any other misdeal, and every chemin de fer fault, is resolved by a supervisor — a supervisor's
  broker user, or the console with the supervisor key on — whose `confirm` applies what the
  regulation fixes, or voided (every stake returned). A fault is declared by the dealer, checked at
  once against the coup, and held for the supervisor with its article and remedy.
A misdeal that cannot be corrected (a card foreign to the shoe) voids the coup at once.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field
from typing import Any

from ..rules.cards import parse_card
from ..rules.errors import RulesError
from ..rules.misdeal import Misdeal, Remedy
from .inputs import CardSeen, ConsoleCommand, Phase
from .shoe_family import ShoeFamily

log = logging.getLogger(__name__)

NOT_NOW = "not_allowed_now"


@dataclass
class Held:
    """Why the coup is held: the cards out of the shoe it has not taken, the first one's misdeal, and a
    fault the dealer declared (waiting for the supervisor); all empty when the shoe went quiet."""

    cards: list[CardSeen] = field(default_factory=list)
    misdeal: Misdeal | None = None
    fault: dict | None = None

    def view(self) -> dict:
        out: dict[str, Any] = {"cards": len(self.cards)}
        if self.misdeal is not None:
            out.update(kind=self.misdeal.kind.value, remedy=self.misdeal.remedy.value, article=self.misdeal.article)
        if self.fault is not None:
            out["fault"] = self.fault
        return out


def by_supervisor(engine, command: ConsoleCommand) -> bool:
    """A supervisor's act: a broker user of `[access] supervisors`, or a console with the supervisor key on."""
    if command.source == "mqtt":
        return command.who in engine.settings.access.supervisors
    return engine.supervisor_key


class PlayedCoupFamily(ShoeFamily):
    """The common part of blackjack and chemin de fer tables (see the module docstring)."""

    plays: tuple[str, ...] = ()  # the play actions this game takes at its console
    dealing_phases = (Phase.DEALING, Phase.CONFIRMING, Phase.HELD)

    def __init__(self, engine, rules, book) -> None:
        super().__init__(engine, rules, book)
        self.held: Held | None = None
        self.replayed: tuple[Any, int | None] = (None, None)  # the last coup rebuilt at start, and its round

    # --- the coup starts ---------------------------------------------------------------------------
    def betting_closed(self) -> None:
        self.held = None
        opened = self.open_coup()
        if opened is None:
            return
        self.engine.devices.deal(self.engine.round, self.engine.attempt, opened.pop("places"))
        with self.engine.journal.transaction() as txn:
            self.journal_card({"action": "coup", **opened}, txn)
        self.engine.expect_reading(Phase.DEALING)

    def open_coup(self) -> dict | None:
        """Make `self.coup` for the bets on the layout and return what rebuilds it (`new_coup`) with its
        `places` (for the dealer); None when there is nothing to deal (the round was voided)."""
        raise NotImplementedError

    def new_coup(self, opened: dict):
        """The coup a journalled `coup` record describes, on `self.shoe`."""
        raise NotImplementedError

    # --- cards ----------------------------------------------------------------------------------------
    def card(self, item: CardSeen) -> None:
        if self.held is not None:
            self.held.cards.append(item)  # out of the shoe while held: the supervisor decides what it was
            self.engine.event("misdeal", {"kind": "card_while_held", "card": item.card, "held": len(self.held.cards)})
            return
        if self.deal_card(item):
            self.maybe_complete()

    def misdeal(self, item: CardSeen, misdeal: Misdeal) -> None:
        engine = self.engine
        detail = self.misdeal_announced(item, misdeal)
        if detail is None:
            return
        if engine.pending is not None:  # complete, waiting for the dealer's confirm: not settled until resolved
            engine.pending = None
        self.held = Held([item], misdeal)
        engine.set_phase(Phase.HELD, event="misdeal", detail=detail)

    def maybe_complete(self) -> None:
        if self.coup.is_complete:
            fields = self.result_fields()
            self.engine.reading(self.coup, fields, evidence=self.save_coup_log({"cards": fields["cards"]}))

    def result_fields(self) -> dict:
        """The result's `cards` and `outcome` (docs/mqtt.md) of the complete coup."""
        raise NotImplementedError

    def reading_overdue(self) -> None:
        self.held = Held()
        super().reading_overdue()

    # --- the console ------------------------------------------------------------------------------
    def console_problem(self, command: ConsoleCommand) -> tuple[str, str] | None:
        action, phase = command.action, self.engine.phase
        if action == "confirm" and phase is Phase.HELD:
            return self.confirm_problem(command)
        if action == "void" and phase is Phase.HELD and self.held and self.held.fault and not by_supervisor(
                self.engine, command):
            return NOT_NOW, "a fault is held for the supervisor: he applies it or voids the coup"
        if action not in self.plays:
            return super().console_problem(command)
        try:
            return self.play_problem(command)
        except RulesError as exc:
            return NOT_NOW, str(exc)

    def confirm_problem(self, command: ConsoleCommand) -> tuple[str, str] | None:
        held = self.held
        if held is None or (held.misdeal is None and held.fault is None):
            return None  # the shoe went quiet: the dealer resumes the coup
        if held.misdeal is not None and held.misdeal.remedy is Remedy.HOLD_FOR_NEXT and held.fault is None:
            return NOT_NOW, "a card drawn against the player's wish: next_box (unseen) or discard (turned), V.18"
        if not by_supervisor(self.engine, command):
            return NOT_NOW, "a misdeal or fault is resolved by a supervisor (supervisor key on, or a supervisor user)"
        if held.fault is not None:
            return None
        trial = copy.deepcopy(self.coup)
        try:
            self.resolve(trial, held)
        except RulesError as exc:
            return NOT_NOW, f"the misdeal cannot be corrected as the text says ({exc}): void the coup"
        return None

    def play_problem(self, command: ConsoleCommand) -> tuple[str, str] | None:
        """Why the game cannot take this play now; RulesError raised by the rules core counts as one."""
        raise NotImplementedError

    def console_act(self, command: ConsoleCommand) -> None:
        self.play(command)

    def play(self, command: ConsoleCommand) -> None:
        raise NotImplementedError

    def decided(self, decision: dict) -> None:
        """A decision the rules core took (journalled for the replay), then whatever is due next."""
        self.journal_card({"action": "decision", **decision})
        self.maybe_complete()

    # --- held ------------------------------------------------------------------------------------------
    def confirm_held(self) -> None:
        held, self.held = self.held, None
        if held is None or (held.misdeal is None and held.fault is None):
            self.engine.event("dealing_resumed", {"reason": "no card in time"})
            self.engine.expect_reading(Phase.DEALING)
            return
        self.resolve(self.coup, held, journal=True)
        self.resumed(held)

    def resolve(self, coup, held: Held, *, journal: bool = False) -> None:
        """Apply the misdeal's remedy to every held card (or the held fault, with them) to `coup`."""
        if held.fault is not None:
            cards = [c.card for c in held.cards]
            coup.fault(held.fault["fault"], cards=tuple(cards), reconstitute=held.fault.get("reconstitute", False),
                       holder=held.fault.get("holder"))
            if journal:
                self.journal_card({"action": "fault", **held.fault, "cards": cards})
            return
        remedy = held.misdeal.remedy
        for item in held.cards:
            if remedy is Remedy.CORRECT_AT_ONCE and held.misdeal.due is not None and held.misdeal.due.to:
                coup.deal(item.card, held.misdeal.due.to)
                action = {"action": "dealt", "to": held.misdeal.due.to}
            elif remedy is Remedy.HOLD_FOR_NEXT:
                coup.hold(item.card)
                action = {"action": "held"}
            else:
                coup.discard(item.card)
                action = {"action": "discarded"}
            if journal:
                self.journal_card({**action, "card": item.card, "position": item.position})

    def resumed(self, held: Held) -> None:
        """After a held coup was resolved: back to dealing (or to the dealer's confirm when complete)."""
        detail = {"cards": [c.card for c in held.cards]}
        if held.fault is not None:
            detail["fault"] = held.fault["fault"]
        if self.coup.is_void:
            self.engine.void_round(f"fault: {held.fault['fault']}" if held.fault else "misdeal")
            return
        self.engine.set_phase(Phase.DEALING, event="misdeal_corrected", detail=detail)
        self.maybe_complete()

    def hold_fault(self, command: ConsoleCommand, fault: dict) -> None:
        """A fault the dealer declared (already checked against the coup): held for the supervisor."""
        if self.engine.pending is not None:
            self.engine.pending = None  # the complete coup opens again
        cards = self.held.cards if self.held is not None else []
        self.held = Held(cards, None, fault)
        self.engine.set_phase(Phase.HELD, event="misdeal", detail={"kind": "fault", **fault}, who=command.who)

    # --- a restart ------------------------------------------------------------------------------------------
    def restore_state(self, data: Any) -> None:
        """Rebuild the shoe, replaying every journalled card and decision since it was loaded; the last coup,
        if complete, is kept for its journalled reading (`outcome_from`), else it is void."""
        if isinstance(data, dict):
            self.shoe_number = data.get("shoe", 1)
        start = self.shoe_start()
        opened: tuple[int | None, dict | None] = (None, None)
        coup, coup_round = None, None
        for record in self.engine.journal.records(kind="card", after=start.seq if start else 0):
            data = record.data()
            if data["action"] == "coup":
                opened = (record.round, data)
                continue
            if coup is None or record.round != coup_round:
                self.abandon(coup)
                coup, coup_round = None, record.round
                if opened[0] == record.round:
                    coup = self.new_coup(opened[1])
            if coup is None:  # between coups: the card went to the discard, the cut card came out
                self.replay_stray(data)
            else:
                self.replay(coup, data)
        if coup is not None and not coup.is_void and coup.is_complete:
            self.replayed = (coup, coup_round)
        else:
            self.abandon(coup)

    def abandon(self, coup) -> None:
        if coup is not None and not coup.is_void and not coup.is_complete:
            coup.void("interrupted by a restart", "recovery")

    def replay_stray(self, data: dict) -> None:
        if data["action"] == "discarded":
            self.shoe.take(parse_card(data["card"]), self.shoe.rules.article)
        elif data["action"] == "cut":
            self.shoe.cut_card()

    def replay(self, coup, data: dict) -> None:
        action = data["action"]
        if action == "dealt":
            coup.deal(data["card"], data.get("to"))
        elif action == "held":
            coup.hold(data["card"])
        elif action == "discarded":
            coup.discard(data["card"])
        elif action == "cut":
            coup.cut_card()
        elif action == "decision":
            self.replay_decision(coup, data)
        elif action == "fault":
            coup.fault(data["fault"], cards=tuple(data.get("cards", ())), reconstitute=data.get("reconstitute", False),
                       holder=data.get("holder"))

    def replay_decision(self, coup, data: dict) -> None:
        raise NotImplementedError

    def outcome_from(self, fields: dict) -> Any:
        coup, coup_round = self.replayed
        return coup if coup is not None and coup_round == self.engine.round else None

    def manual_outcome(self, result: dict) -> tuple[Any, dict]:
        raise ValueError(f"a {self.game} coup is not entered by hand: its cards and the players' decisions make it; "
                         "correct the misdeal, or void the coup (every stake returned)")
