"""`tablehw settle` end to end through the console script's main(), and its errors for bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_host.cli import main

ROOT = Path(__file__).resolve().parents[2]
CRAPS = str(ROOT / "config" / "craps-portugal-1995.toml")


def write(tmp_path: Path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return str(path)


def settle(tmp_path, capsys, bets, throws, config=CRAPS):
    code = main(["settle", "--config", config, "--bets", write(tmp_path, "bets.json", bets),
                 "--throws", write(tmp_path, "throws.json", throws), "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else captured.err)


def test_settles_a_sequence_with_bets_between_throws(tmp_path, capsys):
    bets = [{"ticket": "L", "bet": "pass", "stake": 1000, "owner": "ana"},
            {"ticket": "O", "bet": "odds", "stake": 1000, "owner": "ana", "number": 4, "at": 1},
            {"ticket": "F", "bet": "field", "stake": 500, "owner": "rui", "at": 1},
            {"ticket": "C", "bet": "come", "stake": 500, "owner": "rui"}]
    code, doc = settle(tmp_path, capsys, bets, [[1, 3], {"void": True, "reason": "off_table"}, [2, 2]])
    assert code == 0
    first, void, third = doc["throws"]
    assert [p for p in first["placed"] if not p["accepted"]][0]["reason"] == "not_allowed_now"  # come before a point
    assert first["state_after"]["point"] == 4
    assert void["void"] and void["outcomes"] == []  # a void throw settles nothing
    results = {o["ticket"]: o for o in third["outcomes"]}
    assert results["L"]["result"] == "win" and results["L"]["paid"] == 1000
    assert results["O"]["paid"] == 2000  # 2:1 on 4 (VI.11.1)
    assert results["F"]["paid"] == 500
    assert doc["open"] == []


def test_a_bet_placed_after_the_last_throw_is_reported_and_stays_open(tmp_path, capsys):
    """The audit's case: `at` equal to the number of throws was accepted by the file check and then
    silently dropped (the placing loop ran over the throws only). It is placed after the last throw,
    reported accepted or refused, and listed open."""
    bets = [{"ticket": "A", "bet": "field", "stake": 500, "owner": "ana", "at": 1},
            {"ticket": "B", "bet": "field", "stake": 100, "owner": "rui", "at": 1}]
    code, doc = settle(tmp_path, capsys, bets, [[1, 3]])
    assert code == 0
    assert doc["placed_after_last"] == [{"ticket": "A", "accepted": True},
                                        {"ticket": "B", "accepted": False, "reason": "under_minimum",
                                         "message": "stake 100 is under the minimum 500 for field"}]
    assert doc["open"] == [{"ticket": "A", "bet": "field", "stake": 500}]
    roulette = str(ROOT / "config" / "roulette-french-portugal-1995.toml")
    code, doc = settle(tmp_path, capsys, [{"ticket": "R", "bet": "red", "stake": 100, "owner": "o", "at": 1}], [17],
                       config=roulette)
    assert doc["placed_after_last"][0]["reason"] == "under_minimum"


@pytest.mark.parametrize("bets,throws,message", [
    ([{"ticket": "a", "bet": "pass", "stake": "ten", "owner": "x"}], [[1, 2]], "bet 0: stake"),
    ([{"ticket": "a", "bet": "pass", "stake": 100, "owner": "x", "colour": "red"}], [[1, 2]], "bet 0: colour: unknown key"),
    ([{"ticket": "a", "bet": "pass", "stake": 100, "owner": "x", "at": 5}], [[1, 2]], "bet 0 (at)"),
    ([{"ticket": "a", "bet": "pass", "stake": 100, "owner": "x", "at": 2}], [[1, 2]], "0 to 1"),
    ([], [[1, 2], [1, 2, 3]], "throw 1: craps throws 2 dice"),
    ([], [[1, 9]], "throw 0: faces are 1 to 6"),
    ([], {"faces": [1, 2]}, "expected a JSON list"),
    ([], "[[1, 2],", "not valid JSON"),
])
def test_bad_input_files_name_the_entry(tmp_path, capsys, bets, throws, message):
    code, err = settle(tmp_path, capsys, bets, throws)
    assert code == 2 and message in err


def test_text_output_lists_decisions(tmp_path, capsys):
    code = main(["settle", "--config", str(ROOT / "config" / "cussec-portugal-1995.toml"),
                 "--bets", write(tmp_path, "b.json", [{"ticket": "T", "bet": "triple_6", "stake": 200, "owner": "o"}]),
                 "--throws", write(tmp_path, "t.json", [[6, 6, 6]])])
    out = capsys.readouterr().out
    assert code == 0 and "triple_6" in out and "paid    38000" in out
