"""Bet books: one interface over the rules core's owners of open bets (DiceTable, Layout).

The round engine places, withdraws, settles and returns bets only through a `BetBook`, and
rebuilds one after a crash from the journal (`restore`). Dice tables keep multi-roll bets and the
game state (craps point, shooter) from throw to throw; card and wheel layouts are emptied by
every settlement.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..rules.bets import Bet, BetOutcome, Moment, Result
from ..rules.dice_game import DiceGame, DiceTable
from ..rules.layout import Layout
from ..rules.payout import returned


def bet_view(bet: Bet) -> dict[str, Any]:
    """A bet as plain data (journal records, recall)."""
    out = {"ticket": bet.ticket, "owner": bet.owner, "bet": bet.bet, "stake": bet.stake, "number": bet.number}
    numbers = getattr(bet, "numbers", ())
    if numbers:
        out["numbers"] = list(numbers)
    return out


def state_to_data(state: Any) -> Any:
    """A rules-core game state (a dataclass or None) as plain data."""
    return dataclasses.asdict(state) if dataclasses.is_dataclass(state) else state


class DiceBook:
    """The bets of a dice table (craps, banca francesa, cussec) and its game state."""

    def __init__(self, game: DiceGame) -> None:
        self.game = game
        self.table = DiceTable(game)

    def make_bet(self, ticket: str, owner: str, bet: str, stake: int, number: int | None = None,
                 numbers: list[int] | None = None) -> Bet:
        return Bet(ticket, bet, stake, owner, number)

    def place(self, bet: Bet) -> None:
        self.table.place(bet)

    def withdraw(self, ticket: str, moment: Moment = Moment.BETTING) -> BetOutcome:
        return self.table.withdraw(ticket, moment)

    def bets(self) -> list[Bet]:
        return list(self.table.open_bets.bets)

    def has_ticket(self, ticket: str) -> bool:
        return self.table.open_bets.position(ticket) is not None

    def __len__(self) -> int:
        return len(self.table.open_bets)

    def settle(self, faces: tuple[int, ...]) -> list[BetOutcome]:
        """Every open bet against one valid throw (staying bets included, with their new point)."""
        return self.table.throw(faces).outcomes()

    def return_all(self) -> list[BetOutcome]:
        return self.table.return_all()

    @property
    def state(self) -> Any:
        return self.table.state

    @state.setter
    def state(self, value: Any) -> None:
        self.table.state = value

    def state_view(self) -> dict[str, Any]:
        return self.game.state_view(self.table.state)

    def state_data(self) -> Any:
        return state_to_data(self.table.state)

    def restore(self, state: Any, staying: list[tuple[Bet, int]], placed: list[Bet]) -> None:
        """Rebuild after a restart: the game state, bets carried from earlier throws (with their
        point) and bets accepted since; their kinds come from the rule book, as when placed."""
        initial = self.game.initial_state()
        if dataclasses.is_dataclass(initial) and isinstance(state, dict):
            state = type(initial)(**state)
        self.table = DiceTable(self.game, state if state is not None else initial)
        bets, kinds, states = [], [], []
        for bet, point in staying:
            bets.append(bet)
            kinds.append(self.game.table.kind_of(bet.bet, bet.number))
            states.append(point)
        for bet in placed:
            kind = self.game.table.kind_of(bet.bet, bet.number)
            bets.append(bet)
            kinds.append(kind)
            states.append(self.game.table.kinds[kind].start_state)
        if bets:
            self.table.open_bets.add_many(bets, kinds, states)


class LayoutBook:
    """The bets of one spin or coup (roulette, punto banco): settled all at once by `settle_with`."""

    def __init__(self, game: Any, bet_type: type = Bet) -> None:
        self.game = game
        self.bet_type = bet_type
        self.layout = Layout(game)
        self.state: Any = None

    def make_bet(self, ticket: str, owner: str, bet: str, stake: int, number: int | None = None,
                 numbers: list[int] | None = None) -> Bet:
        if numbers and self.bet_type is not Bet:
            return self.bet_type(ticket, bet, stake, owner, number, tuple(numbers))
        return Bet(ticket, bet, stake, owner, number) if self.bet_type is Bet else self.bet_type(
            ticket, bet, stake, owner, number)

    def place(self, bet: Bet) -> None:
        self.layout.place(bet)

    def withdraw(self, ticket: str, moment: Moment = Moment.BETTING) -> BetOutcome:
        return self.layout.withdraw(ticket, moment)

    def bets(self) -> list[Bet]:
        return list(self.layout.bets)

    def has_ticket(self, ticket: str) -> bool:
        return any(b.ticket == ticket for b in self.layout.bets)

    def __len__(self) -> int:
        return len(self.layout.bets)

    def settle_with(self, outcomes: list[BetOutcome]) -> list[BetOutcome]:
        """Take the game's settlement of every bet on the layout and empty it."""
        self.layout.bets = []
        return outcomes

    def return_all(self) -> list[BetOutcome]:
        return self.layout.return_all()

    def state_view(self) -> dict[str, Any]:
        return {}

    def state_data(self) -> Any:
        return None

    def restore(self, state: Any, staying: list[tuple[Bet, int]], placed: list[Bet]) -> None:
        self.layout = Layout(self.game)
        self.layout.bets = [b for b, _ in staying] + list(placed)


def returned_all(bets: list[Bet]) -> list[BetOutcome]:
    return [returned(b) for b in bets]


STAY = Result.STAY
