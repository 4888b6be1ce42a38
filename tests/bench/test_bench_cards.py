"""Benchmark: punto banco exhaustive enumeration (8 and 6 decks), and validator + settlement throughput per
coup for punto banco, blackjack and roulette. Prints figures; asserts only that the work was done right
(the published 8-deck counts, every coup complete), never a time."""

from __future__ import annotations

import random
import time

from firmware_host.rules.baccarat_edge import enumerate_decks
from firmware_host.rules.bets import Bet
from firmware_host.rules.blackjack import Blackjack
from firmware_host.rules.cards import RANKS, SUITS, Card
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.punto_banco import PuntoBanco
from firmware_host.rules.roulette import Roulette, RouletteBet
from firmware_host.rules.shoe import Shoe

ALL_52 = [Card(r, s) for r in RANKS for s in SUITS]


def shuffled_shoe(decks: int, rng: random.Random) -> list[Card]:
    cards = ALL_52 * decks
    rng.shuffle(cards)
    return cards


def test_bench_punto_banco_enumeration():
    for decks in (8, 6):
        start = time.perf_counter()
        counts = enumerate_decks(decks)
        seconds = time.perf_counter() - start
        print(f"\npunto banco {decks} decks: exhaustive enumeration of the shoe in {seconds * 1000:.1f} ms "
              f"({counts.total:,} six-card sequences: banker {counts.banker:,} player {counts.player:,} tie {counts.tie:,})")
        if decks == 8:  # ../shared/oracles/PUBLISHED.md
            assert (counts.banker, counts.player, counts.tie) == (2_292_252_566_437_888, 2_230_518_282_592_256, 475_627_426_473_216)


def test_bench_punto_banco_validator_and_settlement_per_coup():
    rng = random.Random(7)
    game = PuntoBanco("portugal-1995", Limits(100, 1_000_000))
    bets = [Bet(f"t{i}", rng.choice(["banker", "player", "tie"]), 100 * rng.randint(1, 14), f"o{i}") for i in range(14)]
    coups, start = 0, time.perf_counter()
    for _ in range(40):  # forty 8-deck shoes played through to the cut card
        shoe, cards = Shoe(game.shoe_rules), shuffled_shoe(8, rng)
        cut_at = len(cards) - 12
        while not shoe.finished:
            coup = game.new_coup(shoe)
            while not coup.is_complete:
                coup.deal(cards[shoe.cards_out])
                if shoe.cards_out == cut_at:
                    coup.cut_card()
            game.settle(coup, bets)
            coups += 1
    seconds = time.perf_counter() - start
    print(f"\npunto banco: {coups} coups (burns, validator, 14 bets settled) in {seconds:.2f} s: "
          f"{seconds / coups * 1e6:.0f} us per coup, {coups / seconds:,.0f} coups/s")


def test_bench_blackjack_validator_and_settlement_per_coup():
    rng = random.Random(11)
    game = Blackjack("portugal-1995", Limits(100, 3000))
    bets = [Bet(f"b{n}", "box", 200, f"p{n}", n) for n in range(1, 8)] + [Bet("side", "box", 100, "s", 3)]
    coups, start = 0, time.perf_counter()
    shoe, cards = Shoe(game.shoe_rules, burns=False), shuffled_shoe(6, rng)
    while coups < 2000:
        if shoe.cards_left < 60:
            shoe, cards = Shoe(game.shoe_rules, burns=False), shuffled_shoe(6, rng)
        coup = game.new_coup(shoe, bets)
        while not coup.is_complete:
            due = coup.due()
            if due.decision == "insurance":
                coup.decide("close_insurance")
            elif due.decision is not None:
                box, i = coup._current()
                allowed = coup.allowed(box, i)
                coup.decide("stand" if "stand" in allowed and box.hands[i].total >= 17 else
                            "double" if "double" in allowed else "hit" if "hit" in allowed else allowed[0])
            else:
                coup.deal(cards[shoe.cards_out])
        game.settle(coup, bets)
        coups += 1
    seconds = time.perf_counter() - start
    print(f"\nblackjack: {coups} coups of 7 boxes (validator, decisions, settlement) in {seconds:.2f} s: "
          f"{seconds / coups * 1e6:.0f} us per coup")


def test_bench_roulette_settlement_per_spin():
    rng = random.Random(3)
    game = Roulette("portugal-1995", "french", Limits(100, 1_000_000))
    bets = [RouletteBet(f"s{i}", "straight", 100, "o", rng.randint(0, 36)) for i in range(150)]
    bets += [RouletteBet(f"r{i}", rng.choice(["red", "black", "even", "odd", "low", "high"]), 100, "o") for i in range(50)]
    spins, start = 2000, time.perf_counter()
    for _ in range(spins):
        game.settle(rng.randint(0, 36), bets)
    seconds = time.perf_counter() - start
    print(f"\nroulette: {spins} spins of 200 bets settled in {seconds:.2f} s: {seconds / spins * 1e6:.0f} us per spin")
