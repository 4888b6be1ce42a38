"""BoardKeeper: the board kept from the service's result and event payloads (docs/mqtt.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.boards.keeper import BoardInputError, BoardKeeper


def result(round_: int, **fields) -> dict:
    base = {"schema": 1, "type": "result", "table": "t1", "seq": round_ * 3, "utc": "2025-05-01T20:00:00.000Z",
            "round": round_, "round_id": f"t1-{round_:08d}", "attempt": 1, "void": False, "reason": None,
            "faces": None, "total": None, "number": None, "cards": None, "outcome": {}}
    return base | fields


def test_roulette_results_and_void_attempts():
    k = BoardKeeper("roulette", "t1")
    assert k.on_result(result(1, number=17, outcome={"colour": "black", "direction": "cw"}))
    assert not k.on_result(result(2, void=True, reason="no_spin"))
    assert k.on_result(result(2, attempt=2, number=0, outcome={"colour": "green", "direction": "ccw"}))
    m = k.message("2025-05-01T20:01:00.000Z")
    assert [(s.number, s.direction) for s in m.board.last] == [(0, "ccw"), (17, "cw")]
    assert (m.round, m.round_id, m.table, m.reset) == (2, "t1-00000002", "t1", "new_session")


def test_baccarat_pairs_from_cards_new_shoe_and_last_coup():
    k = BoardKeeper("punto_banco", "t1")
    k.on_result(result(1, cards={"player": ["9h", "9s"], "banker": ["Td", "Kc", "2d"]},
                       outcome={"winner": "player"}))
    k.on_result(result(2, cards={"player": ["Th", "3s"], "banker": ["Qd", "Qc"]}, outcome={"winner": "tie"}))
    assert k.on_event({"kind": "last_coup"})
    b = k.message("u").board
    assert [(x.winner, x.banker_pair, x.player_pair) for x in b.bead_plate] == [("P", False, True), ("T", True, False)]
    assert b.last_coup and b.big_road[0][0].ties == 1
    assert k.on_event({"kind": "new_shoe"})
    m = k.message("u")
    assert (m.board.shoe, m.board.bead_plate, m.reset, m.round) == (2, [], "new_shoe", None)


def test_craps_follows_the_services_point_and_shooter():
    k = BoardKeeper("craps", "t1")
    k.on_result(result(1, faces=[3, 3], total=6, outcome={"point_before": None, "point_after": 6, "shooter": 1}))
    k.on_result(result(2, faces=[3, 4], total=7, outcome={"point_before": 6, "point_after": None, "shooter": 1}))
    b = k.message("u").board
    assert (b.point, b.shooter, b.hot_roll, b.longest_roll) == (None, 2, 0, 2)
    assert b.last[0].outcome == "seven_out"
    assert k.on_event({"kind": "new_shooter", "detail": {"shooter": 3}})
    assert k.message("u").board.shooter == 3
    # without the service's state the board reckons the point itself
    k2 = BoardKeeper("craps", "t1")
    k2.on_result(result(1, faces=[4, 6], total=10))
    assert k2.message("u").board.point == 10


def test_table_opened_starts_a_new_session():
    k = BoardKeeper("cussec", "t1")
    k.on_result(result(1, faces=[1, 2, 3], total=6))
    assert k.on_event({"kind": "table_opened"})
    assert k.message("u").board.results == 0
    assert not k.on_event({"kind": "bets_open"})


@pytest.mark.parametrize("game, fields, message", [
    ("craps", {"faces": [1, 2, 3]}, "round t1-00000001"),
    ("cussec", {"faces": [1, 7, 3]}, "1 to 6"),
    ("roulette", {"number": 37}, "0 to 36"),
    ("roulette", {}, "number"),
    ("punto_banco", {"outcome": {"winner": "dragon"}}, "outcome.winner"),
])
def test_bad_results_are_refused_with_the_round_named(game, fields, message):
    k = BoardKeeper(game, "t1")
    with pytest.raises(BoardInputError, match=message):
        k.on_result(result(1, **fields))


def test_unknown_game():
    with pytest.raises(BoardInputError, match="no result board for game 'pachinko'"):
        BoardKeeper("pachinko", "t1")


def test_board_settings_and_table_info_from_the_config(repo_root):
    from firmware_host.boards.history import RouletteHistory
    from firmware_host.boards.keeper import history_for_config
    from firmware_host.config import load_config, parse_config
    from firmware_host.errors import ConfigError

    text = (repo_root / "config" / "roulette-french-portugal-1995.toml").read_text()
    import tomllib

    data = tomllib.loads(text)
    data["board"] = {"last_n": 12, "window": 500, "hot_cold": 3}
    history = history_for_config(parse_config(data, "roulette.toml"))
    assert isinstance(history, RouletteHistory)
    assert (history.settings.last_n, history.settings.window, history.settings.hot_cold) == (12, 500, 3)
    assert history.table.per_bet_maximum["straight"] == 10 * history.table.minimum  # 004 §X.27
    data["board"] = {"last_n": 0}
    with pytest.raises(ConfigError, match="roulette.toml: board.last_n"):
        parse_config(data, "roulette.toml")
    data["board"] = {"lastn": 5}
    with pytest.raises(ConfigError, match="board.lastn: unknown key"):
        parse_config(data, "roulette.toml")
    default = history_for_config(load_config(repo_root / "config" / "punto-banco-macau.toml"))
    assert default.settings.last_n == 20 and default.table_id == "punto_banco"


def test_board_rebuilt_from_the_journal_after_a_restart(tmp_path):
    """The service journals every result and event payload before publishing it; after a restart
    the board of the session is rebuilt from those records, identical to the one before."""
    import msgspec

    from firmware_host.boards.history import CrapsHistory
    from firmware_host.journal import Journal

    journal = Journal.open(tmp_path / "journal.sqlite")
    live = BoardKeeper("craps", "t1")
    events = {2: {"kind": "table_opened"}, 5: {"kind": "new_shooter", "detail": {"shooter": 2}}}
    throws = [[3, 4], [2, 2], [6, 6], [3, 4], [5, 5], [4, 6], [1, 1], [2, 3]]
    for n, faces in enumerate(throws, 1):
        with journal.transaction() as txn:
            if n in events:
                txn.record("event", msgspec.json.encode(events[n]))
                live.on_event(events[n])
            data = result(n, faces=faces, total=sum(faces))
            if n == 4:
                data = result(n, void=True, reason="cocked")
            txn.record("result", msgspec.json.encode(data), round=n)
            live.on_result(data)
    journal.close()
    again = BoardKeeper("craps", "t1", history=CrapsHistory("t1"))
    assert again.replay(Journal.open(tmp_path / "journal.sqlite")) == 6  # 7 valid, the first before the session
    assert again.message("u") == live.message("u")
    assert again.message("u").board.shooter == live.history.shooter


def test_the_boards_languages_come_from_the_tables_config(tmp_path):
    from firmware_host.boards.keeper import history_for_config
    from firmware_host.config import load_config
    from firmware_host.errors import ConfigError

    root = Path(__file__).resolve().parents[2] / "config"
    assert history_for_config(load_config(root / "punto-banco-macau.toml")).message("u").languages == ["zh", "en"]
    assert history_for_config(load_config(root / "roulette-french-portugal-1995.toml")).message("u").languages == ["en"]
    twice = tmp_path / "twice.toml"
    twice.write_text((root / "cussec-portugal-1995.toml").read_text() + '\n[board]\nlanguages = ["pt", "pt"]\n')
    with pytest.raises(ConfigError, match=r"board: languages lists 'pt' twice"):
        load_config(twice)
    unknown = tmp_path / "unknown.toml"
    unknown.write_text((root / "cussec-portugal-1995.toml").read_text() + '\n[board]\nlanguages = ["fr"]\n')
    with pytest.raises(ConfigError, match=r"board\.languages"):
        load_config(unknown)
