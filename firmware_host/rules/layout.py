"""The bets on a card, wheel or tile table between "place your bets" and "no more bets".

`Layout` is the one owner of a coup's or spin's bets: it checks what every bet needs (ticket,
owner, no duplicate ticket) and asks the game for the rest (`check_bet`: the stake by the game's
`StakeRule`, `check_withdrawal`); the game settles the layout's bets.
"""

from __future__ import annotations

from typing import Protocol

from .bets import Bet, BetOutcome, Moment, ticket_problem
from .errors import BetRefused, RefusalReason
from .payout import returned


class LayoutGame(Protocol):
    def check_bet(self, bet: Bet, placed: list[Bet]) -> None: ...

    def check_withdrawal(self, bet: Bet, remaining: list[Bet]) -> None: ...


def covered(bet: Bet) -> tuple[int, ...]:
    """The numbers a bet names beyond `number` (roulette splits, streets ...; see roulette.RouletteBet)."""
    return getattr(bet, "numbers", ())


def same_bet_total(bet: Bet, placed: list[Bet]) -> int:
    """The owner's stakes already placed on the same bet (and number / numbers): what counts with a
    new stake towards that bet's maximum."""
    return sum(b.stake for b in placed if b.owner == bet.owner and b.bet == bet.bet
               and b.number == bet.number and covered(b) == covered(bet))


class Layout:
    """The bets of one coup or spin (pure; no I/O, no clock)."""

    def __init__(self, game: LayoutGame, *, tickets_seen: set[str] | None = None) -> None:
        """`tickets_seen`: every ticket the table accepted in its life (see `DiceTable`)."""
        self.game = game
        self.bets: list[Bet] = []
        self.tickets_seen: set[str] = set() if tickets_seen is None else tickets_seen

    def place(self, bet: Bet) -> None:
        """Validate and place one bet, or raise `BetRefused` with the reason; a ticket accepted before,
        in this coup or any earlier one, is refused (`ticket_problem`)."""
        problem = ticket_problem(bet.ticket, self.tickets_seen)
        if problem is None and any(b.ticket == bet.ticket for b in self.bets):
            problem = ("duplicate_ticket", f"ticket {bet.ticket} is already on the layout")
        if problem is not None:
            raise BetRefused(RefusalReason(problem[0]), problem[1])
        if not isinstance(bet.owner, str) or not bet.owner:
            raise BetRefused(RefusalReason.MALFORMED, "a bet needs a non-empty ticket id and owner")
        if not isinstance(bet.bet, str):
            raise BetRefused(RefusalReason.MALFORMED, f"bet id must be text, got {bet.bet!r}")
        if bet.number is not None and (isinstance(bet.number, bool) or not isinstance(bet.number, int)):
            raise BetRefused(RefusalReason.MALFORMED, f"number must be a whole number, got {bet.number!r}")
        self.game.check_bet(bet, self.bets)
        self.bets.append(bet)
        self.tickets_seen.add(bet.ticket)

    def withdraw(self, ticket: str, moment: Moment = Moment.BETTING) -> BetOutcome:
        """Take a bet down before the coup (stake returned) if the rules allow it: in the card, wheel
        and tile games only while betting is open (X.14 "nada mais", I.40, V.13, Art. 4.7)."""
        for i, bet in enumerate(self.bets):
            if bet.ticket == ticket:
                if moment is not Moment.BETTING:
                    raise BetRefused(RefusalReason.BETTING_CLOSED, f"{bet.bet} comes down only while betting is open")
                remaining = self.bets[:i] + self.bets[i + 1:]
                self.game.check_withdrawal(bet, remaining)
                self.bets = remaining
                return returned(bet)
        raise BetRefused(RefusalReason.MALFORMED, f"no open bet with ticket {ticket}")

    def return_all(self) -> list[BetOutcome]:
        """A void coup or a closed table: every stake goes back."""
        out = [returned(b) for b in self.bets]
        self.bets = []
        return out
