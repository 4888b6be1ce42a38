"""Exact house edges, read from the same resolution tables that settle bets.

A multi-roll bet is an absorbing Markov chain over its states; its win / lose / push
probabilities, expected win and expected number of throws are solved exactly (Fractions).
Edge per bet made counts a push as a bet made and a throw with no decision as nothing;
edge per throw divides by the expected number of throws the bet stays on the layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .bet_table import LOSE, PUSH, STAY, WIN, BetKind
from .errors import RulebookError


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


def edge_of(kind: BetKind, ratio_override: Fraction | None = None, condition: str | None = None) -> EdgeRow:
    """Exact probabilities and edge of one bet kind from its start state."""
    states = _reachable(kind)
    where = {s: i for i, s in enumerate(states)}
    n_out = kind.action.shape[1]
    p = Fraction(1, n_out)
    matrix = [[Fraction(0)] * len(states) for _ in states]
    rhs = []  # per state: [p_win, p_lose, p_push, expected win ratio, throws]
    for i, s in enumerate(states):
        matrix[i][i] += 1
        act = kind.action[s]
        for nxt in kind.next_state[s][act == STAY].tolist():
            matrix[i][where[nxt]] -= p
        wins = np.flatnonzero(act == WIN)
        win_ratio = sum(
            (ratio_override if ratio_override is not None else Fraction(int(kind.ratio_num[s, o]), int(kind.ratio_den[s, o])))
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
    return EdgeRow(kind.bet, kind.pays if ratio_override is None else f"{ratio_override.numerator}:{ratio_override.denominator}",
                   p_win, p_lose, p_push, edge, throws, kind.number, condition)


def edge_table(kinds: list[BetKind], minor_units_per_unit: int = 100) -> list[EdgeRow]:
    """The edge of every bet kind; a stake-dependent payout gets a second row for small stakes."""
    rows = []
    for kind in kinds:
        rows.append(edge_of(kind))
        if kind.small_stake:
            below = Fraction(kind.small_stake.below, minor_units_per_unit)
            rows.append(edge_of(kind, kind.small_stake.ratio, f"stake below {float(below):.2f}"))
    return rows
