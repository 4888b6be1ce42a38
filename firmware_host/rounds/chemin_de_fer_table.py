"""Chemin de fer tables (Portugal 1995 chapter I): the bank from coup to coup, the punters, the shoe, the console.

The bank is announced at the console (`bank`: its holder and capital, I.39) and the table puts it on
the layout before the punters bet; after a coup it won it goes on by itself with what it accumulated
(I.46), or less when the dealer declares its garage (I.34, I.46); it passes when it loses (I.96 c), or
when its holder passes it (`pass_bank`, I.77, I.89): see rules/chemin_de_fer_bank.py. A punter covering
the whole bank is a banco declared at the console (`banco`; `suivi` for the punter following up the
banco he lost, I.51), which frees both sides' draws (I.70). The shoe deals, player then banker (I.62);
the player's 5, the banker's optional cells and a banco's draws are console decisions (`draw` "carta",
`stand` "não"). A fault of I.75, I.104-106 is declared by the dealer (`fault`, with the cards held since
the misdeal it caused) and held for the supervisor, whose confirm applies what its article fixes.
Equal points void the coup (I.76). The house's commission comes off the bank's wins (I.47).
`state` shows the bank, the banco and how many cards each side holds, never a card not yet shown
(I.63, I.67: the player's two cards are his to see first; third cards are dealt face up, I.68-69).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from ..rules.bets import Bet, Moment
from ..rules.chemin_de_fer import ChemindeFerCoup
from ..rules.chemin_de_fer_bank import Bank, ChemindeFerBank
from ..rules.misdeal import DecisionRefused
from .books import LayoutBook, bet_view
from .inputs import ConsoleCommand, Phase
from .payloads import round_id
from .played_coup import NOT_NOW, PlayedCoupFamily
from .tickets import request_digest

BANK_PLAYS = ("bank", "garage", "pass_bank", "banco", "suivi")
PLAYS = ("draw", "stand", "fault", *BANK_PLAYS)
BANK_USER = "console"  # the user a bank's bet is journalled under: the dealer announced it (I.39)


class ChemindeFerFamily(PlayedCoupFamily):
    game = "chemin_de_fer"
    plays = PLAYS

    def __init__(self, engine, rules) -> None:
        self.bank = ChemindeFerBank(rules)
        super().__init__(engine, rules, LayoutBook(self.bank))
        self.banco: dict | None = None  # {"kind": "banco" | "suivi", "owner": ...} declared for this coup

    # --- state -------------------------------------------------------------------------------------
    def state_data(self) -> Any:
        return {**super().state_data(), "bank": self.bank.bank.view()}

    def restore_state(self, data: Any) -> None:
        super().restore_state(data)
        if isinstance(data, dict) and isinstance(data.get("bank"), dict):
            self.bank.bank = Bank(**data["bank"])

    def state_view(self) -> dict[str, Any]:
        view = super().state_view()
        if "due" in view:  # what is due, never why: "the player has 5" is the punter's to tell
            view["due"] = {k: v for k, v in view["due"].items() if k != "why"}
        view["bank"] = self.bank.bank.view()
        if self.banco is not None:
            view["banco"] = self.banco
        coup = self.coup
        if coup is not None and not coup.is_complete:
            view["coup"] = {side: {"cards": len(cards), "third": str(cards[2]) if third else None}
                            for side, cards, third in (("player", coup.player, coup.player_third),
                                                       ("banker", coup.banker, coup.banker_third))}
        if self.held is not None:
            view["held"] = self.held.view()
        return view

    # --- the bank ------------------------------------------------------------------------------------
    def round_opened(self) -> None:
        self.banco = None
        if self.bank.bank.holder is not None:
            self.place_bank(BANK_USER, "carried from the last coup (I.46)")

    def place_bank(self, user: str, why: str, txn=None) -> None:
        """The bank's bet on the layout, journalled as accepted like a terminal's, under its own ticket."""
        engine = self.engine
        if txn is None:
            with engine.journal.transaction() as own:
                return self.place_bank(user, why, own)
        bank = self.bank.bank
        n = 1
        while True:  # a ticket of the table's own, never one a terminal already used
            ticket = f"{round_id(engine.settings.table_id, engine.round)}-bank{n}"
            bet = Bet(ticket, "banker", bank.capital, bank.holder)
            digest = request_digest(user, msgspec.json.encode(bet_view(bet)))
            if engine.registry.bet_answer(ticket, digest) is None:
                break
            n += 1
        self.book.place(bet)
        txn.record("bet_accepted", {**bet_view(bet), "user": user, "request": digest.hex(), "why": why},
                   round=engine.round)
        engine.registry.answered_bet(ticket, digest, engine.round, None)
        self.journal_bank(txn)

    def take_bank_down(self, txn) -> None:
        """The bank's bet comes off the layout (its holder passes it or sets some aside), stake returned."""
        bet = next(b for b in self.book.bets() if b.bet == "banker")
        outcome = self.book.withdraw(bet.ticket, Moment.BETTING)
        txn.record("bet_withdrawn", {"ticket": bet.ticket, "owner": bet.owner, "returned": outcome.returned,
                                     "user": BANK_USER, "request": ""}, round=self.engine.round)
        self.engine.registry.withdrawn(bet.ticket, b"", self.engine.round)

    def journal_bank(self, txn) -> None:
        txn.record("game_state", {"game_state": self.state_data()}, round=self.engine.round or None)
        self.engine.publish_state(txn)

    # --- the coup --------------------------------------------------------------------------------------
    def open_coup(self) -> dict | None:
        bets = self.book.bets()
        if not any(b.bet == "banker" for b in bets) or not any(b.bet == "player" for b in bets):
            self.engine.void_round("no bank or no punter: no coup to deal (I.39, I.45)")
            return None
        banco = None
        if self.banco is not None:
            if self.rules.is_banco(bets):
                banco = bets
            else:
                self.engine.event("banco_lapsed", {**self.banco, "why": "the bets no longer make one (I.45)"})
                self.banco = None
        self.coup = self.rules.new_coup(self.shoe, banco=banco)
        return {"banco": banco is not None, "places": ["player", "banker"]}

    def new_coup(self, opened: dict):
        return ChemindeFerCoup(self.shoe, banco=opened["banco"])

    def result_fields(self) -> dict:
        view = self.coup.view()
        cards = {"player": view.pop("player"), "banker": view.pop("banker")}
        bank = next((b for b in self.book.bets() if b.bet == "banker"), None)
        view["bank"] = {"holder": bank.owner if bank else None, "capital": bank.stake if bank else 0}
        return {"cards": cards, "outcome": view}

    def settle(self, coup) -> list:
        bets = self.book.bets()
        outcomes = self.rules.settle(coup, bets)
        banco = next(b.owner for b in bets if b.bet == "player") if coup.banco else None
        self.bank.coup_settled(bets, outcomes, banco=banco)
        return self.book.settle_with(outcomes)

    # --- the console --------------------------------------------------------------------------------
    def play_problem(self, command: ConsoleCommand) -> tuple[str, str] | None:
        action, play, phase = command.action, command.play or {}, self.engine.phase
        if action in BANK_PLAYS:
            if phase is not Phase.BETTING:
                return NOT_NOW, f"{action} is declared while betting is open (phase {phase.value}; I.39-40)"
            return self.bank_problem(action, play)
        if action == "fault":
            if phase not in (Phase.DEALING, Phase.HELD, Phase.CONFIRMING) or self.coup is None:
                return NOT_NOW, f"a fault is declared while the coup is dealt (phase {phase.value})"
            if self.held is not None and self.held.fault is not None:
                return NOT_NOW, "a fault is already held for the supervisor"
            self.fault_view(play)  # raises DecisionRefused when it cannot happen now
            return None
        if phase is not Phase.DEALING or self.coup is None:
            return NOT_NOW, f"'carta' and 'não' come while the coup is dealt (phase {phase.value})"
        copy.deepcopy(self.coup).decide(action)
        return None

    def bank_problem(self, action: str, play: dict) -> tuple[str, str] | None:
        bets = self.book.bets()
        on_layout = any(b.bet == "banker" for b in bets)
        punted = [b for b in bets if b.bet == "player"]
        if action == "bank":
            if on_layout:
                return NOT_NOW, f"the bank is on the table ({self.bank.bank.holder}'s)"
            copy.deepcopy(self.bank).take(play.get("holder"), play.get("amount"))
        elif action in ("garage", "pass_bank"):
            if not on_layout:
                return NOT_NOW, "no bank is on the table"
            if punted:
                return NOT_NOW, f"{action} comes before the punters bet: their bets stand against the bank (I.39-40)"
            if action == "garage":
                copy.deepcopy(self.bank).set_aside(play.get("amount"))
        elif not self.rules.is_banco(bets):
            return NOT_NOW, "a banco is one punter's bet against the whole bank (I.45): these bets are not one"
        elif action == "suivi" and punted[0].owner != self.bank.bank.suivi:
            return NOT_NOW, f"bancô suivi is for the punter who made the last banco and lost it (I.51), not {punted[0].owner}"
        return None

    def fault_view(self, play: dict) -> dict:
        """The fault declared, checked on a copy of the coup with the cards held: its article, remedy, message."""
        if not play.get("fault"):
            raise DecisionRefused("a fault names its code (docs/rules-cards.md: I.75, I.104-106)")
        trial = copy.deepcopy(self.coup)
        cards = tuple(c.card for c in self.held.cards) if self.held is not None else ()
        trial.fault(play["fault"], cards=cards, reconstitute=bool(play.get("reconstitute")), holder=play.get("holder"))
        record = trial.faults[-1].view()
        return {**{k: record[k] for k in ("fault", "article", "remedy", "message")},
                "reconstitute": bool(play.get("reconstitute")), "holder": play.get("holder")}

    def play(self, command: ConsoleCommand) -> None:
        action, play = command.action, command.play or {}
        if action == "fault":
            self.hold_fault(command, self.fault_view(play))
        elif action in ("draw", "stand"):
            self.coup.decide(action)
            self.decided({"decision": action})
        elif action in ("banco", "suivi"):
            owner = next(b.owner for b in self.book.bets() if b.bet == "player")
            self.banco = {"kind": action, "owner": owner}
            with self.engine.journal.transaction() as txn:
                self.engine.publish_state(txn)
        else:
            self.bank_play(command, action, play)

    def bank_play(self, command: ConsoleCommand, action: str, play: dict) -> None:
        with self.engine.journal.transaction() as txn:
            if action == "bank":
                self.bank.take(play["holder"], play["amount"])
                self.place_bank(command.who or BANK_USER, "announced (I.39)", txn)
                return
            self.take_bank_down(txn)
            if action == "pass_bank":
                self.bank.pass_bank()
                self.journal_bank(txn)
            else:
                self.bank.set_aside(play.get("amount"))
                self.place_bank(command.who or BANK_USER, "garage (I.34, I.46)", txn)

    def replay_decision(self, coup, data: dict) -> None:
        coup.decide(data["decision"])
