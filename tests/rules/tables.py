"""Factories for rules-core tests: tables under each rule book with simple limits."""

from __future__ import annotations

import itertools
from fractions import Fraction

from firmware_host.rules.banca_francesa import BancaFrancesa
from firmware_host.rules.bets import Bet, BetOutcome
from firmware_host.rules.craps import Craps
from firmware_host.rules.cussec import Cussec
from firmware_host.rules.dice_game import DiceTable, Limits
from firmware_host.rules.money import RoundingRule

LIMITS = Limits(minimum=100, maximum=10_000_000)
_tickets = itertools.count()


def craps_table(book: str, **options) -> DiceTable:
    limits = options.pop("limits", LIMITS)
    rounding = options.pop("rounding", RoundingRule())
    return DiceTable(Craps(book, limits, rounding, **options))


def cussec_table(**options) -> DiceTable:
    return DiceTable(Cussec("portugal-1995", options.pop("limits", LIMITS), **options))


def banca_table(**options) -> DiceTable:
    return DiceTable(BancaFrancesa("portugal-1995", options.pop("limits", LIMITS), **options))


def place(table: DiceTable, bet: str, stake: int = 600, owner: str = "p1", number: int | None = None) -> Bet:
    placed = Bet(f"t{next(_tickets)}", bet, stake, owner, number)
    table.place(placed)
    return placed


def outcome_of(table: DiceTable, bet: Bet, faces) -> BetOutcome:
    """Throw `faces` and return what happened to `bet`."""
    result = table.throw(faces)
    return next(o for o in result.outcomes() if o.bet.ticket == bet.ticket)


def single(table: DiceTable, bet: str, faces, stake: int = 600, number: int | None = None) -> BetOutcome:
    """Place one bet and throw once."""
    return outcome_of(table, place(table, bet, stake, number=number), faces)


def won(outcome: BetOutcome) -> Fraction:
    """Net win as a multiple of the stake (exact, before rounding)."""
    return (outcome.paid + outcome.breakage) / outcome.bet.stake
