"""`tablehw settle` for what the rules core's second pass added: a banco and chemin de fer faults, a
blackjack card drawn by mistake, the P'ai Kao bank across deals, dice the banca dealer touched, and the
articles of void throws. Each case is the article's; the rules tests hold the detail."""

from __future__ import annotations

import json
from pathlib import Path

from firmware_host.cli import main
from firmware_host.rules.paikao_tiles import SET

ROOT = Path(__file__).resolve().parents[2]


def settle(tmp_path: Path, capsys, config: str, bets: list, rounds: list) -> tuple[int, dict | str]:
    (tmp_path / "bets.json").write_text(json.dumps(bets))
    (tmp_path / "rounds.json").write_text(json.dumps(rounds))
    code = main(["settle", "--config", str(ROOT / "config" / config), "--bets", str(tmp_path / "bets.json"),
                 "--throws", str(tmp_path / "rounds.json"), "--json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else out.err)


def test_i_70_and_i_104_e_a_banco_and_a_fault_in_a_settle_file(tmp_path, capsys):
    bets = [{"ticket": "bank", "bet": "banker", "stake": 100_000, "owner": "b"},
            {"ticket": "p", "bet": "player", "stake": 100_000, "owner": "x"},
            {"ticket": "bank2", "bet": "banker", "stake": 100_000, "owner": "b", "at": 1},
            {"ticket": "q", "bet": "player", "stake": 20_000, "owner": "x", "at": 1}]
    coups = [{"banco": True, "events": ["4S", "3H", "2D", "2C", {"decision": "draw"}, {"card": "2S", "to": "player"},
                                        {"decision": "stand"}]},
             ["3S", "KH", "KD", "4C", "4S", {"fault": "banker_two_cards", "cards": ["5D", "3S"]}]]
    code, doc = settle(tmp_path, capsys, "chemin-de-fer-portugal-1995.toml", bets, coups)
    assert code == 0
    banco, fault = doc["coups"]
    assert banco["coup_result"]["banco"] and banco["coup_result"]["winner"] == "player"
    assert {o["ticket"]: o["result"] for o in banco["outcomes"]} == {"bank": "lose", "p": "win"}
    assert fault["coup_result"]["faults"][0]["article"] == "Portugal 1995 I.104 e"
    assert fault["coup_result"]["banker_points"] == 2 and fault["coup_result"]["winner"] == "player"
    code, err = settle(tmp_path, capsys, "chemin-de-fer-portugal-1995.toml", bets[:1] + bets[3:4],
                       [{"banco": True, "events": []}])
    assert code == 2 and "I.45" in err


def test_v_18_a_card_drawn_by_mistake_goes_to_the_next_box_that_asks(tmp_path, capsys):
    bets = [{"ticket": "b1", "bet": "box", "stake": 1000, "owner": "ana", "number": 1},
            {"ticket": "b2", "bet": "box", "stake": 1000, "owner": "rui", "number": 2}]
    coup = ["10S", "5S", "10C", "6H", "6D", "7C", "9S", {"decision": "stand"}, {"decision": "hit"},
            {"decision": "stand"}]
    code, doc = settle(tmp_path, capsys, "blackjack-portugal-1995.toml", bets, [coup])
    assert code == 0
    (step,) = doc["coups"]
    assert step["misdeals"][0]["remedy"] == "hold_for_next" and "V.18" in step["misdeals"][0]["article"]
    assert step["coup_result"]["boxes"][1]["hands"][0] == {"cards": ["5S", "6D", "9S"], "total": 20}
    assert {o["ticket"]: o["result"] for o in step["outcomes"]} == {"b1": "lose", "b2": "win"}


def test_art_4_9_the_paikao_bank_across_deals(tmp_path, capsys):
    tiles = [str(t) for t, n in sorted(SET.items()) for _ in range(n)]
    order = [3, 4, 5, 6, 7, 0, 1, 2]  # four 1s
    hands = {str(seat): tiles[4 * i:4 * i + 2] for i, seat in enumerate(order)}
    hands |= {"0": ["3-6", "4-5"], "4": ["1-3", "1-4"]}  # the banker's nines beat seat 4
    deal = {"dice": [1, 1, 1, 1], "tiles": tiles, "hands": hands}
    bets = [{"ticket": "bank1", "bet": "banker", "stake": 100_000, "owner": "B"},
            {"ticket": "s4", "bet": "seat", "stake": 10_000, "owner": "y", "number": 4},
            {"ticket": "bank2", "bet": "banker", "stake": 105_000, "owner": "B", "at": 1},
            {"ticket": "bank3", "bet": "banker", "stake": 109_500, "owner": "B", "at": 1}]
    code, doc = settle(tmp_path, capsys, "paikao-macau.toml", bets, [deal, deal])
    assert code == 0
    first, second = doc["deals"]
    assert {o["ticket"]: o["paid"] for o in first["outcomes"]}["bank1"] == 9_500
    placed = {p["ticket"]: p for p in second["placed"]}
    assert placed["bank2"]["reason"] == "under_minimum" and "Art. 4.9" in placed["bank2"]["message"]
    assert placed["bank3"]["accepted"]


def test_iv_7_d_and_art_3_3_in_a_dice_settle_file(tmp_path, capsys):
    bets = [{"ticket": "s", "bet": "small", "stake": 400, "owner": "a"}, {"ticket": "b", "bet": "big", "stake": 400, "owner": "a"}]
    code, doc = settle(tmp_path, capsys, "banca-francesa-portugal-1995.toml", bets,
                       [{"faces": [1, 2, 3], "dealer_touched": True}])
    assert code == 0 and doc["throws"][0]["dealer_touched"]
    assert {o["ticket"]: o["result"] for o in doc["throws"][0]["outcomes"]} == {"s": "win", "b": "stay"}
    assert doc["open"] == [{"ticket": "b", "bet": "big", "stake": 400}]
    code, err = settle(tmp_path, capsys, "craps-macau-2010.toml", [], [{"faces": [1, 2], "dealer_touched": True}])
    assert code == 2 and "IV.7 d" in err
    code, doc = settle(tmp_path, capsys, "craps-macau-2010.toml", [], [{"void": True, "reason": "not_rolled"}])
    assert doc["throws"][0]["article"] == "Macau 2010 Art. 3.3"
