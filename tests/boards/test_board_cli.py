"""`tablehw board`: results strings in, the board out (JSON shape of issue 8), clear errors."""

from __future__ import annotations

import json

import pytest

from firmware_host.boards import payload
from firmware_host.boards.history import BaccaratHistory, CrapsHistory
from firmware_host.boards.baccarat_roads import Coup
from firmware_host.boards.table_info import table_info
from firmware_host.cli import main
from firmware_host.config import load_config


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["board", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_baccarat_json_shape(capsys):
    code, out, _ = run(capsys, "--game", "baccarat", "--results", "TBbBPpT P", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["bead_plate"][0] == {"winner": "T", "banker_pair": False, "player_pair": False}
    assert doc["bead_plate"][1] == {"winner": "B", "banker_pair": True, "player_pair": False}
    cells = [[(c["winner"], c["ties"], c["banker_pair"], c["player_pair"]) for c in col] for col in doc["big_road"]]
    assert cells == [[("B", 1, True, False), ("B", 0, False, False)], [("P", 1, False, True), ("P", 0, False, False)]]
    assert doc["big_eye_boy"] == [["R"]]  # column 1 row 1 against column 0 (2 cells)
    assert doc["small_road"] == [] and doc["cockroach_pig"] == []
    assert doc["counts"]["coups"] == 6
    assert "layout" not in doc and doc["game"] == "baccarat"


def test_roulette_json(capsys):
    code, out, _ = run(capsys, "--game", "roulette", "--results", "32cw, 15ccw, 0", "--json", "--last", "2")
    doc = json.loads(out)
    assert code == 0 and doc["last"] == [{"number": 0, "colour": "green", "direction": None},
                                         {"number": 15, "colour": "black", "direction": "ccw"}]
    assert doc["counts"]["zero"] == 1 and doc["spins"] == 3


def test_text_output_draws_the_roads(capsys):
    code, out, _ = run(capsys, "--game", "baccarat", "--results", "B" * 8 + "PP")
    assert code == 0 and "big road" in out and "big eye boy" in out
    lines = out.splitlines()
    big = lines.index("big road (lower case: ties marked on the cell):")
    assert lines[big + 6].split() == ["B", "B", "B"]  # the dragon tail along the bottom row


@pytest.mark.parametrize("game, results, message", [
    ("baccarat", "BPX", "coup 3: expected B, P or T"),
    ("baccarat", "Bbb", "coup 1 (Bbb): a pair is marked twice"),
    ("roulette", "1,37", "entry 2 ('37'): expected a number 0-36"),
    ("roulette", "1,,2", "entry 2 is empty"),
    ("craps", "3-4,3-7", "entry 2 ('3-7'): expected 2 faces 1-6"),
    ("cussec", "1-2", "entry 1 ('1-2'): expected 3 faces"),
])
def test_bad_results_are_named(capsys, game, results, message):
    code, out, err = run(capsys, "--game", game, "--results", results)
    assert code == 2 and out == ""
    assert message in err and err.startswith("tablehw board: error:")


def test_bad_settings_are_refused(capsys):
    with pytest.raises(SystemExit):
        main(["board", "--game", "roulette", "--results", "1", "--last", "0"])
    assert "must be 1 to 1000" in capsys.readouterr().err


def test_payload_round_trip_and_table_info(repo_root):
    info = table_info(load_config(repo_root / "config" / "banca-francesa-portugal-1995.toml"))
    assert info.per_bet_maximum["aces"] == 6 * info.minimum  # 004 §IV.17, from the rule book
    assert {r.bet: r.pays for r in info.paytable}["aces"] == "61:1"
    h = BaccaratHistory("table-7")
    h.add(Coup("B"), round=1, round_id="table-7-00000001")
    message = h.message("2024-05-01T20:00:00.000Z")
    data = payload.encode(message)
    doc = json.loads(data)
    assert (doc["type"], doc["schema"], doc["table"], doc["seq"]) == ("board", payload.SCHEMA, "table-7", 0)
    assert doc["board"]["game"] == "baccarat" and doc["round_id"] == "table-7-00000001"
    assert payload.decode(data) == message
    craps = CrapsHistory("t", table=table_info(load_config(repo_root / "config" / "craps-macau-2010.toml")))
    back = payload.decode(payload.encode(craps.message("u")))
    assert isinstance(back.board, payload.CrapsBoard)
    assert {"pass", "field"} <= {r.bet for r in back.table_info.paytable}


def test_baccarat_shoe_numbers_and_last_coup():
    h = BaccaratHistory("t")
    h.add(Coup("B"))
    h.announce_last_coup()
    assert h.board().last_coup is True and h.board().shoe == 1
    h.reset()
    m = h.message("u")
    assert (m.board.shoe, m.board.last_coup, m.board.bead_plate, m.reset) == (2, False, [], "new_shoe")
    h.reset("new_session")
    assert h.board().shoe == 1
