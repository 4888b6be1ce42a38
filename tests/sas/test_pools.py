"""Jackpot and superjackpot pools: pool = seed + contributions - awards, exactly, in integer cents."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.slots.pools import Pool, PoolError, Pools
from firmware_host.slots.state import SlotState

MACHINES = ("m1", "m2", "m3")
DENOMINATIONS = (Fraction(1), Fraction(2), Fraction(5), Fraction(20), Fraction(1, 2))  # cents per credit


def _pools() -> list[Pool]:
    return [Pool("jackpot-m1", 50_000, Fraction(15, 1000), 1, 2, ("m1",)),
            Pool("super", 500_000, Fraction(5, 1000), 1, 1, MACHINES),
            Pool("jackpot-m3", 20_000, Fraction(7, 300), 2, 1, ("m3",))]


operations = st.lists(st.one_of(
    st.tuples(st.just("play"), st.sampled_from(MACHINES), st.integers(0, 5_000), st.sampled_from(DENOMINATIONS)),
    st.tuples(st.just("win"), st.sampled_from(("jackpot-m1", "super", "jackpot-m3")), st.sampled_from(MACHINES),
              st.integers(0, 2_000_000)),
    st.tuples(st.just("transfer"), st.sampled_from(("jackpot-m1", "super", "jackpot-m3")),
              st.sampled_from(("jackpot-m1", "super", "jackpot-m3")))), max_size=60)


@settings(max_examples=300, deadline=None)
@given(operations)
def test_pool_equals_seed_plus_contributions_minus_awards_exactly(ops):
    pools = Pools({p.pool_id: p for p in _pools()})
    for pool_id in pools.pools:
        pools.seed_new(pool_id)
    for op in ops:
        if op[0] == "play":
            _, machine, credits, cents = op
            for c in pools.contribute(machine, credits, cents):
                assert c.exact == credits * cents * pools.get(c.pool_id).rate  # nothing rounded away
        elif op[0] == "win":
            _, pool_id, machine, cents = op
            before = pools.get(pool_id).cents
            award = pools.award(pool_id, machine, cents)
            assert award.top_up == max(0, cents - before)  # the house covers a prize above the pool
            assert pools.get(pool_id).cents == before + award.top_up - cents + award.reseed
        elif op[1] != op[2]:
            pools.transfer(op[1], op[2])
        for pool in pools.pools.values():
            assert isinstance(pool.cents, int) and 0 <= pool.carry < 1
            assert pool.cents + pool.carry == (pool.seeded + pool.contributed + pool.transferred_in
                                               - pool.awarded - pool.transferred_out)
            assert pool.balanced() and pool.cents >= 0
    everything = pools.pools.values()
    assert sum(p.value for p in everything) == sum(p.seeded + p.contributed - p.awarded for p in everything)


def test_fractional_contributions_are_carried_not_dropped():
    pools = Pools({"j": Pool("j", 0, Fraction(15, 1000), 1, 1, ("m1",))})
    for _ in range(7):
        pools.contribute("m1", 1, Fraction(1))  # 0.015 cent each
    pool = pools.get("j")
    assert (pool.cents, pool.carry) == (0, Fraction(105, 1000))
    pools.contribute("m1", 60, Fraction(1))  # +0.9 cent: 1.005 in all
    assert (pool.cents, pool.carry) == (1, Fraction(5, 1000)) and pool.contributed == Fraction(1005, 1000)


def test_win_pays_the_prize_and_reseeds():
    pools = Pools({"j": Pool("j", 10_000, Fraction(1, 100), 1, 1, ("m1",))})
    pools.seed_new("j")
    pools.contribute("m1", 100_000, Fraction(1))  # +1000 cents
    award = pools.award("j", "m1", 11_000)
    assert (award.paid, award.top_up, award.reseed) == (11_000, 0, 10_000)
    assert pools.get("j").cents == 10_000 and pools.get("j").hits == 1


def test_a_prize_above_the_pool_is_topped_up_by_the_house():
    pools = Pools({"j": Pool("j", 10_000, Fraction(1, 100), 1, 1, ("m1",))})
    pools.seed_new("j")
    award = pools.award("j", "m1", 12_500)
    assert award.top_up == 2_500 and pools.get("j").balanced()


def test_transfer_moves_everything_including_the_carry():
    pools = Pools({p.pool_id: p for p in _pools()})
    pools.seed_new("jackpot-m1")
    pools.contribute("m1", 333, Fraction(1))  # 4.995 cents
    moved = pools.transfer("jackpot-m1", "jackpot-m3")
    assert moved == 50_000 + Fraction(4995, 1000)
    assert pools.get("jackpot-m1").value == 0 and pools.get("jackpot-m3").value == moved
    with pytest.raises(PoolError):
        pools.transfer("super", "super")


def test_state_replays_pool_events_to_the_same_cents():
    state = SlotState(list(MACHINES), _pools())
    events = [("pool_seeded", {"pool": "super"}),
              ("slot_info", {"machine": "m2", "denomination_code": 1, "base_pct_hundredths": 9200, "max_bet": 10}),
              ("slot_meters", {"machine": "m2", "game": 0, "digits": 8, "values": {"coin_in": 777},
                               "accounted": {"coin_in": 777, "paid": 700, "games": 100},
                               "windows": {"day": "2024-01-01"}, "cents_per_credit": "1/1"}),
              ("pool_award", {"pool": "super", "machine": "m2", "paid": 400_000})]
    for kind, body in events:
        state.apply(kind, body)
    again = SlotState(list(MACHINES), _pools())
    again.restore(state.snapshot())
    assert again.snapshot() == state.snapshot()
    assert state.pools.get("super").cents == 500_000 + 3 - 400_000 + 500_000  # 777 * 0.5 % = 3.885 cents
