"""Jackpot and superjackpot pools, with no I/O: contributions, awards, reseeding and transfers, to the cent.

A pool is funded by `rate` (a Fraction: 0.015 = 1.5 %) of the coin-in deltas of its machines, valued at
the machine's denomination (Fraction of a cent per credit). A contribution is rarely a whole number of
cents: the exact amount is added to the pool's `carry` (a Fraction, always in [0, 1)) and only whole
cents move into `cents`, so the pool holds integer minor units and nothing is ever rounded away.
At all times, exactly:

    cents + carry == seeded + contributed + transferred_in - awarded - transferred_out

where `contributed` is the exact sum of contributions (a Fraction) and the others are whole cents
(transfers move the carry too). After a win the award leaves the pool and the pool is reseeded with
`seed` cents from the house; an award larger than the pool (two hits before the reset broadcast) is
covered by a house top-up, recorded as seed. A pool that cannot be awarded moves, whole, to a pool
whose machines have the same model and bet (004 §VIII).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import floor

from ..errors import TableError


class PoolError(TableError, ValueError):
    """A pool operation that would break the accounting (unknown pool, incompatible transfer)."""


@dataclass
class Pool:
    pool_id: str
    seed: int  # cents put in at start and after every win
    rate: Fraction  # of coin in
    group: int  # SAS progressive group
    level: int  # SAS progressive level (1 = top award)
    machines: tuple[str, ...]
    cents: int = 0
    carry: Fraction = Fraction(0)
    seeded: int = 0
    contributed: Fraction = Fraction(0)
    awarded: int = 0
    transferred_in: Fraction = Fraction(0)
    transferred_out: Fraction = Fraction(0)
    hits: int = 0

    @property
    def value(self) -> Fraction:
        return self.cents + self.carry

    def balanced(self) -> bool:
        return self.value == (self.seeded + self.contributed + self.transferred_in
                              - self.awarded - self.transferred_out) and 0 <= self.carry < 1


@dataclass(frozen=True, slots=True)
class Contribution:
    pool_id: str
    machine_id: str
    coin_in: int  # credits
    exact: Fraction  # cents
    credited: int  # whole cents moved from the carry into the pool


@dataclass(frozen=True, slots=True)
class Award:
    pool_id: str
    machine_id: str
    paid: int  # cents
    top_up: int  # house cents added because the pool held less than the prize
    reseed: int


@dataclass
class Pools:
    pools: dict[str, Pool] = field(default_factory=dict)

    def get(self, pool_id: str) -> Pool:
        try:
            return self.pools[pool_id]
        except KeyError:
            raise PoolError(f"no pool {pool_id!r}") from None

    def seed_new(self, pool_id: str) -> int:
        pool = self.get(pool_id)
        pool.cents += pool.seed
        pool.seeded += pool.seed
        return pool.seed

    def contribute(self, machine_id: str, coin_in: int, cents_per_credit: Fraction) -> list[Contribution]:
        """Fund every pool the machine belongs to from a coin-in delta (credits)."""
        out = []
        for pool in self.pools.values():
            if machine_id not in pool.machines or coin_in <= 0:
                continue
            exact = coin_in * cents_per_credit * pool.rate
            pool.carry += exact
            whole = floor(pool.carry)
            pool.carry -= whole
            pool.cents += whole
            pool.contributed += exact
            out.append(Contribution(pool.pool_id, machine_id, coin_in, exact, whole))
        return out

    def find(self, machine_id: str, group: int, level: int) -> Pool | None:
        for pool in self.pools.values():
            if machine_id in pool.machines and pool.group == group and pool.level == level:
                return pool
        return None

    def award(self, pool_id: str, machine_id: str, cents: int) -> Award:
        """Pay `cents` from the pool to a win on `machine_id`, then reseed it."""
        pool = self.get(pool_id)
        if cents < 0:
            raise PoolError(f"award of {cents} cents from {pool_id!r}")
        top_up = max(0, cents - pool.cents)
        pool.cents += top_up
        pool.seeded += top_up
        pool.cents -= cents
        pool.awarded += cents
        pool.hits += 1
        reseed = self.seed_new(pool_id)
        return Award(pool_id, machine_id, cents, top_up, reseed)

    def transfer(self, source_id: str, target_id: str) -> Fraction:
        """Move everything in `source_id` (cents and carry) into `target_id`; returns the amount."""
        source, target = self.get(source_id), self.get(target_id)
        if source is target:
            raise PoolError(f"cannot transfer pool {source_id!r} to itself")
        amount = source.value
        source.transferred_out += amount
        source.cents, source.carry = 0, Fraction(0)
        target.transferred_in += amount
        total = target.carry + amount
        whole = floor(total)
        target.cents += whole
        target.carry = total - whole
        return amount

    def displayed(self) -> dict[str, int]:
        """What the machines show: whole cents of every pool."""
        return {p.pool_id: p.cents for p in self.pools.values()}
