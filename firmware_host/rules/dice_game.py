"""A dice game's rule book (immutable) and a dice table's session (the bets and game state).

`DiceGame` is the rule book: its bet kinds, limits, rounding and the checks a bet must pass.
Each game (craps, cussec, banca francesa) subclasses it with its own bets and state.
`DiceTable` is the one owner of a table's open bets and game state: bets are placed or
withdrawn, a valid throw settles every open bet, a void throw settles nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from fractions import Fraction
from typing import Any

import numpy as np

from .bet_table import BetKind, BetTable, OpenBets, Settlement, settle
from .bets import Bet, BetOutcome, Moment, Result, ticket_problem
from .dice import outcome_index
from .edge import EdgeRow, edge_table
from .errors import BetRefused, RefusalReason, RulesError
from .money import RoundingRule
from .stakes import Limits, StakeRule


def refuse(reason: RefusalReason, message: str) -> BetRefused:
    return BetRefused(reason, message)


def closed_for_withdrawals(moment: Moment, bet: Bet) -> None:
    """The common rule: a bet comes down only while betting is open."""
    if moment is not Moment.BETTING:
        raise refuse(RefusalReason.BETTING_CLOSED, f"{bet.bet} comes down only while betting is open "
                                                   f"({'the decision is being made' if moment is Moment.DECIDING else 'no more bets'})")


class DiceGame:
    """Base rule book of a dice game; subclasses give the kinds and the game-specific checks."""

    game: str = ""
    n_dice: int = 0
    # The reasons this book voids a throw ("golpe nulo"), code -> article; the vision codes where they
    # are the camera's (off_table, not_past_middle, cocked, stacked, overlapping). A void throw never
    # reaches settlement: the round engine re-throws with the bets as they are.
    void_reasons: Mapping[str, str] = MappingProxyType({})
    # IV.7 d: "o pagador levantar, alterar ou tocar os dados sem anunciar a chance": "stay" or "returned"
    # for the chances that would have lost; None where the book has no such rule.
    touched_dice_losers: str | None = None

    def __init__(self, rulebook: str, kinds: list[BetKind], limits: Limits, rounding: RoundingRule,
                 minor_units_per_unit: int = 100) -> None:
        self.rulebook = rulebook
        self.table = BetTable(kinds)
        self.limits = limits
        self.rounding = rounding
        self.minor_units_per_unit = minor_units_per_unit
        numbered = tuple(f"{k.bet}_{k.number}" for k in self.table.kinds if k.number is not None)
        limits.check_bets_named(self.table.bet_ids, f"{self.game} {rulebook}", numbered)
        self.stake_rules = {(k.bet, k.number): self.stake_rule(k.bet, k.number) for k in self.table.kinds}

    # --- state -------------------------------------------------------------------------------
    def initial_state(self) -> Any:
        return None

    def next_state(self, state: Any, faces: tuple[int, ...]) -> Any:
        return state

    def state_view(self, state: Any) -> dict[str, Any]:
        """The game state as plain data, for boards and the journal."""
        return {}

    # --- bets --------------------------------------------------------------------------------
    def kind_for(self, state: Any, open_bets: OpenBets, bet: Bet) -> tuple[int, int]:
        """The kind index and start state for a new bet; subclasses add their timing rules."""
        if bet.number is not None:
            raise refuse(RefusalReason.MALFORMED, f"bet {bet.bet} takes no number, got {bet.number}")
        kind = self.table.kind_of(bet.bet)
        if kind is None:
            raise refuse(RefusalReason.UNKNOWN_BET, f"{self.game} {self.rulebook} has no bet {bet.bet!r}")
        return kind, self.table.kinds[kind].start_state

    def multiple_of_minimum(self, bet: str) -> str | None:
        """The article that makes `bet`'s stakes multiples of the minimum, or None (the default: only
        some rule books require it, for some bets)."""
        return None

    def stake_rule(self, bet: str, number: int | None = None) -> StakeRule:
        """What a stake on `bet` (on `number`, for odds) must be: the table's minimum and maximum for
        the bet, multiples as the rule book or the table requires; bets that are part of the chips
        placed (banca francesa lines) scale the limits by their chips per unit at risk."""
        article = self.multiple_of_minimum(bet)
        rule = self.limits.rule(bet, self.limits.maximum_for(bet), multiple=article is not None, why=article or "",
                                number=number)
        risk = self.table.kinds[self.table.index_of_bet(bet)].at_risk
        if risk != 1:
            rule = rule.scaled(risk.denominator // risk.numerator,
                               f"the bet counts 1/{risk.denominator // risk.numerator} of its chips: whole units at risk")
        return rule

    def check_stake(self, open_bets: OpenBets, bet: Bet) -> None:
        """Stake checks common to every game (`StakeRule`): the owner's stakes already on the same bet
        (and number) count towards the maximum."""
        self.stake_rules[bet.bet, bet.number].check(bet, open_bets.total(bet.owner, bet.bet, bet.number))

    def check_withdrawal(self, state: Any, open_bets: OpenBets, position: int, moment: Moment) -> None:
        """Raise `BetRefused` when the bet at `position` may not be taken down at `moment`: by default
        only while betting is open."""
        closed_for_withdrawals(moment, open_bets.bets[position])

    # --- house edge --------------------------------------------------------------------------
    def edge_rows(self) -> list[EdgeRow]:
        """Every bet's exact edge and the edge actually paid at its least stake (2010 Art. 7.2)."""
        def least(kind) -> tuple[int, int]:
            rule = self.stake_rules[kind.bet, kind.number]
            return rule.least, rule.step
        return edge_table(self.table.kinds, self.minor_units_per_unit, least, self.rounding)


@dataclass(frozen=True)
class ThrowResult:
    """A settled throw: the faces, the state before and after, and every bet's outcome."""

    faces: tuple[int, ...]
    state_before: Any
    state_after: Any
    settlement: Settlement

    def outcomes(self) -> list[BetOutcome]:
        return self.settlement.outcomes()


class DiceTable:
    """The one owner of a dice table's open bets and game state (pure; no I/O, no clock)."""

    def __init__(self, game: DiceGame, state: Any = None, *, tickets_seen: set[str] | None = None) -> None:
        """`tickets_seen`: every ticket the table accepted in its life (a registry shared with the round
        engine, rebuilt from the journal at start); by default the table's own, from now."""
        self.game = game
        self.state = game.initial_state() if state is None else state
        self.open_bets = OpenBets()
        self.tickets_seen: set[str] = set() if tickets_seen is None else tickets_seen

    def place(self, bet: Bet) -> None:
        """Validate and place one bet, or raise `BetRefused` with the reason. A ticket the table has
        accepted before, even for a bet since decided or withdrawn, is refused (`ticket_problem`)."""
        problem = ticket_problem(bet.ticket, self.tickets_seen)
        if problem is None and bet.ticket in self.open_bets:
            problem = ("duplicate_ticket", f"ticket {bet.ticket} is already on the layout")
        if problem is not None:
            raise refuse(RefusalReason(problem[0]), problem[1])
        if not isinstance(bet.owner, str) or not bet.owner:
            raise refuse(RefusalReason.MALFORMED, "a bet needs a non-empty ticket id and owner")
        if not isinstance(bet.bet, str):
            raise refuse(RefusalReason.MALFORMED, f"bet id must be text, got {bet.bet!r}")
        if bet.number is not None and (isinstance(bet.number, bool) or not isinstance(bet.number, int)):
            raise refuse(RefusalReason.MALFORMED, f"number must be a whole number, got {bet.number!r}")
        kind, start = self.game.kind_for(self.state, self.open_bets, bet)
        self.game.check_stake(self.open_bets, bet)
        self.open_bets.add(bet, kind, start)
        self.tickets_seen.add(bet.ticket)

    def withdraw(self, ticket: str, moment: Moment = Moment.BETTING) -> BetOutcome:
        """Take a bet down (stake returned) if the rules allow it at `moment` (craps odds: until the
        decision, Portugal 1995 VI.11.1; other bets: while betting is open)."""
        position = self.open_bets.position(ticket)
        if position is None:
            raise refuse(RefusalReason.MALFORMED, f"no open bet with ticket {ticket}")
        self.game.check_withdrawal(self.state, self.open_bets, position, moment)
        bet = self.open_bets.bets[position]
        mask = np.ones(len(self.open_bets), dtype=bool)
        mask[position] = False
        self.open_bets.keep(mask)
        return BetOutcome(bet, Result.RETURNED, returned=bet.stake)

    def throw(self, faces: tuple[int, ...] | list[int], *, dealer_touched: bool = False) -> ThrowResult:
        """Settle every open bet against one valid throw; decided bets leave the layout.
        `dealer_touched`: the dealer lifted or touched the dice before announcing the chance — the throw
        stands, its winners are paid and no chance loses (banca francesa IV.7 d)."""
        outcome = outcome_index(faces, self.game.n_dice)
        faces = tuple(int(f) for f in faces)
        settlement = settle(self.game.table, self.open_bets, outcome, self.game.rounding)
        if dealer_touched:
            if self.game.touched_dice_losers is None:
                raise RulesError(f"{self.game.game} {self.game.rulebook} has no rule for dice the dealer touched "
                                 f"before announcing (banca francesa IV.7 d): void or settle the throw")
            settlement = settlement.losers_spared(self.open_bets.state.copy(),
                                                  stay=self.game.touched_dice_losers == "stay")
        before = self.state
        self.state = self.game.next_state(self.state, faces)
        self.open_bets.update(settlement.state, settlement.code == 0)
        return ThrowResult(faces, before, self.state, settlement)

    def return_all(self) -> list[BetOutcome]:
        """Close the table or void a round: every open bet's stake goes back."""
        out = [BetOutcome(b, Result.RETURNED, returned=b.stake) for b in self.open_bets.bets]
        self.open_bets = OpenBets()
        return out


def exact_win(outcome: BetOutcome) -> Fraction:
    """The exact win an outcome stood for (paid + breakage)."""
    return outcome.paid + outcome.breakage

