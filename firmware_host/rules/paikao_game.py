"""P'ai Kao, Macau 1985: a round (the deal and the settings) and the rule book that settles the seats.

Bets: `seat` with the seat number 1-7 (a bet on that seat's hand against the banker's),
`banker`, the banker's capital (Art. 4.4), and `banker_seat`, another player's bet on the banker's
seat (Art. 3.2). The casino takes 5% of every winning (Art. 4.2): a winning seat is paid 19:20 and
the bank's net win pays the same. The bets on the banker's seat stand with his capital against the
seats: the bank's net result over the seats is theirs first, each up to its stake, "in the order in
which they are placed" (Art. 3.2), and the banker's for the rest. With `banker_capital_caps` the bank
wins or loses at most its capital in a deal (Art. 4.5; the capital and the bets on the banker's seat
together): losing seats are collected first, winners paid in dealing order while the bank lasts (the
next is paid in part, the rest get their stakes back), and losing stakes beyond the capital go back
from the last seat. Who holds the bank from deal to deal (Art. 4.1, 4.9) is paikao_bank.PaiKaoBank.
"""

from __future__ import annotations

from fractions import Fraction as F

from .bets import Bet, BetOutcome
from .stakes import Limits
from .errors import BetRefused, RefusalReason, RulebookError
from .layout import same_bet_total
from .misdeal import CoupNotFinished
from .money import RoundingRule, format_ratio
from .paikao import dealing_order
from .paikao_hands import BadHand, SetHand, compare, set_hand
from .paikao_tiles import PaiKaoDeal
from .payout import lose, push, returned, win


BETS = ("seat", "banker", "banker_seat")


class PaiKaoRound:
    """One deal: the tiles to the eight seats, then each seat's setting (0 = the banker)."""

    def __init__(self, faces: list[int] | None = None, *, order: list[int] | None = None) -> None:
        """The dealing order from the four dice (Art. 1.2) or given directly."""
        self.order = list(order) if order is not None else dealing_order(list(faces))
        self.deal = PaiKaoDeal(self.order)
        self.hands: dict[int, SetHand] = {}

    @property
    def is_void(self) -> bool:
        return self.deal.is_void

    def set(self, seat: int, pair: list) -> SetHand:
        """A seat's setting once the deal is complete: one of its two pairs (the other is the rest)."""
        if self.is_void or not self.deal.due().complete:
            raise BadHand("hands are set after a complete, valid deal (Art. 5.1)")
        if seat in self.deal.seats_out:
            raise BadHand(f"seat {seat} is out of play this deal: two tiles turned face up (Art. 2.3)")
        if seat in self.hands:
            raise BadHand(f"seat {seat} is already set; once the banker opens, no change (Art. 8.2)")
        hand = set_hand(self.deal.tiles[seat], pair)
        self.hands[seat] = hand
        return hand

    def view(self) -> dict:
        return {"order": self.order, "void": self.is_void, "seats_out": self.deal.seats_out,
                "hands": {str(s): h.view() for s, h in sorted(self.hands.items())}}

    def result(self) -> "PaiKaoRound":
        if self.is_void or 0 not in self.hands:
            raise CoupNotFinished("the deal is " + ("void" if self.is_void else "not set: the banker's hand is missing"))
        return self


class PaiKao:
    """The P'ai Kao rule book for the hands (the dice side is `paikao.first_seat`)."""

    game = "paikao"
    coup_takes_bets = False

    def __init__(self, rulebook: str, limits: Limits, rounding: RoundingRule = RoundingRule(), *,
                 commission: F = F(5, 100), banker_capital_caps: bool = True, minor_units_per_unit: int = 100) -> None:
        if rulebook != "macau-1985":
            raise RulebookError(f"P'ai Kao has rule book 'macau-1985' only, not {rulebook!r}")
        self.rulebook = rulebook
        self.limits = limits
        self.rounding = rounding
        self.pays = 1 - commission
        self.caps = banker_capital_caps
        self.minor_units_per_unit = minor_units_per_unit
        limits.check_bets_named(BETS, "P'ai Kao")
        # No multiples in the text; the banker's capital has no maximum (MAX_AMOUNT bounds it) and after
        # a won deal is whatever Art. 4.9 makes it (109,500 after 100,000 won 9,500 net).
        self.seat_rule = limits.rule("seat", limits.maximum_for("seat"))
        self.banker_seat_rule = limits.rule("banker_seat", limits.maximum_for("banker_seat"))
        self.capital_rule = limits.rule("banker", None)

    def check_bet(self, bet: Bet, placed: list[Bet]) -> None:
        if bet.bet == "banker":
            if any(b.bet == "banker" for b in placed):
                raise BetRefused(RefusalReason.NOT_ALLOWED_NOW, "the banker's capital is already on the table (Art. 4.4)")
            self.capital_rule.check(bet)
            return
        if bet.bet == "banker_seat":
            if not any(b.bet == "banker" for b in placed):
                raise BetRefused(RefusalReason.NOT_ALLOWED_NOW, "bets on the banker's seat follow his capital (Art. 3.2, 4.4)")
            if bet.number is not None:
                raise BetRefused(RefusalReason.MALFORMED, f"a bet on the banker's seat names no seat, got {bet.number!r}")
            self.banker_seat_rule.check(bet, same_bet_total(bet, placed))
            return
        if bet.bet != "seat":
            raise BetRefused(RefusalReason.UNKNOWN_BET, f"P'ai Kao bets are 'seat' (with the seat 1-7), 'banker' and "
                                                        f"'banker_seat', not {bet.bet!r}")
        if isinstance(bet.number, bool) or not isinstance(bet.number, int) or not 1 <= bet.number <= 7:
            raise BetRefused(RefusalReason.MALFORMED, f"a seat bet names seat 1 to 7, got {bet.number!r}")
        self.seat_rule.check(bet, same_bet_total(bet, placed))

    def check_withdrawal(self, bet: Bet, remaining: list[Bet]) -> None:
        """Bets are fixed once the dice are shaken (Art. 4.7); the round owner stops withdrawals then."""

    def settle(self, round_: PaiKaoRound, bets: list[Bet]) -> list[BetOutcome]:
        """Every seat bet against the banker, in dealing order, then the banker's own result."""
        if round_.is_void:
            return [returned(b) for b in bets]
        banker_hand = round_.result().hands[0]
        position = {seat: i for i, seat in enumerate(round_.order)}
        seats = sorted((b for b in bets if b.bet == "seat"), key=lambda b: (position[b.number], bets.index(b)))
        verdict = {}
        for bet in seats:
            if bet.number in round_.deal.seats_out:
                verdict[bet.ticket] = "out"
            elif bet.number not in round_.hands:
                raise CoupNotFinished(f"seat {bet.number} has a bet but its hand is not set")
            else:
                verdict[bet.ticket] = compare(round_.hands[bet.number], banker_hand)
        bank = next((b for b in bets if b.bet == "banker"), None)
        behind = [b for b in bets if b.bet == "banker_seat"]  # in the order placed (Art. 3.2)
        at_risk = {b.ticket: b.stake for b in seats}
        if bank is not None and self.caps:
            self._cap(bank.stake + sum(b.stake for b in behind), seats, verdict, at_risk)
        out, net = [], 0
        for bet in seats:
            v, risk = verdict[bet.ticket], at_risk[bet.ticket]
            if v == "out" or risk == 0:
                out.append(returned(bet))
            elif v == "player":
                out.append(win(bet, self.pays, self.rounding, at_risk=risk))
                net -= risk
            elif v == "banker":
                out.append(lose(bet, at_risk=risk))
                net += risk
            else:
                out.append(push(bet))
        for bet in behind:  # the bank's result is theirs first, each up to its stake
            share = min(bet.stake, abs(net))
            out.append(win(bet, self.pays, self.rounding, at_risk=share) if net > 0 and share
                       else lose(bet, at_risk=share) if net < 0 and share else push(bet))
            net -= share if net > 0 else -share
        if bank is not None:
            out.append(win(bank, self.pays, self.rounding, at_risk=net) if net > 0
                       else lose(bank, at_risk=min(-net, bank.stake)) if net < 0 else push(bank))
        return out

    @staticmethod
    def _cap(capital: int, seats: list[Bet], verdict: dict, at_risk: dict) -> None:
        """Art. 4.5: the banker's loss and win each at most his capital."""
        collected = sum(b.stake for b in seats if verdict[b.ticket] == "banker")
        available = capital + collected
        paid = 0
        for bet in seats:
            if verdict[bet.ticket] == "player":
                at_risk[bet.ticket] = min(bet.stake, available)
                available -= at_risk[bet.ticket]
                paid += at_risk[bet.ticket]
        excess = collected - paid - capital
        for bet in reversed(seats):
            if excess <= 0:
                break
            if verdict[bet.ticket] == "banker":
                back = min(excess, bet.stake)
                at_risk[bet.ticket] -= back
                excess -= back

    def paytable(self) -> dict[str, str]:
        return {"seat (both lines)": format_ratio(self.pays) + " (1:1 less the commission, Art. 4.2)",
                "banker_seat (with the bank, Art. 3.2)": format_ratio(self.pays) + " on its share of the bank's net win",
                "seat (one line each)": "push (Art. 6.4)", "copies, fronts at 0": "banker (Art. 6.1-6.2)"}

    def payouts(self) -> list[tuple[str, F, int]]:
        """(payout, ratio, least stake) for `tablehw edge`: a winning seat less the commission (Art. 4.2)."""
        return [("seat (both lines)", self.pays, self.seat_rule.least)]

    def describe_result(self, view: dict) -> str:
        hands = "; ".join(f"seat {s}: {h['front_value']} / {h['back_value']}" for s, h in view["hands"].items())
        out = f" seats out: {view['seats_out']}" if view["seats_out"] else ""
        return hands + out
