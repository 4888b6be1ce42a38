"""Blackjack, Portugal 1995 chapter V: the rule book (bets on boxes, limits) and the coup's settlement.

Bets are `box` bets with the box number (V.13-16): the holder's and the side bettors' who follow
the holder's decisions (V.15). Settlement turns one box bet into the records it became: one per
hand it covers (split hands V.26-28), one per double (V.29-31), the insurance (V.33) and the
6-7-8 / 7-7-7 bonus (V.35), each a `BetOutcome` with the money model of the dice tables.
Blackjack pays 3:2 and pushes with the dealer's (V.21); even money 1:1 (V.34); insurance 2:1;
surrender loses half (V.36); everything else 1:1 (V.23-25). Max per box = 30 × min (V.37).
"""

from __future__ import annotations

from fractions import Fraction as F

from .bets import Bet, BetOutcome
from .blackjack_deal import BlackjackCoup, Box
from .blackjack_hand import Hand, is_bonus
from .stakes import Limits
from .errors import BetRefused, RefusalReason, RulebookError
from .misdeal import CoupNotFinished
from .money import RoundingRule
from .payout import lose, prize, push, returned, win
from .shoe import Shoe, blackjack_shoe

MAX_RATIO = 30  # V.37


class Blackjack:
    """A blackjack rule book. `dealer_blackjack_takes`: "all" (doubles and split hands lose to a dealer
    blackjack too; chapter V has no peek and no refund) or "original" (only the original stakes)."""

    game = "blackjack"
    coup_takes_bets = True

    def __init__(self, rulebook: str, limits: Limits, rounding: RoundingRule = RoundingRule(), *, decks: int = 6,
                 boxes: int = 7, dealer_blackjack_takes: str = "all", resplit_aces: bool = True,
                 minor_units_per_unit: int = 100) -> None:
        if rulebook != "portugal-1995":
            raise RulebookError(f"blackjack has rule book 'portugal-1995' only, not {rulebook!r}")
        if boxes not in (6, 7):
            raise RulebookError(f"a blackjack table has 6 or 7 boxes (V.2), not {boxes}")
        if dealer_blackjack_takes not in ("all", "original"):
            raise RulebookError(f"dealer_blackjack_takes is 'all' or 'original', not {dealer_blackjack_takes!r}")
        limits.check_bets_named(("box",), "blackjack (its bets are 'box' bets)")
        self.rulebook = rulebook
        self.limits = limits
        self.rounding = rounding
        self.decks = decks
        self.boxes = boxes
        self.shoe_rules = blackjack_shoe(decks)
        self.dealer_blackjack_takes = dealer_blackjack_takes
        self.resplit_aces = resplit_aces  # V.27 excludes no pair from splitting again (V.26 limits the cards drawn)
        self.maximum = min(limits.maximum_for("box"), MAX_RATIO * limits.minimum)
        # V.14: the minimum or multiples of it; the box's bets together at most the maximum (V.15, V.37).
        self.box_rule = limits.rule("box", None, multiple=True, why="Portugal 1995 V.14")
        self.minor_units_per_unit = minor_units_per_unit

    # --- bets ---------------------------------------------------------------------------------------
    def check_bet(self, bet: Bet, placed: list[Bet]) -> None:
        if bet.bet != "box":
            raise BetRefused(RefusalReason.UNKNOWN_BET, f"blackjack bets are 'box' bets with the box number, not {bet.bet!r}")
        if isinstance(bet.number, bool) or not isinstance(bet.number, int) or not 1 <= bet.number <= self.boxes:
            raise BetRefused(RefusalReason.MALFORMED, f"a box bet names box 1 to {self.boxes} (V.2), got {bet.number!r}")
        self.box_rule.check(bet)
        total = bet.stake + sum(b.stake for b in placed if b.number == bet.number)
        if total > self.maximum:
            raise BetRefused(RefusalReason.OVER_MAXIMUM, f"box {bet.number} would total {total}, over the maximum "
                                                         f"{self.maximum} (V.15, V.37)")

    def check_withdrawal(self, bet: Bet, remaining: list[Bet]) -> None:
        """A bet may come down until its box's first card (V.13); the round owner enforces the timing."""

    # --- coups ------------------------------------------------------------------------------------------
    def new_shoe(self, *, burns: bool = True, players: int = 2) -> Shoe:
        return Shoe(blackjack_shoe(self.decks, players), burns=burns)

    def new_coup(self, shoe: Shoe | None, bets: list[Bet], *, holders: dict[int, str] | None = None) -> BlackjackCoup:
        return BlackjackCoup(shoe if shoe is not None else self.new_shoe(burns=False), bets, holders=holders,
                             resplit_aces=self.resplit_aces)

    # --- settlement ---------------------------------------------------------------------------------------
    def settle(self, coup: BlackjackCoup, bets: list[Bet]) -> list[BetOutcome]:
        """Every record's outcome at the end of the coup; a void coup returns every stake (insurance too)."""
        if coup.is_void:
            out = [returned(b) for b in bets]
            out += [returned(r) for box in coup.boxes for r in self._insurance_records(box)]
            return out
        if not coup.is_complete:
            raise CoupNotFinished("the coup is not complete: it has no settlement yet")
        return [o for o, _ in self._outcomes(coup)]

    def settle_at_once(self, coup: BlackjackCoup) -> list[BetOutcome]:
        """What is decided before the dealer plays: blackjacks the up card cannot match (V.21), even money
        (V.34), busts (V.22), surrenders (V.36) and bonuses (V.35), paid or collected at once."""
        if coup.is_void or not coup.dealt:
            return []
        return [o for o, early in self._outcomes(coup) if early]

    def _outcomes(self, coup: BlackjackCoup) -> list[tuple[BetOutcome, bool]]:
        out = []
        for box in coup.boxes:
            for bet in box.bets:
                holder = bet.owner == box.holder
                hands = [0] + (list(range(1, len(box.hands))) if holder else box.split_matched.get(bet.ticket, []))
                for k in hands:
                    hand = box.hands[k]
                    record = bet if k == 0 else Bet(f"{bet.ticket}/hand{k + 1}", "box", bet.stake, bet.owner, bet.number)
                    out.append(self._hand_outcome(coup, box, hand, record, extra=k > 0))
                    if hand.doubled and (holder or k in box.side_doubled.get(bet.ticket, set())):
                        double = Bet(f"{bet.ticket}/hand{k + 1}/double", "box", bet.stake, bet.owner, bet.number)
                        out.append(self._hand_outcome(coup, box, hand, double, extra=True))
                    if is_bonus(hand.cards) and not hand.from_split and not box.surrendered:
                        bonus = Bet(f"{bet.ticket}/hand{k + 1}/bonus", "bonus", 0, bet.owner, bet.number)
                        out.append((prize(bonus, 3 * bet.stake), True))
            for record in self._insurance_records(box):
                out.append((win(record, F(2), self.rounding) if coup.dealer_blackjack else lose(record), False))
        return out

    def _insurance_records(self, box: Box) -> list[Bet]:
        owners = {b.ticket: b.owner for b in box.bets}
        return [Bet(f"{t}/insurance", "insurance", amount, owners[t], box.number) for t, amount in box.insurance.items()]

    def _hand_outcome(self, coup: BlackjackCoup, box: Box, hand: Hand, bet: Bet, *, extra: bool) -> tuple[BetOutcome, bool]:
        """(outcome, decided before the dealer played) for one record on one hand."""
        if box.surrendered:
            return lose(bet, at_risk=bet.stake // 2), True
        if hand.even_money:
            return win(bet, F(1), self.rounding), True
        if hand.is_blackjack:
            if not coup.up_card_can_make_blackjack:
                return win(bet, F(3, 2), self.rounding), True
            return (push(bet) if coup.dealer_blackjack else win(bet, F(3, 2), self.rounding)), False
        if hand.bust:
            return lose(bet), True
        dealer = Hand(list(coup.dealer))
        if coup.dealer_blackjack:
            if extra and self.dealer_blackjack_takes == "original":
                return returned(bet), False
            return lose(bet), False
        if dealer.bust or hand.total > dealer.total:
            return win(bet, F(1), self.rounding), False
        return (push(bet) if hand.total == dealer.total else lose(bet)), False

    # --- reporting ------------------------------------------------------------------------------------------
    def paytable(self) -> dict[str, str]:
        return {"box": "1:1", "blackjack": "3:2 (V.21)", "even money": "1:1 (V.34)", "insurance": "2:1 (V.33)",
                "bonus 6-7-8 suited / 7-7-7": "3 x the stake, at once (V.35)", "surrender": "half the stake (V.36)"}

    def payouts(self) -> list[tuple[str, F, int]]:
        """(payout, ratio, least stake) for `tablehw edge`: what the least box stake is paid."""
        least = self.box_rule.least
        return [("box (V.23)", F(1), least), ("blackjack (V.21)", F(3, 2), least), ("even money (V.34)", F(1), least)]

    def describe_result(self, view: dict) -> str:
        d = view["dealer"]
        parts = [f"dealer {d['total']} ({' '.join(d['cards'])}){' blackjack' if d['blackjack'] else ''}"]
        for b in view["boxes"]:
            hands = " | ".join(f"{' '.join(h['cards'])} = {h['total']}" + (" BJ" if h.get("blackjack") else "")
                               + (" bust" if h.get("bust") else "") for h in b["hands"])
            parts.append(f"box {b['box']}: {hands}{' (surrendered)' if b['surrendered'] else ''}")
        return "; ".join(parts)

