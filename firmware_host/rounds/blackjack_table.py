"""Blackjack tables (Portugal 1995 chapter V): the shoe deals, the console tells the players' decisions.

After "no more bets" the boxes with a bet are dealt in seat order, one card each face up, the
dealer's up card, a second card each and the dealer's hole card face down (V.17). The console then
gives what the cards cannot: with an ace up, insurance and even money box by box (V.33-34); each
box's plays in seat order — `draw` (a card), `stand` (above 11 only, V.18), `double` (on 9-11, V.29),
`split` (equal values, V.26-27), `surrender` (V.36) —; side bettors' choices on a split or a double
(V.28, V.30) and insurance (V.15, V.33) by ticket; a card drawn against a player's wish, face down,
to the next box that asks (`next_box`) or, turned, to the discard (`discard`, V.18). The dealer then
draws to 17 (V.19). Every box and the dealer's hand are in `state`; the hole card stays hidden there
until the boxes have played. Settlement per box bet and per side bettor, with the split hands,
doubles, insurance and bonuses each a line of their own (rules/blackjack.py).
"""

from __future__ import annotations

import copy
from typing import Any

from ..rules.blackjack_hand import Hand
from ..rules.misdeal import DecisionRefused, Remedy
from .books import LayoutBook, bet_view
from .inputs import ConsoleCommand, Phase
from .played_coup import NOT_NOW, PlayedCoupFamily
from .recovery import bet_from

PLAYS = {"draw": "hit", "stand": "stand", "double": "double", "split": "split", "surrender": "surrender"}
INSURANCE = ("insure", "no_insurance", "even_money")
SIDE = ("side_split", "side_double")
V18 = ("next_box", "discard")


class BlackjackFamily(PlayedCoupFamily):
    game = "blackjack"
    plays = (*PLAYS, *INSURANCE, *SIDE, *V18)

    def __init__(self, engine, rules) -> None:
        super().__init__(engine, rules, LayoutBook(rules))
        self.insurance_turn = 0  # the box (index in seat order) asked next about insurance, at the console

    # --- the coup --------------------------------------------------------------------------------
    def open_coup(self) -> dict | None:
        bets = self.book.bets()
        boxes = sorted({b.number for b in bets if b.bet == "box"})
        if not boxes:
            self.engine.void_round("no bets: no box to deal (V.13, V.17)")
            return None
        self.coup = self.rules.new_coup(self.shoe, bets)
        self.insurance_turn = 0
        return {"bets": [bet_view(b) for b in bets], "places": [f"box {n}" for n in boxes] + ["dealer"]}

    def new_coup(self, opened: dict):
        return self.rules.new_coup(self.shoe, [bet_from(self.book, b) for b in opened["bets"]])

    def result_fields(self) -> dict:
        view = self.coup.view()
        dealer = {**view["dealer"], "bust": view["dealer"]["total"] > 21}
        cards = {"dealer": dealer["cards"]}
        for box in view["boxes"]:
            for k, hand in enumerate(box["hands"], 1):
                cards[f"box{box['box']}" + (f".{k}" if k > 1 else "")] = hand["cards"]
        return {"cards": cards, "outcome": {"dealer": dealer, "boxes": view["boxes"]}}

    def state_view(self) -> dict[str, Any]:
        view = super().state_view()
        coup = self.coup
        if coup is None:
            return view
        dealer = coup.dealer
        shown = dealer if self.dealer_turn() or len(dealer) < 2 else dealer[:1]  # the hole card face down (V.17)
        view["dealer"] = {"cards": [str(c) for c in shown], "hole_card": len(shown) < len(dealer),
                          "total": Hand(list(shown)).total}
        view["boxes"] = [{"box": b.number, "holder": b.holder, "surrendered": b.surrendered,
                          "insurance": sum(b.insurance.values()), "hands": [h.view() for h in b.hands]}
                         for b in coup.boxes]
        if coup.insurance_open and not coup.is_void:
            view["insurance"] = {"box": coup.boxes[self.insurance_turn].number}
        if self.held is not None:
            view["held"] = self.held.view()
        return view

    def dealer_turn(self) -> bool:
        coup = self.coup
        return coup.is_void or coup.is_complete or coup.due().to == "dealer"

    # --- the console -----------------------------------------------------------------------------
    def play_problem(self, command: ConsoleCommand) -> tuple[str, str] | None:
        phase = self.engine.phase
        if command.action in V18:
            held = self.held
            if phase is not Phase.HELD or held is None or held.fault is not None or held.misdeal is None \
                    or held.misdeal.remedy is not Remedy.HOLD_FOR_NEXT:
                return NOT_NOW, "no card is held for the next box that asks (V.18)"
            return None
        if phase is not Phase.DEALING or self.coup is None:
            return NOT_NOW, f"plays come while the coup is dealt (phase {phase.value})"
        trial = copy.deepcopy(self.coup)
        for decision in self.decisions(command)[0]:
            trial.decide(**decision)
        return None

    def decisions(self, command: ConsoleCommand) -> tuple[list[dict], bool]:
        """The rules core's decisions a play stands for, and whether the insurance turn moves on."""
        action, play, coup = command.action, command.play or {}, self.coup
        if action in PLAYS:
            return [{"decision": PLAYS[action], "box": play.get("box")}], False
        if action in SIDE:
            if not play.get("ticket"):
                raise DecisionRefused(f"{action} names the side bettor's ticket (V.28, V.30)")
            if action == "side_split":
                return [{"decision": "side_split", "ticket": play["ticket"], "match": bool(play.get("match"))}], False
            return [{"decision": "side_double", "ticket": play["ticket"], "hand": play.get("hand")}], False
        if not coup.insurance_open:
            raise DecisionRefused("insurance and even money are offered only with the dealer's ace up, before "
                                  "play begins (V.33-34)")
        if action == "insure" and play.get("ticket"):  # any bettor on any box, by ticket (V.15, V.33)
            stake = next((b.stake for box in coup.boxes for b in box.bets if b.ticket == play["ticket"]), 0)
            return [{"decision": "insure", "ticket": play["ticket"], "amount": play.get("amount", stake // 2)}], False
        if action == "even_money" and play.get("box"):
            return [{"decision": "even_money", "box": play["box"]}], False
        box = coup.boxes[self.insurance_turn]
        out = []
        if action == "insure":  # the box asked now: its holder's largest stake, half of it unless an amount is given
            holder = max((b for b in box.bets if b.owner == box.holder), key=lambda b: b.stake)
            out.append({"decision": "insure", "ticket": holder.ticket, "amount": play.get("amount", holder.stake // 2)})
        elif action == "even_money":
            out.append({"decision": "even_money", "box": box.number})
        if self.insurance_turn + 1 >= len(coup.boxes):
            out.append({"decision": "close_insurance"})  # every box was asked
        return out, True

    def play(self, command: ConsoleCommand) -> None:
        if command.action in V18:
            held, self.held = self.held, None
            for item in held.cards:
                if command.action == "next_box":  # unseen: the next box that asks, or the dealer (V.18)
                    self.coup.hold(item.card)
                else:  # turned: to the discard (V.18)
                    self.coup.discard(item.card)
                self.journal_card({"action": "held" if command.action == "next_box" else "discarded",
                                   "card": item.card, "position": item.position})
            self.resumed(held)
            return
        decisions, moves_on = self.decisions(command)
        for decision in decisions:
            self.coup.decide(**decision)
        if moves_on:
            self.insurance_turn += 1
        self.decided({"decisions": decisions})

    def replay_decision(self, coup, data: dict) -> None:
        for decision in data["decisions"]:
            coup.decide(**decision)
