"""Bets as data: each bet kind is a resolution table over (bet state, dice outcome).

A `BetKind` says, for every state a bet can be in and every outcome of the dice, whether the
bet wins (and at what ratio), loses, pushes or stays (and in which state). Settlement reads the
tables for all open bets at once with numpy, and the house-edge enumeration (`edge.py`) reads
the very same tables, so what is settled and what is published as the edge cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable

import numpy as np

from .bets import Bet, BetOutcome, Result
from .errors import RulebookError
from .money import MAX_RATIO_TERM, RoundingRule, format_ratio, round_units

# A win ratio's numerator may be a "x:y" term times three (a cussec prize on three dice, VII.8 c, e);
# with stakes bounded by stakes.MAX_AMOUNT no int64 product in `settle` can overflow (stakes.py).
MAX_WIN_NUMERATOR = 3 * MAX_RATIO_TERM

# Result codes in the tables (int8).
STAY, WIN, LOSE, PUSH = 0, 1, 2, 3
_RESULT_OF_CODE = {STAY: Result.STAY, WIN: Result.WIN, LOSE: Result.LOSE, PUSH: Result.PUSH}

# A rule answers for one (state, faces): (code, ratio for a win or None, next state for a stay).
Rule = Callable[[int, tuple[int, ...]], tuple[int, Fraction | None, int]]


@dataclass(frozen=True, slots=True)
class SmallStake:
    """A stake below `below` minor units wins at `ratio` instead (Macau 1985 Art. 9-10)."""

    below: int
    ratio: Fraction


@dataclass(frozen=True)
class BetKind:
    """One bet's resolution table. `pays` is the headline ratio shown in paytables."""

    bet: str
    pays: str
    action: np.ndarray  # (states, outcomes) int8 codes
    ratio_num: np.ndarray  # (states, outcomes) int64, the win ratio where action == WIN
    ratio_den: np.ndarray
    next_state: np.ndarray  # (states, outcomes) int8
    start_state: int = 0
    multi_roll: bool = False
    at_risk: Fraction = Fraction(1)  # share of the chips that is the bet (banca francesa lines: 1/2)
    small_stake: SmallStake | None = None
    number: int | None = None  # the number a numbered bet (odds on a point) is on


def build_kind(
    bet: str,
    pays: str,
    rule: Rule,
    n_dice: int,
    n_states: int = 1,
    states: Iterable[int] = (0,),
    **options,
) -> BetKind:
    """Tabulate `rule` over every state in `states` and every outcome of n dice."""
    from .dice import all_faces

    faces = all_faces(n_dice)
    shape = (n_states, len(faces))
    action = np.zeros(shape, dtype=np.int8)
    num = np.zeros(shape, dtype=np.int64)
    den = np.ones(shape, dtype=np.int64)
    nxt = np.zeros(shape, dtype=np.int8)
    for state in states:
        for o, row in enumerate(faces):
            code, ratio, next_state = rule(state, tuple(int(f) for f in row))
            action[state, o] = code
            nxt[state, o] = next_state if code == STAY else state
            if code == WIN:
                if ratio is None or ratio <= 0:
                    raise RulebookError(f"bet {bet}: a win needs a positive ratio")
                if ratio.numerator > MAX_WIN_NUMERATOR or ratio.denominator > MAX_RATIO_TERM:
                    raise RulebookError(f"bet {bet}: a win of {format_ratio(ratio)} is beyond the bounds of a payout "
                                        f"ratio (x up to {MAX_WIN_NUMERATOR}, y up to {MAX_RATIO_TERM})")
                num[state, o], den[state, o] = ratio.numerator, ratio.denominator
    multi_roll = bool((action[list(states)] == STAY).any())
    for arr in (action, num, den, nxt):
        arr.setflags(write=False)
    return BetKind(bet, pays, action, num, den, nxt, multi_roll=multi_roll, **options)


def one_roll(bet: str, n_dice: int, pays: Callable[[tuple[int, ...]], Fraction | None], headline: Fraction) -> BetKind:
    """A bet decided on every throw: wins at `pays(faces)` when that is not None, else loses."""

    def rule(state: int, faces: tuple[int, ...]):
        ratio = pays(faces)
        return (WIN, ratio, state) if ratio is not None else (LOSE, None, state)

    return build_kind(bet, format_ratio(headline), rule, n_dice)


class BetTable:
    """All the bet kinds of one rule book, stacked into arrays for vectorised settlement."""

    def __init__(self, kinds: Iterable[BetKind]) -> None:
        self.kinds: list[BetKind] = list(kinds)
        self.index: dict[tuple[str, int | None], int] = {}
        self._first: dict[str, int] = {}
        for i, kind in enumerate(self.kinds):
            key = (kind.bet, kind.number)
            if key in self.index:
                raise RulebookError(f"bet {kind.bet} is defined twice")
            self.index[key] = i
            self._first.setdefault(kind.bet, i)
        self.bet_ids = sorted({k.bet for k in self.kinds})
        n_states = max(k.action.shape[0] for k in self.kinds)

        def stacked(name: str, fill: int) -> np.ndarray:
            # Kinds with fewer states are padded; padded rows are never reached.
            rows = []
            for k in self.kinds:
                arr = getattr(k, name)
                pad = np.full((n_states - arr.shape[0], arr.shape[1]), fill, dtype=arr.dtype)
                rows.append(np.concatenate([arr, pad]))
            return np.stack(rows)

        self.action = stacked("action", STAY)
        self.ratio_num = stacked("ratio_num", 0)
        self.ratio_den = stacked("ratio_den", 1)
        self.next_state = stacked("next_state", 0)
        self.small_below = np.array([k.small_stake.below if k.small_stake else 0 for k in self.kinds], dtype=np.int64)
        self.small_num = np.array([k.small_stake.ratio.numerator if k.small_stake else 1 for k in self.kinds], dtype=np.int64)
        self.small_den = np.array([k.small_stake.ratio.denominator if k.small_stake else 1 for k in self.kinds], dtype=np.int64)
        self.risk_num = np.array([k.at_risk.numerator for k in self.kinds], dtype=np.int64)
        self.risk_den = np.array([k.at_risk.denominator for k in self.kinds], dtype=np.int64)

    def kind_of(self, bet: str, number: int | None = None) -> int | None:
        """Index of the kind for a bet id (and number, for numbered bets), or None."""
        return self.index.get((bet, number))

    def index_of_bet(self, bet: str) -> int:
        """Index of the first kind of a bet id (numbered bets share everything but their number)."""
        return self._first[bet]


class OpenBets:
    """The bets on the layout, as parallel arrays (one row a bet) so a throw settles them all at once.

    Arrays grow by doubling, and indexes by ticket and by (owner, bet, number, state) keep every
    check made when a bet is placed O(1), however many bets are open.
    """

    def __init__(self) -> None:
        self.bets: list[Bet] = []
        self._kind = np.zeros(16, dtype=np.int32)
        self._state = np.zeros(16, dtype=np.int8)
        self._stake = np.zeros(16, dtype=np.int64)
        self._tickets: set[str] = set()
        self._positions: dict[str, int] | None = {}  # rebuilt lazily after rows move
        self._totals: dict[tuple, int] = {}

    def __len__(self) -> int:
        return len(self.bets)

    @property
    def kind(self) -> np.ndarray:
        return self._kind[: len(self.bets)]

    @property
    def state(self) -> np.ndarray:
        return self._state[: len(self.bets)]

    @property
    def stake(self) -> np.ndarray:
        return self._stake[: len(self.bets)]

    def add(self, bet: Bet, kind: int, state: int) -> None:
        self.add_many([bet], [kind], [state])

    def add_many(self, bets: list[Bet], kinds: list[int], states: list[int]) -> None:
        start, end = len(self.bets), len(self.bets) + len(bets)
        if end > len(self._kind):
            capacity = max(end, 2 * len(self._kind))
            for name in ("_kind", "_state", "_stake"):
                old = getattr(self, name)
                grown = np.zeros(capacity, dtype=old.dtype)
                grown[:start] = old[:start]
                setattr(self, name, grown)
        self._kind[start:end] = kinds
        self._state[start:end] = states
        self._stake[start:end] = [b.stake for b in bets]
        for offset, (bet, state) in enumerate(zip(bets, states)):
            self.bets.append(bet)
            self._index(bet, int(state), start + offset)

    def _index(self, bet: Bet, state: int, position: int) -> None:
        self._tickets.add(bet.ticket)
        if self._positions is not None:
            self._positions[bet.ticket] = position
        self._count(bet, (bet.owner, bet.bet, bet.number, None), bet.stake)
        self._count(bet, (bet.owner, bet.bet, None, state), bet.stake)

    def _count(self, bet: Bet, key: tuple, amount: int) -> None:
        total = self._totals.get(key, 0) + amount
        if total:
            self._totals[key] = total
        else:
            self._totals.pop(key, None)

    def total(self, owner: str, bet: str, number: int | None) -> int:
        """The owner's stakes on one bet (and number)."""
        return self._totals.get((owner, bet, number, None), 0)

    def total_in_state(self, owner: str, bet: str, state: int) -> int:
        """The owner's stakes on one bet whose state (a line bet's point) is `state`."""
        return self._totals.get((owner, bet, None, state), 0)

    def update(self, states: np.ndarray, keep: np.ndarray) -> None:
        """After a throw: every bet's new state, then only the rows where `keep` is true.
        Indexes change only for the bets decided or moved to a new state."""
        old = self.state.copy()
        self.state[:] = states
        for i in np.flatnonzero(keep & (old != self.state)).tolist():
            bet = self.bets[i]
            self._count(bet, (bet.owner, bet.bet, None, int(old[i])), -bet.stake)
            self._count(bet, (bet.owner, bet.bet, None, int(states[i])), bet.stake)
        self._drop(np.flatnonzero(~keep).tolist())
        self._compact(keep)

    def keep(self, mask: np.ndarray) -> None:
        """Keep only the rows where mask is true."""
        self._drop(np.flatnonzero(~mask).tolist())
        self._compact(mask)

    def _drop(self, rows: list[int]) -> None:
        states = self.state
        for i in rows:
            bet = self.bets[i]
            self._tickets.discard(bet.ticket)
            self._count(bet, (bet.owner, bet.bet, bet.number, None), -bet.stake)
            self._count(bet, (bet.owner, bet.bet, None, int(states[i])), -bet.stake)

    def _compact(self, mask: np.ndarray) -> None:
        n = len(self.bets)
        self.bets = [b for b, k in zip(self.bets, mask.tolist()) if k]
        m = len(self.bets)
        for name in ("_kind", "_state", "_stake"):
            arr = getattr(self, name)
            arr[:m] = arr[:n][mask]
        self._positions = None

    def __contains__(self, ticket: str) -> bool:
        return ticket in self._tickets

    def position(self, ticket: str) -> int | None:
        if self._positions is None:
            self._positions = {b.ticket: i for i, b in enumerate(self.bets)}
        return self._positions.get(ticket)


@dataclass
class Settlement:
    """What one throw did to every open bet, as arrays aligned with `bets`."""

    bets: list[Bet]
    code: np.ndarray
    paid: np.ndarray
    returned: np.ndarray
    kept: np.ndarray
    breakage_num: np.ndarray  # breakage = breakage_num / breakage_den minor units
    breakage_den: np.ndarray
    state: np.ndarray  # each bet's state after the throw (its point, for craps line bets)

    def losers_spared(self, before: np.ndarray, *, stay: bool) -> Settlement:
        """The same throw with no bet lost: winners are paid, every losing bet stays on the layout in
        its state `before` (`stay`) or has its stake returned (banca francesa IV.7 d)."""
        lose = self.code == LOSE
        if stay:
            return Settlement(self.bets, np.where(lose, STAY, self.code), self.paid, np.where(lose, 0, self.returned),
                              np.where(lose, 0, self.kept), self.breakage_num, self.breakage_den,
                              np.where(lose, before, self.state))
        stakes = np.array([b.stake for b in self.bets], dtype=np.int64)
        return Settlement(self.bets, np.where(lose, PUSH, self.code), self.paid, np.where(lose, stakes, self.returned),
                          np.where(lose, 0, self.kept), self.breakage_num, self.breakage_den, self.state)

    def outcomes(self) -> list[BetOutcome]:
        """One `BetOutcome` per bet (materialised on demand; settlement itself stays in arrays)."""
        zero = Fraction(0)
        results = [_RESULT_OF_CODE[c] for c in range(4)]
        columns = zip(self.bets, self.code.tolist(), self.paid.tolist(), self.returned.tolist(), self.kept.tolist(),
                      self.breakage_num.tolist(), self.breakage_den.tolist(), self.state.tolist())
        return [BetOutcome(bet, results[code], paid, returned, kept,
                           Fraction(b_num, b_den) if b_num else zero, state or None)
                for bet, code, paid, returned, kept, b_num, b_den, state in columns]


def settle(table: BetTable, open_bets: OpenBets, outcome: int, rounding: RoundingRule) -> Settlement:
    """Settle every open bet against one outcome index. Pure: returns a `Settlement`."""
    kind, state, stake = open_bets.kind, open_bets.state.astype(np.intp), open_bets.stake
    code = table.action[kind, state, outcome]
    num = table.ratio_num[kind, state, outcome]
    den = table.ratio_den[kind, state, outcome]
    small = stake < table.small_below[kind]
    if small.any():
        num = np.where(small, table.small_num[kind], num)
        den = np.where(small, table.small_den[kind], den)
    at_risk = stake * table.risk_num[kind] // table.risk_den[kind]
    win, lose, push = code == WIN, code == LOSE, code == PUSH
    exact_num = np.where(win, at_risk * num, 0)
    den = np.where(win, den, 1)
    paid = round_units(exact_num, den, rounding.unit, rounding.mode)
    decided = win | lose | push
    returned = np.where(lose, stake - at_risk, np.where(decided, stake, 0))
    kept = np.where(lose, at_risk, 0)
    return Settlement(
        open_bets.bets,
        code,
        paid,
        returned,
        kept,
        exact_num - paid * den,
        den,
        table.next_state[kind, state, outcome],
    )
