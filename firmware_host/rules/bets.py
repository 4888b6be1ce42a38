"""Bets and what becomes of them: the records the rules core takes in and gives back."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class Bet:
    """One bet: ticket id (unique per table for its whole life, `ticket_problem`), bet id from the paytable, stake in minor units,
    the owner (player or terminal id) and, where the bet needs one, a number or point."""

    ticket: str
    bet: str
    stake: int
    owner: str
    number: int | None = None


def ticket_problem(ticket: object, seen: "set[str] | frozenset[str]") -> tuple[str, str] | None:
    """Why a ticket id cannot name a new bet — ("malformed" | "duplicate_ticket", message) — or None.
    A ticket names one bet in the table's life: once accepted it is never accepted again, even after
    its bet was decided or withdrawn (two outcomes under one ticket would be two results for one
    record). '/' is kept for the records the rules core derives from a bet (T/hand2, T/insurance)."""
    if not isinstance(ticket, str) or not ticket:
        return "malformed", "a bet needs a non-empty ticket id and owner"
    if "/" in ticket:
        return "malformed", f"ticket {ticket!r}: '/' is kept for the records a bet becomes (T/hand2, T/insurance)"
    if ticket in seen:
        return "duplicate_ticket", f"ticket {ticket} was already accepted at this table: a ticket names one bet, once"
    return None


class Moment(enum.StrEnum):
    """When a bet is placed or taken down, as far as the rules care: the round engine's phases map
    onto these (betting open; "no more bets" with the dice not yet thrown; the outcome being made)."""

    BETTING = "betting"  # bets are open
    BEFORE_DECISION = "before_decision"  # betting closed, the dice not thrown (the ball not launched, no card out)
    DECIDING = "deciding"  # the dice are thrown (the ball spins, the cards come out): nothing comes down


class Result(enum.StrEnum):
    """What one throw did to a bet."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"  # decided, stake returned, nothing won
    STAY = "stay"  # not decided; stays on the layout (possibly with a new point)
    RETURNED = "returned"  # void coup or withdrawn: stake returned, never played


class BetOutcome(NamedTuple):
    """A bet's settlement: `paid` is the win paid, `returned` the stake handed back,
    `kept` the stake the house keeps, `breakage` the exact part of the win not paid by rounding.
    Money is conserved: at_risk + exact win == returned + kept + paid + breakage
    (a staying bet has none of these and keeps its stake on the layout)."""

    bet: Bet
    result: Result
    paid: int = 0
    returned: int = 0
    kept: int = 0
    breakage: Fraction = Fraction(0)
    point: int | None = None  # the bet's point after this throw, for bets that carry one


# BetOutcome is a NamedTuple (not a dataclass) because settling 10,000 bets builds 10,000 of them.
