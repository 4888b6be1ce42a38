"""Benchmark: settling 10,000 open bets against one throw (beside crapssim on the same bets), and `tablehw edge`.

Prints figures; asserts only that both engines settled the same bets (no timed assertions).
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from crapssim import bet as cs
from crapssim.strategy.tools import NullStrategy
from crapssim.table import Table

from firmware_host.config import load_config
from firmware_host.games import build_dice_game
from firmware_host.rules.bet_table import settle
from firmware_host.rules.bets import Bet
from firmware_host.rules.craps import Craps
from firmware_host.rules.dice import outcome_index
from firmware_host.rules.dice_game import DiceTable, Limits

ROOT = Path(__file__).resolve().parents[2]
N_BETS = 10_000
MULTI = ["place_4", "place_5", "place_6", "place_8", "place_9", "place_10", "hard_4", "hard_6", "hard_8", "hard_10"]
ONE = ["field", "any_craps", "any_seven", "eleven", "ace_deuce", "aces", "boxcars", "horn"]


def layout(seed: int = 1):
    """10,000 bets with the same mix in both engines: line bets with points, odds, place, hardways, one-roll."""
    rng = random.Random(seed)
    ours = DiceTable(Craps("macau-2010", Limits(60, 10**9), odds_multiple=6))
    ours.state = type(ours.state)(point=6)
    theirs = Table()
    theirs.settings["come_out_working_policy"] = "legacy"
    theirs.point.number = 6  # the point is on (status derives from the number)
    bets, kinds, states = [], [], []
    players = []
    for i in range(N_BETS // 4):
        player = theirs.add_player(bankroll=10**12, strategy=NullStrategy(), name=f"p{i}")
        players.append(player)
        point = rng.choice([4, 5, 6, 8, 9, 10])
        picks = [("come", point), ("odds", point), (rng.choice(MULTI), 0), (rng.choice(ONE), 0)]
        for bet, state in picks:
            stake = 60 * rng.randint(1, 5)
            number = point if bet == "odds" else None
            b = Bet(f"{i}-{bet}", bet, stake, f"p{i}", number)
            bets.append(b)
            kinds.append(ours.game.table.kind_of(bet, number))
            states.append(state)
            if bet == "come":
                c = cs.Come(float(stake), point)
            elif bet == "odds":
                c = cs.Odds(cs.Come, point, float(stake), always_working=True)
            elif bet.startswith("place_"):
                c = cs.Place(int(bet[6:]), float(stake))
            elif bet.startswith("hard_"):
                c = cs.HardWay(int(bet[5:]), float(stake))
            else:
                c = {"field": cs.Field, "any_craps": cs.AnyCraps, "any_seven": cs.Any7, "eleven": cs.Yo,
                     "ace_deuce": cs.Three, "aces": cs.Two, "boxcars": cs.Boxcars, "horn": cs.Horn}[bet](float(stake))
            player.bets.append(c)
    ours.open_bets.add_many(bets, kinds, states)
    return ours, theirs


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def test_bench_settle_10000_bets_beside_crapssim():
    ours, theirs = layout()
    faces = (2, 4)
    outcome = outcome_index(faces, 2)
    theirs.dice.fixed_roll(faces)
    bet_objects = [b for _, b in theirs.yield_player_bets()]
    assert len(bet_objects) == len(ours.open_bets) == N_BETS

    arrays = best_of(lambda: settle(ours.game.table, ours.open_bets, outcome, ours.game.rounding), 50)
    with_records = best_of(lambda: settle(ours.game.table, ours.open_bets, outcome, ours.game.rounding).outcomes(), 5)
    crapssim = best_of(lambda: [b.get_result(theirs) for b in bet_objects], 5)

    def table_throw():
        table, _ = layout()
        start = time.perf_counter()
        table.throw(faces)
        return time.perf_counter() - start
    whole = min(table_throw() for _ in range(3))

    # Both engines agree on the totals for this throw.
    settlement = settle(ours.game.table, ours.open_bets, outcome, ours.game.rounding)
    ours_back = int(settlement.paid.sum() + settlement.returned.sum())
    theirs_back = sum(max(r.amount, 0) for r in (b.get_result(theirs) for b in bet_objects))
    assert abs(ours_back - theirs_back) < N_BETS  # crapssim pays in floats; ours rounds down to the minor unit

    rate = lambda seconds: N_BETS / seconds / 1e6
    print(f"\nsettle {N_BETS} open bets against one throw (craps, macau-2010):")
    print(f"  tablehw settle() arrays        {arrays * 1e3:8.3f} ms  {rate(arrays):8.2f} M bets/s")
    print(f"  tablehw DiceTable.throw()      {whole * 1e3:8.3f} ms  {rate(whole):8.2f} M bets/s (settle + layout update)")
    print(f"  tablehw with BetOutcome records{with_records * 1e3:8.3f} ms  {rate(with_records):8.2f} M bets/s")
    print(f"  crapssim bet.get_result()      {crapssim * 1e3:8.3f} ms  {rate(crapssim):8.2f} M bets/s")
    print(f"  speed-up (arrays vs crapssim)  {crapssim / arrays:8.1f} x")


def test_bench_edge_for_every_config():
    print("\ntablehw edge (build the rule book + exact enumeration):")
    for path in sorted((ROOT / "config").glob("*.toml")):
        config = load_config(path)
        try:
            start = time.perf_counter()
            game = build_dice_game(config, str(path))
            rows = game.edge_rows()
            elapsed = time.perf_counter() - start
        except Exception as exc:  # card and wheel configs are not dice games
            print(f"  {path.name:<40} (not a dice game: {type(exc).__name__})")
            continue
        print(f"  {path.name:<40} {len(rows):3d} bets  {elapsed * 1e3:8.1f} ms")
