"""The P'ai Kao bank from deal to deal (Macau 1985): who holds it, for how long, with what capital.

Art. 4.1: each seat holds the bank in turn, "num máximo de duas jogadas de cada vez" unless the
players of the other seven seats all agree. Art. 4.9: a banker who won a deal and keeps the bank
must leave on the table everything he won plus his capital: that sum is his new capital, which he
may raise but never reduce. `PaiKaoBank` is what a P'ai Kao table's `Layout` checks bets with: the
rule book's checks, then the bank's (pure; no I/O, no clock).
"""

from __future__ import annotations

from dataclasses import dataclass

from .bets import Bet, BetOutcome, Result
from .errors import BetRefused, RefusalReason
from .paikao_game import PaiKao

MAX_DEALS = 2  # Art. 4.1


@dataclass(frozen=True, slots=True)
class BankTurn:
    """The bank's holder (the owner of the capital), the deals he has held in a row, and the least
    capital he may put up for the next (0: only the table's minimum)."""

    holder: str | None = None
    deals: int = 0
    least_capital: int = 0

    def after(self, capital: Bet | None, outcome: BetOutcome | None) -> BankTurn:
        """The turn once a deal is settled: a banker who won must carry capital and winnings (Art. 4.9)."""
        if capital is None:
            return BankTurn()
        deals = self.deals + 1 if capital.owner == self.holder else 1
        won = outcome is not None and outcome.result is Result.WIN
        return BankTurn(capital.owner, deals, capital.stake + outcome.paid if won else 0)


class PaiKaoBank:
    """A P'ai Kao table's bets and bank across deals: the rule book's bet checks, Art. 4.1 and 4.9."""

    def __init__(self, game: PaiKao, turn: BankTurn | None = None) -> None:
        self.game = game
        self.turn = turn or BankTurn()
        self.others_agree = False  # the seven other seats agreed to a third deal (Art. 4.1)

    def check_bet(self, bet: Bet, placed: list[Bet]) -> None:
        self.game.check_bet(bet, placed)
        if bet.bet != "banker" or bet.owner != self.turn.holder:
            return
        if self.turn.deals >= MAX_DEALS and not self.others_agree:
            raise BetRefused(RefusalReason.NOT_ALLOWED_NOW,
                             f"{bet.owner} has held the bank {self.turn.deals} deals in a row: two at most, unless "
                             f"the players of the other seven seats agree (Art. 4.1)")
        if bet.stake < self.turn.least_capital:
            raise BetRefused(RefusalReason.UNDER_MINIMUM,
                             f"a banker who won keeps his winnings in the bank: capital at least "
                             f"{self.turn.least_capital}, not {bet.stake} (Art. 4.9)")

    def check_withdrawal(self, bet: Bet, remaining: list[Bet]) -> None:
        self.game.check_withdrawal(bet, remaining)

    def deal_settled(self, bets: list[Bet], outcomes: list[BetOutcome]) -> None:
        """The deal is settled (or void): the next deal's turn. A void deal changes nothing."""
        capital = next((b for b in bets if b.bet == "banker"), None)
        if capital is None or all(o.result is Result.RETURNED for o in outcomes):
            return
        outcome = next((o for o in outcomes if o.bet.ticket == capital.ticket), None)
        self.turn = self.turn.after(capital, outcome)
        self.others_agree = False
