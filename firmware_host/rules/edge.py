"""Exact house edges, read from the same resolution tables that settle bets, and the edge actually paid.

A multi-roll bet is an absorbing Markov chain over its states; its win / lose / push
probabilities, expected win and expected number of throws are solved exactly (Fractions).
Edge per bet made counts a push as a bet made and a throw with no decision as nothing;
edge per throw divides by the expected number of throws the bet stays on the layout.
Beside the exact edge, each row gives the edge actually paid at the least stake the table takes
on that bet, every win rounded by the table's rule (Macau 2010 Art. 7.2: the house advantage a
regulator approves is the one the table pays): lay 6 at 10:13 on EUR 5 paying whole euros pays 3,
so 12.7% instead of 5/143 = 3.5%.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable

import numpy as np

from .bet_table import LOSE, PUSH, STAY, WIN, BetKind
from .errors import RulebookError
from .money import RoundingRule, format_ratio


@dataclass(frozen=True, slots=True)
class PaidAtLeast:
    """The edge actually paid at `stake`, the least stake the row applies to, under the table's rounding."""

    stake: int
    edge: Fraction


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """One line of the regulator's table: a bet, its payout and its exact edge."""

    bet: str
    pays: str
    p_win: Fraction
    p_lose: Fraction
    p_push: Fraction
    edge: Fraction  # house's expected gain per unit staked, per bet made
    throws: Fraction  # expected throws from placing the bet to its decision
    number: int | None = None
    condition: str | None = None  # e.g. "stake below 6.00" for a stake-dependent payout
    paid: PaidAtLeast | None = None  # None: no stake the table takes falls under this row

    @property
    def edge_per_throw(self) -> Fraction:
        return self.edge / self.throws


def _solve(matrix: list[list[Fraction]], rhs: list[list[Fraction]]) -> list[list[Fraction]]:
    """Solve matrix · X = rhs exactly (Gauss-Jordan over Fractions; a handful of states)."""
    n = len(matrix)
    a = [row[:] + r[:] for row, r in zip(matrix, rhs)]
    for col in range(n):
        pivot = next((r for r in range(col, n) if a[r][col] != 0), None)
        if pivot is None:
            raise RulebookError("a bet can stay on the layout forever: its table never decides")
        a[col], a[pivot] = a[pivot], a[col]
        inv = 1 / a[col][col]
        a[col] = [v * inv for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                factor = a[r][col]
                a[r] = [v - factor * p for v, p in zip(a[r], a[col])]
    return [row[n:] for row in a]


def _reachable(kind: BetKind) -> list[int]:
    seen, todo = [kind.start_state], [kind.start_state]
    while todo:
        state = todo.pop()
        stays = kind.action[state] == STAY
        for nxt in np.unique(kind.next_state[state][stays]).tolist():
            if nxt not in seen:
                seen.append(nxt)
                todo.append(nxt)
    return seen


def edge_of(kind: BetKind, ratio_override: Fraction | None = None, condition: str | None = None,
            paid: Callable[[Fraction], Fraction] | None = None) -> EdgeRow:
    """Exact probabilities and edge of one bet kind from its start state; `paid` maps each win
    ratio to the ratio actually paid (the edge then is the one paid)."""
    states = _reachable(kind)
    where = {s: i for i, s in enumerate(states)}
    n_out = kind.action.shape[1]
    p = Fraction(1, n_out)
    pay = paid or (lambda ratio: ratio)
    matrix = [[Fraction(0)] * len(states) for _ in states]
    rhs = []  # per state: [p_win, p_lose, p_push, expected win ratio, throws]
    for i, s in enumerate(states):
        matrix[i][i] += 1
        act = kind.action[s]
        for nxt in kind.next_state[s][act == STAY].tolist():
            matrix[i][where[nxt]] -= p
        wins = np.flatnonzero(act == WIN)
        win_ratio = sum(
            pay(ratio_override if ratio_override is not None else Fraction(int(kind.ratio_num[s, o]), int(kind.ratio_den[s, o])))
            for o in wins.tolist()
        )
        rhs.append([
            p * len(wins),
            p * int((act == LOSE).sum()),
            p * int((act == PUSH).sum()),
            p * win_ratio,
            Fraction(1),
        ])
    p_win, p_lose, p_push, win_value, throws = _solve(matrix, rhs)[0]
    edge = p_lose - win_value
    return EdgeRow(kind.bet, kind.pays if ratio_override is None else format_ratio(ratio_override),
                   p_win, p_lose, p_push, edge, throws, kind.number, condition)


def paid_at(kind: BetKind, stake: int, rounding: RoundingRule, ratio_override: Fraction | None = None) -> PaidAtLeast:
    """The edge actually paid on `stake` chips: every win of `kind` rounded on the part at risk."""
    risked = stake * kind.at_risk
    edge = edge_of(kind, ratio_override, paid=lambda ratio: rounding.paid_ratio(ratio, risked)).edge
    return PaidAtLeast(stake, edge)


def edge_table(kinds: list[BetKind], minor_units_per_unit: int = 100,
               least_stake: Callable[[BetKind], tuple[int, int]] | None = None,
               rounding: RoundingRule | None = None) -> list[EdgeRow]:
    """The edge of every bet kind; a stake-dependent payout gets a second row for small stakes.
    With `least_stake` (kind -> (the least stake the table takes, its stake step)) and `rounding`,
    each row also gives the edge actually paid at the least stake that row applies to."""
    rows = []
    for kind in kinds:
        least, step = least_stake(kind) if least_stake else (0, 1)
        small = kind.small_stake
        row = edge_of(kind)
        if rounding is not None:
            # The headline row applies from the small-stake threshold up (Macau 1985 Art. 9-10).
            stake = max(least, -(-small.below // step) * step) if small else least
            row = replace(row, paid=paid_at(kind, stake, rounding))
        rows.append(row)
        if small:
            below = Fraction(small.below, minor_units_per_unit)
            row = edge_of(kind, small.ratio, f"stake below {float(below):.2f}")
            if rounding is not None and least < small.below:
                row = replace(row, paid=paid_at(kind, least, rounding, small.ratio))
            rows.append(row)
    return rows


def one_ratio_row(bet: str, ratio: Fraction, p_win: Fraction, p_lose: Fraction, p_push: Fraction,
                  rounding: RoundingRule, least: int, pays: str | None = None) -> EdgeRow:
    """The row of a bet decided at once with one win ratio (punto banco, roulette): its exact edge
    and the edge paid at the least stake."""
    return EdgeRow(bet, pays or format_ratio(ratio), p_win, p_lose, p_push, p_lose - p_win * ratio, Fraction(1),
                   paid=PaidAtLeast(least, p_lose - p_win * rounding.paid_ratio(ratio, least)))
