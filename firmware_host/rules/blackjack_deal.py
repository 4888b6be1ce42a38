"""Blackjack dealing validator (Portugal 1995 V.10-36): cards and the players' decisions, in order.

Deal (V.17): one card face up to each box with a bet, in seat order, then the dealer's up card;
a second card to each box, then the dealer's hole card face down. With an ace up, insurance and
even money are offered (V.33-34) until the console closes them. Boxes then play in seat order,
each hand by the decisions of the box holder (V.15-16): hit, stand (only above 11, V.18), double
on 9-11 (V.29-32), split equal values (V.26-27), surrender (V.36). The dealer then draws to 17,
standing on soft 17 (V.6, V.19), when a hand is still waiting for him. A decision the rules
forbid is refused with the article. A card drawn against a player's wish, still face down, is held
for the next box that asks for a card, or the dealer; turned, it is discarded (V.18); a card the
dealer draws at 17 or more is discarded (V.19). Split aces take one card each (V.26); an ace drawn to
a split ace may be split again (V.27, `resplit_aces`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .bets import Bet
from .blackjack_hand import Hand, dealer_stands, hard_total, is_ten_value
from .cards import Card, blackjack_value
from .errors import RulesError
from .misdeal import COMPLETE, CardNotDue, CoupNotFinished, DecisionRefused, Due, Misdeal, Remedy, WrongOrder
from .shoe import Shoe, ShoeCoup

PLAYS = ("hit", "stand", "double", "split", "surrender")


@dataclass
class Box:
    """A box in play: its holder, the bets on it, its hands and the side bettors' choices."""

    number: int
    holder: str
    bets: list[Bet]
    hands: list[Hand] = field(default_factory=lambda: [Hand()])
    surrendered: bool = False
    played: bool = False  # a hit, stand or double was decided: too late to surrender (V.36)
    splits_answered: dict[str, set[int]] = field(default_factory=dict)  # side ticket -> split hands answered
    split_matched: dict[str, list[int]] = field(default_factory=dict)  # side ticket -> hands it also covers (V.28)
    side_doubled: dict[str, set[int]] = field(default_factory=dict)  # side ticket -> hands it doubled (V.30)
    insurance: dict[str, int] = field(default_factory=dict)  # ticket -> insurance stake (V.33)

    def bet(self, ticket: str) -> Bet | None:
        return next((b for b in self.bets if b.ticket == ticket), None)


def box_holder(bets: list[Bet]) -> str:
    """V.16: the owner of the largest stake on the box decides; equal stakes, the first placed."""
    return max(bets, key=lambda b: (b.stake, -bets.index(b))).owner


class BlackjackCoup(ShoeCoup):
    """One blackjack coup for the boxes that have bets."""

    article = "Portugal 1995 V.17-19"
    decision_article = "Portugal 1995 V.18"  # a card drawn against the player's wish: to the next who asks

    def __init__(self, shoe: Shoe, bets: list[Bet], *, holders: dict[int, str] | None = None,
                 resplit_aces: bool = True) -> None:
        """`resplit_aces`: a split ace that draws another ace may split again (V.27, the default reading)."""
        self.resplit_aces = resplit_aces
        by_box: dict[int, list[Bet]] = {}
        for bet in bets:
            if bet.bet == "box":
                by_box.setdefault(bet.number, []).append(bet)
        if not by_box:
            raise RulesError("no box has a bet: there is nothing to deal (V.13, V.17)")
        holders = holders or {}
        self.boxes = [Box(n, holders.get(n) or box_holder(by_box[n]), by_box[n]) for n in sorted(by_box)]
        self.dealer: list[Card] = []
        self.insurance_open = False
        self._order = [f"box {b.number}" for b in self.boxes] + ["dealer"]
        self._initial = 0
        super().__init__(shoe)

    # --- the state ------------------------------------------------------------------------------
    @property
    def up_card(self) -> Card | None:
        return self.dealer[0] if self.dealer else None

    @property
    def up_card_can_make_blackjack(self) -> bool:
        """V.21: an ace or a ten-value card up: blackjacks wait for the hole card."""
        return self.up_card is not None and (self.up_card.rank == "A" or is_ten_value(self.up_card))

    @property
    def dealt(self) -> bool:
        return self._initial >= 2 * len(self._order)

    def box(self, number: int) -> Box:
        for b in self.boxes:
            if b.number == number:
                return b
        raise DecisionRefused(f"box {number} has no bet in this coup")

    def _current(self) -> tuple[Box, int] | None:
        """The box and hand index now in play, or None when every box is done."""
        for box in self.boxes:
            if box.surrendered:
                continue
            for i, hand in enumerate(box.hands):
                if not hand.finished:
                    return box, i
        return None

    def _dealer_needed(self) -> bool:
        """The dealer draws only when a hand stands against him (not bust, surrendered or paid as a blackjack)."""
        return any(not box.surrendered and not h.bust and not h.is_blackjack and not h.even_money
                   for box in self.boxes for h in box.hands)

    # --- what comes next ------------------------------------------------------------------------
    def _due_card(self) -> Due:
        if not self.dealt:
            place = self._order[self._initial % len(self._order)]
            which = "hole card, face down" if place == "dealer" and self._initial >= len(self._order) else \
                "up card" if place == "dealer" else f"card {self._initial // len(self._order) + 1} of 2"
            return Due(to=place, why=f"{place}: {which}, in seat order (V.17)")
        if self.insurance_open:
            return Due(decision="insurance", why="the dealer shows an ace: insurance up to half a stake, even money "
                                                  "for blackjacks (V.33-34); close insurance to play on")
        current = self._current()
        if current is not None:
            box, i = current
            hand = box.hands[i]
            if hand.wants_card:
                why = ("second card after the split (V.26)" if len(hand.cards) < 2 else
                       "one card on the double (V.29)" if hand.doubled else "the card asked for (V.18)")
                return Due(to=f"box {box.number}", why=f"box {box.number} hand {i + 1}: {why}")
            return Due(decision=f"box {box.number}",
                       why=f"box {box.number} hand {i + 1} has {hand.total}: {', '.join(self.allowed(box, i))}")
        if self._dealer_needed() and not dealer_stands(self.dealer):
            return Due(to="dealer", why="the dealer draws to 17, standing on soft 17 (V.6, V.19)")
        return COMPLETE

    def allowed(self, box: Box, i: int) -> list[str]:
        """The plays the rules allow on this hand now."""
        return [play for play in PLAYS if self._refusal(box, i, play) is None]

    def _refusal(self, box: Box, i: int, play: str) -> str | None:
        """Why `play` is forbidden on box hand i, or None when it is allowed."""
        hand = box.hands[i]
        two = len(hand.cards) == 2
        if play == "hit":
            if hand.split_aces:
                return "split aces take one card each (V.26)"
            return "a hand at 21 takes no more cards (V.18)" if hand.total >= 21 else None
        if play == "stand":
            return f"a player stands only above 11, this hand has {hand.total} (V.18)" if hand.total <= 11 else None
        if play == "double":
            if not two:
                return "a hand doubles on its first two cards only (V.29, V.31)"
            if hand.split_aces:
                return "split aces take one card each (V.26)"
            if not 9 <= hard_total(hand.cards) <= 11:
                return f"a hand doubles on 9, 10 or 11, this hand has {hand.total} (V.29)"
            return None
        if play == "split":
            if not two or blackjack_value(hand.cards[0]) != blackjack_value(hand.cards[1]):
                return "only two cards of the same value split (V.26-27)"
            if hand.split_aces and not hand.aces_to_resplit:
                return "split aces take one card each and this table does not split them again (V.26)"
            return None
        if play == "surrender":
            if self.up_card.rank == "A":
                return "no surrender against the dealer's ace (V.36)"
            if box.played:
                return "surrender comes before any other play on the box (V.36)"
            return None
        return f"unknown play {play!r}"

    # --- cards ------------------------------------------------------------------------------------
    def _accept(self, card: Card, to: str) -> None:
        if not self.dealt:
            if to == "dealer":
                self.dealer.append(card)
            else:
                self.box(int(to.split()[1])).hands[0].cards.append(card)
            self._initial += 1
            if self.dealt and self.up_card.rank == "A":
                self.insurance_open = True
            return
        if to == "dealer":
            self.dealer.append(card)
            return
        box, i = self._current()
        box.hands[i].cards.append(card)
        box.hands[i].asked = False

    def _misplaced(self, card: Card, to: str, due: Due, face_up: bool) -> Misdeal:
        if not self.dealt:
            return WrongOrder(f"{card} to {to!r} out of seat order: the card is due to {due.to}",
                              Remedy.CORRECT_AT_ONCE, "Portugal 1995 V.17", card=card, due=due)
        remedy, _ = self._unasked_card(face_up)
        return CardNotDue(f"{card} to {to!r}, which asked for no card (the card is due to {due.to}): "
                          + ("turned, it is discarded" if face_up else "unseen, it goes to the next box that asks "
                             "for a card, or the dealer"), remedy, "Portugal 1995 V.18", card=card, due=due)

    def _unasked_card(self, face_up: bool) -> tuple[Remedy, str]:
        """V.18: a card drawn against the player's wish goes, still face down, to the next box that asks
        for a card (if none does, to the dealer's hand); once turned it is discarded."""
        if not self.dealt or face_up:
            return Remedy.BURN_CARD, self.decision_article
        return Remedy.HOLD_FOR_NEXT, self.decision_article

    # --- decisions ----------------------------------------------------------------------------------
    def decide(self, decision: str, box: int | None = None, ticket: str | None = None, amount: int | None = None,
               match: bool | None = None, hand: int | None = None) -> Due:
        """One decision from the console; raises `DecisionRefused` (with the article) when the rules forbid it."""
        if self.is_void or self.is_complete:
            raise DecisionRefused(f"the coup is {'void' if self.is_void else 'complete'}: no decision now")
        if not self.dealt:
            raise DecisionRefused("decisions come after the deal (V.17-18)")
        if decision in ("insure", "even_money", "close_insurance"):
            self._insurance(decision, box, ticket, amount)
        elif decision in ("side_split", "side_double"):
            self._side(decision, ticket, match, hand)
        elif decision in PLAYS:
            self.insurance_open = False
            self._play(decision, box)
        else:
            raise DecisionRefused(f"unknown decision {decision!r}: plays are {', '.join(PLAYS)}; also insure, "
                                  f"even_money, close_insurance, side_split, side_double")
        return self._after_card()

    def _insurance(self, decision: str, number: int | None, ticket: str | None, amount: int | None) -> None:
        if not self.insurance_open:
            raise DecisionRefused("insurance and even money are offered only with the dealer's ace up, "
                                  "before play begins (V.33-34)")
        if decision == "close_insurance":
            self.insurance_open = False
            return
        if decision == "even_money":
            box = self.box(number)
            if not box.hands[0].is_blackjack:
                raise DecisionRefused(f"even money is for a blackjack against an ace; box {number} has none (V.34)")
            box.hands[0].even_money = True
            return
        box = next((b for b in self.boxes if b.bet(ticket)), None)
        if box is None:
            raise DecisionRefused(f"ticket {ticket!r} has no bet on any box")
        stake = box.bet(ticket).stake
        if ticket in box.insurance:
            raise DecisionRefused(f"ticket {ticket} is already insured")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0 or 2 * amount > stake:
            raise DecisionRefused(f"insurance is at most half the stake {stake}: got {amount!r} (V.33)")
        box.insurance[ticket] = amount

    def _play(self, play: str, number: int | None) -> None:
        current = self._current()
        if current is None or self.due().decision is None:
            raise DecisionRefused(f"no box decides now (next: {self.due().view()})")
        box, i = current
        if number is not None and number != box.number:
            raise DecisionRefused(f"box {box.number} decides now, not box {number} (V.18: in seat order)")
        reason = self._refusal(box, i, play)
        if reason:
            raise DecisionRefused(f"box {box.number} hand {i + 1}: {play} refused: {reason}")
        hand = box.hands[i]
        if play == "surrender":
            box.surrendered = True
            return
        if play == "split":
            card = hand.cards.pop()
            aces = card.rank == "A"
            hand.from_split, hand.split_aces, hand.resplit_aces = True, aces, self.resplit_aces
            box.hands.insert(i + 1, Hand([card], from_split=True, split_aces=aces, resplit_aces=self.resplit_aces))
            return
        box.played = True
        if play == "hit":
            hand.asked = True
        elif play == "stand":
            hand.stood = True
        elif play == "double":
            hand.doubled = True
            hand.ace_as_one = any(c.rank == "A" for c in hand.cards)  # V.32

    def _side(self, decision: str, ticket: str | None, match: bool | None, hand: int | None) -> None:
        box = next((b for b in self.boxes if b.bet(ticket)), None)
        if box is None or box.bet(ticket).owner == box.holder:
            raise DecisionRefused(f"ticket {ticket!r} is not a side bet on a box (V.15)")
        if decision == "side_split":
            splits = [k for k in range(1, len(box.hands)) if box.hands[k].from_split]
            answered = box.splits_answered.setdefault(ticket, set())
            pending = [k for k in splits if k not in answered]
            if not pending:
                raise DecisionRefused(f"box {box.number} has no split for ticket {ticket} to follow (V.28)")
            answered.add(pending[0])
            if match:
                box.split_matched.setdefault(ticket, []).append(pending[0])
            return
        index = (hand or 1) - 1
        if not 0 <= index < len(box.hands) or not box.hands[index].doubled:
            raise DecisionRefused(f"box {box.number} hand {index + 1} was not doubled by its holder (V.30)")
        doubled = box.side_doubled.setdefault(ticket, set())
        if index in doubled:
            raise DecisionRefused(f"ticket {ticket} already doubled hand {index + 1}")
        doubled.add(index)

    # --- the finished coup --------------------------------------------------------------------------
    @property
    def dealer_blackjack(self) -> bool:
        return len(self.dealer) >= 2 and hard_total(self.dealer[:2]) == 11 and any(c.rank == "A" for c in self.dealer[:2])

    def result(self) -> "BlackjackCoup":
        """The finished coup (its `view()` is what the boards show); void or unfinished coups have none."""
        if self.is_void or not self.is_complete:
            raise CoupNotFinished("the coup is " + ("void" if self.is_void else "not complete") + ": it has no result")
        return self

    def view(self) -> dict:
        return {
            "dealer": {"cards": [str(c) for c in self.dealer],
                       "total": Hand(list(self.dealer)).total if self.dealer else 0,
                       "blackjack": self.dealer_blackjack},
            "boxes": [{"box": b.number, "holder": b.holder, "surrendered": b.surrendered,
                       "hands": [h.view() for h in b.hands]} for b in self.boxes],
        }
