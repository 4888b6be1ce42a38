"""Properties of the card, wheel and tile games (hypothesis): a random legal coup dealt through the
validator always completes; any single card sent out of order is caught as a misdeal (and changes
nothing); a misdeal never yields a settlement; settlement conserves money."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_host.rules.bets import Bet, Result
from firmware_host.rules.blackjack import Blackjack
from firmware_host.rules.cards import RANKS, SUITS, Card
from firmware_host.rules.chemin_de_fer import ChemindeFer
from firmware_host.rules.dice_game import Limits
from firmware_host.rules.misdeal import CoupNotFinished, Misdeal, TooManyCards
from firmware_host.rules.money import RoundingMode, RoundingRule
from firmware_host.rules.punto_banco import PuntoBanco
from firmware_host.rules.roulette import CHANCES, EVEN_CHANCES, LAYOUT, Roulette, RouletteBet, covered

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CARDS = st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS))
ALL_52 = [Card(r, s) for r in RANKS for s in SUITS]


def shoe_cards(decks: int, n: int):
    """The first n cards of a shuffled shoe of `decks` decks."""
    return st.permutations(range(decks * 52)).map(lambda order: [ALL_52[i % 52] for i in order[:n]])


ROUNDING = st.builds(RoundingRule, st.sampled_from([1, 10, 50]), st.sampled_from(list(RoundingMode)))


def punto_banco(rounding=RoundingRule()) -> PuntoBanco:
    return PuntoBanco("portugal-1995", Limits(10, 1_000_000), rounding)


def deal_all(coup, cards, decide=lambda coup: "stand"):
    """Deal cards wherever they are due, answering decisions with `decide`; returns [(card, place)]."""
    placed, cards = [], list(cards)
    for _ in range(200):
        due = coup.due()
        if due.complete:
            return placed
        if due.decision is not None:
            coup.decide(decide(coup)) if not hasattr(coup, "boxes") else coup.decide(*decide(coup))
            continue
        card = cards.pop(0)
        placed.append((card, due.to))
        coup.deal(card)
    raise AssertionError("the coup did not complete within 200 steps")


def assert_conserved(outcomes, rounding: RoundingRule) -> None:
    for o in outcomes:
        assert o.paid >= 0 and o.paid % rounding.unit == 0
        assert o.returned + o.kept == o.bet.stake, o
        if o.result in (Result.LOSE, Result.PUSH, Result.RETURNED):
            assert o.paid == 0 and o.breakage == 0
        if rounding.mode is RoundingMode.DOWN:
            assert 0 <= o.breakage < rounding.unit
        if o.result in (Result.PUSH, Result.RETURNED):
            assert o.kept == 0


# --- punto banco ------------------------------------------------------------------------------------

@SETTINGS
@given(st.lists(CARDS, min_size=6, max_size=6))
def test_punto_banco_a_random_coup_always_completes(cards):
    coup = punto_banco().new_coup()
    placed = deal_all(coup, cards)
    assert 4 <= len(placed) <= 6 and coup.is_complete
    assert [p for _, p in placed[:4]] == ["player", "banker", "player", "banker"]


@SETTINGS
@given(st.lists(CARDS, min_size=6, max_size=6), st.integers(0, 5), st.sampled_from(["player", "banker", "burn", "box 1"]))
def test_punto_banco_any_single_card_out_of_order_is_a_misdeal(cards, index, wrong):
    legal = deal_all(punto_banco().new_coup(), cards)
    index %= len(legal)
    if wrong == legal[index][1]:
        wrong = "banker" if wrong == "player" else "player"
    coup = punto_banco().new_coup()
    for card, place in legal[:index]:
        coup.deal(card, place)
    before = (list(coup.player), list(coup.banker), coup.due())
    with pytest.raises(Misdeal):
        coup.deal(legal[index][0], wrong)
    assert (coup.player, coup.banker, coup.due()) == before  # a correctable misdeal changes nothing
    for card, place in legal[index:]:  # the correction: the card where it was due, and on
        coup.deal(card, place)
    with pytest.raises(TooManyCards):
        coup.deal(cards[0])


@SETTINGS
@given(st.lists(CARDS, min_size=6, max_size=6), ROUNDING,
       st.lists(st.tuples(st.sampled_from(["banker", "player", "tie"]), st.integers(1, 500)), max_size=8))
def test_punto_banco_settlement_conserves_money(cards, rounding, spec):
    game = punto_banco(rounding)
    coup = game.new_coup()
    deal_all(coup, cards)
    bets = [Bet(f"t{i}", b, 10 * k, "o") for i, (b, k) in enumerate(spec)]
    outcomes = game.settle(coup, bets)
    assert_conserved(outcomes, rounding)
    winner = coup.result().winner
    ratio = {"banker": F(19, 20), "player": F(1), "tie": F(9)}
    for o in outcomes:
        exact = o.bet.stake * ratio[o.bet.bet] if o.result is Result.WIN else 0
        assert o.paid + o.breakage == exact
        assert (o.result is Result.WIN) == (o.bet.bet == winner)


@SETTINGS
@given(st.lists(CARDS, min_size=1, max_size=5), st.integers(0, 4))
def test_a_misdeal_never_yields_a_settlement(cards, cut):
    game = punto_banco()
    coup = game.new_coup()
    for card in cards[:cut]:
        if coup.is_complete:
            break
        coup.deal(card)
    bets = [Bet("a", "banker", 100, "o"), Bet("b", "tie", 50, "p")]
    if not coup.is_complete:
        with pytest.raises(CoupNotFinished):
            game.settle(coup, bets)
    with pytest.raises(Misdeal):
        coup.deal("ZZ")  # not a card: the coup is void, whatever it was
    assert all(o.result is Result.RETURNED and o.returned == o.bet.stake for o in game.settle(coup, bets))


# --- chemin de fer ----------------------------------------------------------------------------------------

@SETTINGS
@given(st.lists(CARDS, min_size=6, max_size=6), st.lists(st.booleans(), min_size=2, max_size=2), ROUNDING)
def test_chemin_de_fer_a_random_coup_with_random_decisions_completes_and_conserves(cards, choices, rounding):
    game = ChemindeFer("portugal-1995", Limits(10, 1_000_000), rounding)
    coup = game.new_coup()
    answers = iter(choices)
    deal_all(coup, cards, lambda c: "draw" if next(answers) else "stand")
    assert coup.is_complete
    bets = [Bet("bank", "banker", 1000, "b"), Bet("p1", "player", 300, "x"), Bet("p2", "player", 200, "y")]
    outcomes = game.settle(coup, bets)
    assert_conserved(outcomes, rounding)
    winner = coup.result().winner
    bank = outcomes[0]
    assert bank.result is {"banker": Result.WIN, "player": Result.LOSE, "tie": Result.RETURNED}[winner]
    if winner == "player":
        assert bank.kept == 500 and bank.returned == 500


# --- blackjack -------------------------------------------------------------------------------------------------

@SETTINGS
@given(shoe_cards(6, 60), st.lists(st.integers(0, 99), min_size=40, max_size=40),
       st.sets(st.integers(1, 7), min_size=1, max_size=3), ROUNDING)
def test_blackjack_a_random_coup_with_random_allowed_decisions_completes_and_conserves(cards, picks, boxes, rounding):
    game = Blackjack("portugal-1995", Limits(100, 100_000), rounding)
    bets = [Bet(f"b{n}", "box", 200, f"p{n}", n) for n in sorted(boxes)] + [Bet("side", "box", 100, "s", min(boxes))]
    coup = game.new_coup(None, bets)
    choice = iter(picks)

    def decide(c):
        if c.due().decision == "insurance":
            return ("close_insurance",)
        box, i = c._current()
        allowed = c.allowed(box, i)
        return (allowed[next(choice) % len(allowed)],)

    deal_all(coup, cards, decide)
    assert coup.is_complete
    outcomes = game.settle(coup, bets)
    assert_conserved(outcomes, rounding)
    tickets = [o.bet.ticket for o in outcomes]
    assert len(tickets) == len(set(tickets)) and {b.ticket for b in bets} <= set(tickets)
    early = {o.bet.ticket: o for o in game.settle_at_once(coup)}
    assert all(early[t] == o for o in outcomes for t in [o.bet.ticket] if t in early)


@SETTINGS
@given(st.lists(CARDS, min_size=8, max_size=8), st.sets(st.integers(1, 7), min_size=2, max_size=3), st.integers(0, 7))
def test_blackjack_a_card_out_of_seat_order_at_the_deal_is_a_misdeal(cards, boxes, index):
    bets = [Bet(f"b{n}", "box", 200, f"p{n}", n) for n in sorted(boxes)]
    game = Blackjack("portugal-1995", Limits(100, 100_000))
    coup = game.new_coup(None, bets)
    places = [f"box {n}" for n in sorted(boxes)] + ["dealer"]
    index %= 2 * len(places)
    for k in range(index):
        coup.deal(cards[k])
    due = coup.due().to
    wrong = next(p for p in places if p != due)
    with pytest.raises(Misdeal):
        coup.deal(cards[index], wrong)
    assert coup.due().to == due


# --- roulette ---------------------------------------------------------------------------------------------------

def roulette_bets():
    def make(kind, numbers, k):
        if kind in EVEN_CHANCES:
            return RouletteBet(f"{kind}{k}", kind, 10 * k, "o")
        if kind in ("dozen", "column"):
            return RouletteBet(f"{kind}{k}", kind, 10 * k, "o", (k % 3) + 1)
        if kind in ("two_dozens", "two_columns"):
            return RouletteBet(f"{kind}{k}", kind, 10 * k, "o", None, (1, 2) if k % 2 else (2, 3))
        return RouletteBet(f"{kind}{k}", kind, 10 * k, "o", None, tuple(sorted(numbers)))

    kinds = st.sampled_from(sorted(CHANCES))
    return st.lists(kinds.flatmap(lambda kind: st.builds(
        make, st.just(kind), st.sampled_from(sorted(LAYOUT.get(kind, {frozenset()}), key=sorted)), st.integers(1, 9))),
        max_size=12, unique_by=lambda b: b.ticket)


@SETTINGS
@given(roulette_bets(), st.integers(0, 36), ROUNDING)
def test_roulette_settlement_conserves_money_and_pays_exactly_the_covered_numbers(bets, number, rounding):
    game = Roulette("portugal-1995", "french", Limits(10, 1_000_000), rounding)
    outcomes = game.settle(number, bets)
    assert_conserved(outcomes, rounding)
    for o in outcomes:
        hit = number in covered(o.bet)
        assert (o.result is Result.WIN) == hit
        if hit:
            assert o.paid + o.breakage == o.bet.stake * CHANCES[o.bet.bet].pays


@SETTINGS
@given(st.lists(CARDS, min_size=6, max_size=6), st.lists(st.booleans(), min_size=2, max_size=2), st.integers(0, 5),
       st.sampled_from(["player", "banker", "dealer"]))
def test_chemin_de_fer_any_single_card_out_of_order_is_a_misdeal(cards, choices, index, wrong):
    game = ChemindeFer("portugal-1995", Limits(10, 1_000_000))
    answers = list(choices)
    legal = deal_all(game.new_coup(), cards, lambda c: "draw" if answers.pop(0) else "stand")
    index %= len(legal)
    if wrong == legal[index][1]:
        wrong = "banker" if wrong == "player" else "player"
    coup = game.new_coup()
    answers = list(choices)
    for card, place in legal[:index]:
        while coup.due().decision is not None:
            coup.decide("draw" if answers.pop(0) else "stand")
        coup.deal(card, place)
    while coup.due().decision is not None:
        coup.decide("draw" if answers.pop(0) else "stand")
    before = (list(coup.player), list(coup.banker), coup.due())
    with pytest.raises(Misdeal):
        coup.deal(legal[index][0], wrong)
    assert (coup.player, coup.banker, coup.due()) == before
