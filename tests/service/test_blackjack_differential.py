"""Blackjack differential (issue 17): random coups through the service's path and the rules core directly.

Portugal 1995 chapter V settles each box, side bettor, split hand, double, insurance and even money; the
round engine (console plays, scanner cards, the journal's settlement record) must settle every coup to
the same money as the rules core given the same cards and decisions. The full 20,000 coups are in
tests/bench/test_bench_blackjack_differential.py.
"""

from __future__ import annotations

from .blackjack_differential import play


def test_random_blackjack_coups_settle_to_identical_money_through_the_service_and_the_rules_core(tmp_path):
    result = play(tmp_path / "journal.sqlite", coups=120, seed=17)
    assert result.coups == 120 and result.lines >= 120
    assert result.paid and result.kept and result.returned
    assert {"draw", "stand", "double", "split", "surrender"} <= set(result.plays)  # V.18, V.26, V.29, V.36
