"""`tablehw edge` and `tablehw settle` for the card, wheel and tile configs shipped in config/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.config import load_config
from firmware_host.games import build_table_game

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ["punto-banco-portugal-1995", "punto-banco-macau", "chemin-de-fer-portugal-1995", "blackjack-portugal-1995",
           "roulette-french-portugal-1995", "roulette-american-portugal-1995", "paikao-macau"]


def run_json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def write(tmp_path: Path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("name", CONFIGS)
def test_shipped_configs_load_and_build(name):
    game = build_table_game(load_config(ROOT / "config" / f"{name}.toml"))
    assert game.rulebook


def test_edge_punto_banco_gives_the_published_8_deck_counts_and_the_6_deck_figures(capsys):
    doc = run_json(capsys, "edge", "--config", str(ROOT / "config/punto-banco-portugal-1995.toml"))
    shoes = {s["decks"]: s for s in doc["shoes"]}
    assert shoes[8]["configured"] and shoes[8]["counts"]["banker"] == 2_292_252_566_437_888  # PUBLISHED.md
    assert shoes[8]["counts"]["tie"] == 475_627_426_473_216
    assert {r["bet"]: r["edge_pct"] for r in shoes[8]["bets"]} == {"banker": 1.0579, "player": 1.2351, "tie": 4.844}
    assert {r["bet"]: r["edge_pct"] for r in shoes[6]["bets"]}["banker"] == 1.0558
    assert {r["bet"]: r["max"] for r in shoes[8]["bets"]} == {"banker": 70000, "player": 70000, "tie": 14000}


def test_edge_roulette_every_bet_one_in_thirty_seven(capsys):
    doc = run_json(capsys, "edge", "--config", str(ROOT / "config/roulette-french-portugal-1995.toml"))
    assert len(doc["bets"]) == 15 and {r["edge"] for r in doc["bets"]} == {"1/37"}


def test_edge_blackjack_prints_the_paytable(capsys):
    doc = run_json(capsys, "edge", "--config", str(ROOT / "config/blackjack-portugal-1995.toml"))
    assert doc["paytable"]["blackjack"].startswith("3:2")


def test_settle_punto_banco_applies_the_remedies_and_voids(tmp_path, capsys):
    bets = write(tmp_path, "bets.json", [
        {"ticket": "a", "bet": "banker", "stake": 5000, "owner": "p1"},
        {"ticket": "b", "bet": "tie", "stake": 1000, "owner": "p2"},
        {"ticket": "c", "bet": "player", "stake": 2000, "owner": "p3", "at": 1},
        {"ticket": "d", "bet": "pair", "stake": 1000, "owner": "p3", "at": 1},
    ])
    coups = write(tmp_path, "coups.json", [
        [{"card": "2S", "to": "banker"}, "3H", "2D", "KC", "8S", "4C"],
        {"events": ["5S", "JOKER", "5H"]},
    ])
    doc = run_json(capsys, "settle", "--config", str(ROOT / "config/punto-banco-portugal-1995.toml"),
                   "--bets", bets, "--coups", coups)
    first, second = doc["coups"]
    assert first["misdeals"][0]["kind"] == "wrong_order" and first["misdeals"][0]["remedy"] == "correct_at_once"
    assert first["misdeals"][1]["kind"] == "too_many_cards"  # 4C after the coup: burned
    assert first["coup_result"]["winner"] == "banker"
    assert {o["ticket"]: o["paid"] for o in first["outcomes"]} == {"a": 4750, "b": 0}
    assert second["void"] and [o["result"] for o in second["outcomes"]] == ["returned"]
    assert second["placed"][1] == {"ticket": "d", "accepted": False, "reason": "unknown_bet",
                                   "message": "punto banco has bets banker, player, tie, not 'pair'"}


def test_settle_an_unfinished_coup_is_an_input_error(tmp_path, capsys):
    bets = write(tmp_path, "bets.json", [{"ticket": "a", "bet": "banker", "stake": 5000, "owner": "p1"}])
    coups = write(tmp_path, "coups.json", [["2S", "3H"]])
    assert main(["settle", "--config", str(ROOT / "config/punto-banco-portugal-1995.toml"),
                 "--bets", bets, "--coups", coups]) == 2
    assert "before the coup is complete" in capsys.readouterr().err


def test_settle_roulette_void_spin_keeps_the_bets(tmp_path, capsys):
    bets = write(tmp_path, "bets.json", [
        {"ticket": "s", "bet": "split", "stake": 500, "owner": "p", "numbers": [17, 20]},
        {"ticket": "x", "bet": "split", "stake": 500, "owner": "p", "numbers": [17, 21]},
        {"ticket": "d", "bet": "two_dozens", "stake": 1500, "owner": "q", "numbers": [2, 3]},
    ])
    spins = write(tmp_path, "spins.json", [{"void": True, "reason": "chip fell in (X.16)"}, 20])
    doc = run_json(capsys, "settle", "--config", str(ROOT / "config/roulette-french-portugal-1995.toml"),
                   "--bets", bets, "--spins", spins)
    void, spin = doc["spins"]
    assert void["void"] and void["placed"][1]["reason"] == "not_on_layout"
    assert {o["ticket"]: (o["result"], o["paid"]) for o in spin["outcomes"]} == {"d": ("win", 750), "s": ("win", 8500)}
    assert [o["ticket"] for o in spin["outcomes"]] == ["d", "s"]  # X.22: dozens before splits


def test_settle_blackjack_and_chemin_de_fer_take_decisions(tmp_path, capsys):
    bets = write(tmp_path, "bets.json", [{"ticket": "h", "bet": "box", "stake": 2000, "owner": "anna", "number": 1}])
    coups = write(tmp_path, "coups.json", [["10S", "6H", "6C", "KC", {"decision": "hit", "box": 1}, "4D",
                                             {"decision": "stand"}, "2S"]])
    doc = run_json(capsys, "settle", "--config", str(ROOT / "config/blackjack-portugal-1995.toml"),
                   "--bets", bets, "--coups", coups)
    assert doc["coups"][0]["outcomes"][0]["result"] == "win"  # 20 against 18
    refused = write(tmp_path, "refused.json", [["5S", "6H", "6C", "KC", {"decision": "stand"}]])  # 11: V.18
    assert main(["settle", "--config", str(ROOT / "config/blackjack-portugal-1995.toml"), "--bets", bets,
                 "--coups", refused]) == 2
    assert "V.18" in capsys.readouterr().err
    cdf_bets = write(tmp_path, "cdf.json", [{"ticket": "bank", "bet": "banker", "stake": 100000, "owner": "b"},
                                            {"ticket": "p", "bet": "player", "stake": 40000, "owner": "x"}])
    cdf = write(tmp_path, "cdf_coups.json", [["5S", "3H", "KD", "KC", {"decision": "stand"}, "2S"]])
    doc = run_json(capsys, "settle", "--config", str(ROOT / "config/chemin-de-fer-portugal-1995.toml"),
                   "--bets", cdf_bets, "--coups", cdf)
    assert doc["coups"][0]["coup_result"]["winner"] == "tie"  # 5 - 5: void coup, stakes back (I.76)
    assert {o["result"] for o in doc["coups"][0]["outcomes"]} == {"returned"}


def test_settle_paikao_deal_with_hands(tmp_path, capsys):
    from firmware_host.rules.paikao_tiles import SET

    tiles = [str(t) for t, n in sorted(SET.items()) for _ in range(n)]
    order = [3, 4, 5, 6, 7, 0, 1, 2]  # four 1s
    hands = {str(seat): tiles[4 * i:4 * i + 2] for i, seat in enumerate(order)}
    bets = write(tmp_path, "bets.json", [{"ticket": "s4", "bet": "seat", "stake": 20000, "owner": "y", "number": 4}])
    deals = write(tmp_path, "deals.json", [{"dice": [1, 1, 1, 1], "tiles": tiles, "hands": hands}])
    doc = run_json(capsys, "settle", "--config", str(ROOT / "config/paikao-macau.toml"), "--bets", bets, "--coups", deals)
    assert doc["deals"][0]["outcomes"][0]["paid"] == 19000  # 20,000 less 5%, Art. 4.2
