"""Blackjack coups played two ways: through the service's path and through the rules core directly.

A random player (random boxes, stakes and side bettors; random legal decisions: draw, stand, double, split,
surrender, insurance by box and by ticket, even money) deals each coup from a shuffled shoe with its cut
card. Each card and each decision goes to a rules-core coup of its own (the direct path: rules.new_coup,
deal, decide, settle) and, as the scanner and the console would give them, to the round engine in-process
on a real journal (the service's path: bets as terminal requests, `no_more_bets`, CardSeen, CutCardSeen,
ShoeLoaded and console play commands, the engine's BlackjackFamily, its settlement record). Both must
want the same next card or decision at every step and settle every coup to identical money.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from firmware_host.rounds.inputs import CardSeen, ConsoleCommand, CutCardSeen, Phase, ShoeLoaded
from firmware_host.rules.bets import Bet
from firmware_host.rules.cards import RANKS, SUITS

from .engine_harness import bet, feed, make_engine

DEALER = "pit-1"


def money(lines) -> list[tuple]:
    return sorted((o.bet.ticket, o.result.value, o.paid, o.returned, o.kept) for o in lines)


def settled_money(settlement: dict) -> list[tuple]:
    return sorted((b["ticket"], b["result"], b["paid"], b["returned"], b["kept"]) for b in settlement["bets"])


@dataclass
class Differential:
    """What the run played: coups compared, and what both paths paid, kept and returned."""

    coups: int = 0
    lines: int = 0
    paid: int = 0
    kept: int = 0
    returned: int = 0
    plays: dict[str, int] = field(default_factory=dict)


class RandomTable:
    def __init__(self, path: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        owners = [f"{who}{n}" for who in "ps" for n in range(1, 8)]  # box holders and side bettors
        self.engine = make_engine(path, game="blackjack", dealer_confirms=False, access={"terminals": {"term-1": owners}})
        self.rules = self.engine.family.rules
        self.result = Differential()
        self.load_shoe(first=True)

    # --- the shoe ----------------------------------------------------------------------------------
    def load_shoe(self, first: bool = False) -> None:
        decks = self.rules.shoe_rules.decks
        self.cards = [f"{r}{s}" for _ in range(decks) for r in RANKS for s in SUITS]
        self.rng.shuffle(self.cards)
        self.cut_at = len(self.cards) - self.rules.shoe_rules.cut_from_end - self.rng.randint(0, 4)
        self.position = 0
        self.shoe = self.rules.new_shoe()
        if not first:
            feed(self.engine, ShoeLoaded())

    def next_card(self, coup) -> str:
        if self.position == self.cut_at:
            coup.cut_card()
            feed(self.engine, CutCardSeen(self.position))
        card = self.cards[self.position]
        self.position += 1
        return card

    # --- a coup ------------------------------------------------------------------------------------
    def bets(self, round_no: int) -> list[Bet]:
        boxes = self.rng.sample(range(1, self.rules.boxes + 1), self.rng.randint(1, 4))
        out = []
        for box in boxes:
            holder = f"p{box}"
            out.append(Bet(f"r{round_no}b{box}", "box", 1000 * self.rng.randint(1, 6), holder, box))
            if self.rng.random() < 0.3:  # a side bettor behind the box (V.15)
                out.append(Bet(f"r{round_no}b{box}s", "box", 1000 * self.rng.randint(1, 3), f"s{box}", box))
        return out

    def play_coup(self) -> None:
        engine = self.engine
        if engine.phase is not Phase.BETTING:
            feed(engine, ConsoleCommand("open_betting", who=DEALER))
        assert engine.phase is Phase.BETTING, engine.phase
        round_no = engine.round
        bets = self.bets(round_no)
        feed(engine, *[bet(engine, b.ticket, "box", b.stake, owner=b.owner, number=b.number) for b in bets])
        accepted = {r.data()["ticket"] for r in engine.journal.records(kind="bet_accepted", round=round_no)}
        assert accepted == {b.ticket for b in bets}, "a bet the rules allow was refused"
        feed(engine, ConsoleCommand("no_more_bets", who=DEALER))
        coup = self.rules.new_coup(self.shoe, bets)
        while not coup.is_complete:
            served = engine.family.coup
            assert served is not None and served.due() == coup.due(), (served and served.due(), coup.due())
            due = coup.due()
            if due.decision is None:
                card = self.next_card(coup)
                coup.deal(card)
                feed(engine, CardSeen(card, self.position))
            else:
                action, decisions, play = self.choose(coup, due)
                for decision in decisions:
                    coup.decide(**decision)
                feed(engine, ConsoleCommand(action, who=DEALER, play=play))
                self.result.plays[action] = self.result.plays.get(action, 0) + 1
        (settlement,) = [r.data() for r in engine.journal.records(kind="settlement", round=round_no)]
        direct = money(self.rules.settle(coup, bets))
        assert not settlement["void"] and settled_money(settlement) == direct, (round_no, settlement, direct)
        r = self.result
        r.coups += 1
        r.lines += len(direct)
        r.paid += sum(x[2] for x in direct)
        r.returned += sum(x[3] for x in direct)
        r.kept += sum(x[4] for x in direct)
        if self.shoe.finished:
            self.load_shoe()

    def choose(self, coup, due) -> tuple[str, list[dict], dict | None]:
        """A random legal decision: (console action, the rules core's decisions, the play's details)."""
        rng = self.rng
        if due.decision == "insurance":
            turn = self.engine.family.insurance_turn
            box = coup.boxes[turn]
            side = [b for b in box.bets if b.owner != box.holder]
            if side and rng.random() < 0.3:  # a side bettor insures by ticket (V.15, V.33): the turn stays
                b = rng.choice(side)
                if not any(t == b.ticket for t in box.insurance):
                    amount = b.stake // 2 // 500 * 500 or 500
                    return "insure", [{"decision": "insure", "ticket": b.ticket, "amount": amount}], \
                        {"ticket": b.ticket, "amount": amount}
            roll = rng.random()
            last = turn + 1 >= len(coup.boxes)
            close = [{"decision": "close_insurance"}] if last else []
            if box.hands[0].is_blackjack and roll < 0.5:
                return "even_money", [{"decision": "even_money", "box": box.number}, *close], None
            if roll < 0.3:
                holder = max((b for b in box.bets if b.owner == box.holder), key=lambda b: b.stake)
                return "insure", [{"decision": "insure", "ticket": holder.ticket, "amount": holder.stake // 2},
                                  *close], None
            return "no_insurance", close, None
        box = coup.box(int(due.decision.split()[1]))
        i = next(k for k, hand in enumerate(box.hands) if not hand.finished)
        allowed = coup.allowed(box, i)
        play = rng.choice(allowed)
        action = {"hit": "draw"}.get(play, play)
        return action, [{"decision": play, "box": box.number}], {"box": box.number}


def play(path: Path, coups: int, seed: int, report_every: int = 0) -> Differential:
    """Play `coups` random coups both ways; with `report_every`, print how many agreed so far that often."""
    table = RandomTable(path, seed)
    try:
        for n in range(1, coups + 1):
            table.play_coup()
            if report_every and n % report_every == 0:
                print(f"blackjack differential: {n:,} coups identical so far", flush=True)
    finally:
        table.engine.journal.close()
    return table.result
