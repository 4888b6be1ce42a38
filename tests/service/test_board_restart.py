"""Result boards survive a restart of the table service (clean stop, kill -9, crash at settling):
the board published after the restart is the board published before it, the broker's retained
board says the same to a board that joins, and the history then keeps growing. A new session
(the table closed and reopened) and a new shoe start the board again, and a restart keeps that.

Real parts: Mosquitto on loopback, `tablehw run --simulate` as a process, its SQLite journal.
"""

from __future__ import annotations

import random
import signal
import time

import msgspec
import pytest

from firmware_host.boards.keeper import RESET_RECORD, BoardKeeper
from firmware_host.journal import Journal
from firmware_host.mqtt.contract import EventPayload

from .listener import Listener, request
from .table_run import finish, journal_rows, outbox_rows, run_table, start_table, stop_table, table_config

FAST = {"action_seconds": 0.02, "betting_seconds": 0.05}
# After a restart the simulated dealer leaves betting open (60 s) and the test calls "no more bets"
# itself, so it can read the broker's retained board while nothing else can change it.
HELD = {"action_seconds": 0.02, "betting_seconds": 60.0}
HELD_TABLE = {"table": {"betting_seconds": 120}}
SAME = ("type", "table", "schema", "round", "round_id", "reset", "table_info", "board")  # all but seq and utc


def same(board: dict) -> dict:
    return {key: board[key] for key in SAME}


def boards(storage, table: str) -> list[tuple[int, dict]]:
    """Every board the service queued, from its outbox: (seq, payload), in order."""
    return [(seq, body) for seq, topic, body, _ in outbox_rows(storage) if topic == f"tablehw/tables/{table}/board"]


def last_message_seq(storage) -> int:
    return max((seq for seq, *_ in outbox_rows(storage)), default=0)


def retained_board(url: str, table: str, timeout_s: float = 15) -> dict:
    """What a board joining now gets: the broker's retained `board`."""
    listener = Listener(url, [f"tablehw/tables/{table}/board"])
    try:
        assert listener.wait_for(lambda m: any(x.retained for x in m), timeout_s), "no retained board"
        return next(x for x in listener.snapshot() if x.retained).json()
    finally:
        listener.close()


def console(url: str, table: str, action: str, **fields) -> dict:
    return request(url, f"tablehw/tables/{table}/console/pit-1",
                   {"schema": 1, "type": "console", "action": action, "who": "test-dealer", **fields})


def wait_state(listener: Listener, accept, timeout_s: float = 60) -> dict:
    found: list[dict] = []

    def seen(messages) -> bool:
        found[:] = [m.json() for m in messages if m.topic.endswith("/state") and accept(m.json())]
        return bool(found)

    assert listener.wait_for(seen, timeout_s), "the table did not reach the state waited for"
    return found[0]


def play_rounds(listener: Listener, url: str, table: str, first: dict, count: int) -> int:
    """Close betting (the dealer's "no more bets") on `count` rounds, from the betting state `first`;
    returns the last round played. The simulated table then throws / deals and settles."""
    state = first
    for n in range(count):
        answer = console(url, table, "no_more_bets")
        assert answer["accepted"], answer
        if n < count - 1:
            state = wait_state(listener, lambda s, r=state["round"]: s["phase"] == "betting" and s["round"] > r)
    played = state["round"]
    assert listener.wait_for(lambda m: any(x.topic.endswith("/settlement") and x.json()["round"] == played
                                           for x in m), 60)
    return played


def wait_settlements(listener: Listener, count: int, timeout_s: float = 90) -> None:
    assert listener.wait_for(lambda m: len({x.json()["round"] for x in m if x.topic.endswith("/settlement")}) >= count,
                             timeout_s), f"fewer than {count} rounds settled"


def wait_until(condition, timeout_s: float = 20) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def valid_results(storage, after_record: int = 0) -> list[dict]:
    return [body for seq, _, body in journal_rows(storage, "result") if seq > after_record and not body["void"]]


def session_start(storage) -> int:
    """The journal record of the current session's `table_opened` event."""
    return max(seq for seq, _, body in journal_rows(storage, "event") if body["kind"] == "table_opened")


def stop_first_run(process, how: str) -> None:
    if how == "sigterm":
        out, err = stop_table(process)
        assert process.returncode == 0, err[-2000:]
    else:
        time.sleep(random.uniform(0.0, 0.2))  # some moment inside a round
        process.send_signal(signal.SIGKILL)
        finish(process, 30)
        assert process.returncode == -signal.SIGKILL


def restart_and_compare(broker, tmp_path, listener, table: str, game: str, name: str) -> tuple:
    """Start the table again (betting held open) and check the boards it publishes first: returns
    (process, the last board before the restart, the first betting state)."""
    storage = tmp_path / "storage"
    history = boards(storage, table)
    before_seq, before = history[-1]
    restart_seq = last_message_seq(storage)
    again = table_config(tmp_path, game, broker.url, name=name, sections=HELD_TABLE, **HELD)
    process = start_table(again)
    try:
        betting = wait_state(listener, lambda s: s["phase"] == "betting" and s["seq"] > restart_seq)
        after = [body for seq, body in boards(storage, table) if seq > restart_seq]
        # the first board this start published is the last one before it (a restart changes nothing) ...
        assert after and same(after[0]) == same(before), "the board after the restart differs from the one before"
        # ... and a board that joins now gets the table's current board from the broker
        assert same(retained_board(broker.url, table)) == same(after[-1])
    except BaseException:
        stop_table(process)
        raise
    return process, before, betting


@pytest.mark.parametrize("how", ["sigterm", "kill9", "crash_at_settling"])
def test_craps_board_survives_a_restart_and_keeps_growing(broker, tmp_path, how):
    """The last throws, the counts, the point and the shooter after a restart are those before it."""
    table, storage = "sim-craps", tmp_path / "storage"
    listener = Listener(broker.url, [f"tablehw/tables/{table}/#"], persistent=True)
    if how == "crash_at_settling":  # SIGKILL inside round 5's settlement: the restart settles its reading
        first = run_table(table_config(tmp_path, "craps", broker.url, name="crash.toml", crash_at="settling:5",
                                       **FAST), timeout_s=90)
        assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    else:
        process = start_table(table_config(tmp_path, "craps", broker.url, **FAST))
        wait_settlements(listener, 6)
        stop_first_run(process, how)
    if how == "sigterm":  # a clean stop sends everything: the broker's board is the last one queued
        assert same(retained_board(broker.url, table)) == same(boards(storage, table)[-1][1])

    process, before, betting = restart_and_compare(broker, tmp_path, listener, table, "craps", "again.toml")
    try:
        assert before["board"]["throws"] >= 4
        now = boards(storage, table)[-1][1]["board"]  # before, or with a reading the restart settled
        answer = console(broker.url, table, "new_shooter")  # the dice pass on: the board follows
        assert answer["accepted"], answer
        passed = {**now, "shooter": now["shooter"] + 1, "hot_roll": 0}
        assert wait_until(lambda: boards(storage, table)[-1][1]["board"] == passed), "no board for the new shooter"
        played = play_rounds(listener, broker.url, table, betting, 3)
    finally:
        out, err = stop_table(process)
    assert process.returncode == 0, err[-2000:]

    final = boards(storage, table)[-1][1]["board"]
    throws = valid_results(storage, session_start(storage))
    assert final["throws"] == len(throws) > before["board"]["throws"]
    assert [t["faces"] for t in final["last"]] == [r["faces"] for r in reversed(throws)][:final["last_n"]]
    new = final["throws"] - before["board"]["throws"]
    assert final["last"][new:] == before["board"]["last"][:final["last_n"] - new]  # the old ones, moved on
    assert final["longest_roll"] >= before["board"]["longest_roll"]
    assert played > betting["round"]
    assert same(retained_board(broker.url, table)) == same(boards(storage, table)[-1][1])

    # once more: a restart after the new shooter and the new throws still shows the same board
    process, before, _ = restart_and_compare(broker, tmp_path, listener, table, "craps", "third.toml")
    stop_table(process)
    assert before["board"]["shooter"] == final["shooter"]
    listener.close()


def test_craps_board_starts_a_new_session_when_the_table_reopens(broker, tmp_path):
    """Closing the table and opening it again is a new session (event `table_opened`): the board
    starts empty, and a restart replays only that session."""
    table, storage = "sim-craps", tmp_path / "storage"
    listener = Listener(broker.url, [f"tablehw/tables/{table}/#"], persistent=True)
    first = run_table(table_config(tmp_path, "craps", broker.url, **FAST), rounds=5)
    assert first.returncode == 0, first.stderr[-2000:]
    process, before, betting = restart_and_compare(broker, tmp_path, listener, table, "craps", "held.toml")
    try:
        assert before["board"]["throws"] >= 3
        assert console(broker.url, table, "close_table", why="end of shift")["accepted"]
        wait_state(listener, lambda s: s["phase"] == "closed" and s["seq"] > betting["seq"])
        assert console(broker.url, table, "open_betting")["accepted"]
        reopened = wait_state(listener, lambda s: s["phase"] == "betting" and s["round"] > betting["round"])
        fresh = [b for s, b in boards(storage, table) if b["reset"] == "new_session" and b["board"]["throws"] == 0]
        assert fresh, "no empty board was published when the table reopened"
        assert same(retained_board(broker.url, table))["board"]["throws"] == 0
        play_rounds(listener, broker.url, table, reopened, 2)
    finally:
        stop_table(process)
    opened = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "table_opened"]
    assert len(opened) == 2 and opened[-1]["who"] == "pit-1"  # the broker user, not the payload's who
    session = valid_results(storage, session_start(storage))
    process, before, _ = restart_and_compare(broker, tmp_path, listener, table, "craps", "again.toml")
    stop_table(process)
    assert before["reset"] == "new_session" and before["board"]["throws"] == len(session) >= 2
    listener.close()


@pytest.mark.parametrize("how", ["sigterm", "kill9"])
def test_baccarat_big_road_survives_a_restart_and_keeps_growing(broker, tmp_path, how):
    """The shoe's bead plate, big road, derived roads and counts after a restart are those before it;
    the coups dealt after it are added to the same shoe's roads."""
    table, storage = "sim-baccarat", tmp_path / "storage"
    listener = Listener(broker.url, [f"tablehw/tables/{table}/#"], persistent=True)
    process = start_table(table_config(tmp_path, "baccarat", broker.url, bets_per_round=3, **FAST))
    wait_settlements(listener, 8)
    stop_first_run(process, how)

    process, before, betting = restart_and_compare(broker, tmp_path, listener, table, "baccarat", "again.toml")
    try:
        assert before["board"]["counts"]["coups"] >= 5 and before["board"]["big_road"]
        play_rounds(listener, broker.url, table, betting, 3)
    finally:
        out, err = stop_table(process)
    assert process.returncode == 0, err[-2000:]

    final = boards(storage, table)[-1][1]["board"]
    coups = valid_results(storage)  # one shoe: the whole journal
    winners = [{"banker": "B", "player": "P", "tie": "T"}[r["outcome"]["winner"]] for r in coups]
    assert [b["winner"] for b in final["bead_plate"]] == winners
    assert final["bead_plate"][:len(before["board"]["bead_plate"])] == before["board"]["bead_plate"]
    assert final["counts"]["coups"] == len(coups) >= before["board"]["counts"]["coups"] + 3
    assert final["shoe"] == before["board"]["shoe"] == 1
    cells = sum(len(column) for column in final["big_road"])
    ties = sum(cell["ties"] for column in final["big_road"] for cell in column)
    assert cells + ties - sum(c["winner"] is None for column in final["big_road"] for c in column) == len(coups)
    old_road = before["board"]["big_road"]  # the old columns stay; only the last may have grown
    assert final["big_road"][:len(old_road) - 1] == old_road[:-1]
    assert same(retained_board(broker.url, table)) == same(boards(storage, table)[-1][1])
    listener.close()


def test_roulette_last_numbers_and_counts_survive_a_restart(broker, tmp_path):
    """Roulette: the last numbers with their directions, hot and cold, and the chance counts."""
    table, storage = "sim-roulette", tmp_path / "storage"
    listener = Listener(broker.url, [f"tablehw/tables/{table}/#"], persistent=True)
    first = run_table(table_config(tmp_path, "roulette", broker.url, bets_per_round=3, **FAST), rounds=6)
    assert first.returncode == 0, first.stderr[-2000:]
    process, before, betting = restart_and_compare(broker, tmp_path, listener, table, "roulette", "again.toml")
    try:
        play_rounds(listener, broker.url, table, betting, 2)
    finally:
        stop_table(process)
    final = boards(storage, table)[-1][1]["board"]
    spins = valid_results(storage)
    assert final["spins"] == len(spins) == before["board"]["spins"] + 2
    assert [(x["number"], x["direction"]) for x in final["last"]] == [
        (r["number"], r["outcome"]["direction"]) for r in reversed(spins)][:final["last_n"]]
    assert final["counts"]["spins"] == len(spins)
    listener.close()


def test_a_result_the_board_cannot_use_is_skipped_not_fatal(tmp_path, caplog):
    """A board never stops a round: a payload it cannot use is logged and skipped, live and in a
    replay alike, and nothing is published for it."""
    journal = Journal.open(tmp_path / "journal.sqlite")
    keeper = BoardKeeper("roulette", "r-1")
    with journal.transaction() as txn:
        data = msgspec.json.encode({"type": "result", "round": 1, "round_id": "r-1-00000001", "void": False,
                                    "number": 37, "outcome": {}})
        txn.record("result", data, round=1)
        keeper.follow(txn, "result", data, "tablehw/tables/r-1/board")
    assert "r-1-00000001" in caplog.text and "0 to 36" in caplog.text
    assert not journal.messages() and keeper.history.size() == 0
    assert BoardKeeper("roulette", "r-1").replay(journal) == 0
    journal.close()


def test_replay_starts_at_the_last_reset_and_rebuilds_the_live_board(tmp_path):
    """`follow` journals each reset (a new shoe; a new session) beside the events and results the
    engine journals; `replay` starts at the last one and gives the live board back exactly: the
    shoe number, the roads since the new shoe, the last coup flag."""
    journal = Journal.open(tmp_path / "journal.sqlite")
    live = BoardKeeper("punto_banco", "bac-1")
    topic = "tablehw/tables/bac-1/board"
    seq = iter(range(1, 1000))

    def event(kind: str, **detail) -> None:
        with journal.transaction() as txn:
            data = msgspec.json.encode(EventPayload("bac-1", next(seq), txn.utc, kind=kind, detail=detail))
            txn.record("event", data)
            live.follow(txn, "event", data, topic)

    def coup(round_: int, winner: str, player: list[str], banker: list[str]) -> None:
        with journal.transaction() as txn:
            data = msgspec.json.encode({"type": "result", "table": "bac-1", "seq": next(seq), "round": round_,
                                        "round_id": f"bac-1-{round_:08d}", "void": False,
                                        "cards": {"player": player, "banker": banker},
                                        "outcome": {"winner": winner}})
            txn.record("result", data, round=round_)
            live.follow(txn, "result", data, topic)

    event("table_opened")
    coup(1, "banker", ["2h", "3s"], ["8d", "Kc"])
    event("last_coup", after_position=400)
    coup(2, "player", ["9h", "9s"], ["Td", "Kc"])
    event("shoe_finished", shoe=1)
    event("new_shoe", shoe=2)
    coup(3, "tie", ["Th", "3s"], ["Qd", "3c"])
    coup(4, "player", ["8h", "Ks"], ["Td", "7c"])
    event("table_opened")  # closed and reopened: baccarat's roads follow the shoe, which goes on
    coup(5, "banker", ["2h", "2s", "2c"], ["8d", "Kc"])
    marks = [record.data() for record in journal.records(kind=RESET_RECORD)]
    assert marks == [{"reason": "new_shoe", "shoe": 2}]
    queued = [m for m in journal.messages() if m.topic == topic]
    assert len(queued) == 9  # every change published, in the transaction that made it
    journal.close()

    again = BoardKeeper("punto_banco", "bac-1")
    assert again.replay(Journal.open(tmp_path / "journal.sqlite")) == 3
    assert again.message("u") == live.message("u")
    board = again.message("u").board
    assert (board.shoe, [b.winner for b in board.bead_plate], board.last_coup) == (2, ["T", "P", "B"], False)
    assert board.bead_plate[2].player_pair


def test_replay_of_a_dice_table_starts_at_the_session_it_is_in(tmp_path):
    """A craps table reopened (event `table_opened`) starts a new session; a replay after a restart
    skips the sessions before it and gets the live board, shooter included."""
    journal = Journal.open(tmp_path / "journal.sqlite")
    live = BoardKeeper("craps", "c-1")
    seq = iter(range(1, 1000))

    def follow(kind: str, body: dict, round_: int | None = None) -> None:
        with journal.transaction() as txn:
            data = msgspec.json.encode({"table": "c-1", "seq": next(seq), **body})
            txn.record(kind, data, round=round_)
            live.follow(txn, kind, data, "tablehw/tables/c-1/board")

    def throw(round_: int, faces: list[int], point_before: int | None, shooter: int) -> None:
        follow("result", {"type": "result", "round": round_, "round_id": f"c-1-{round_:08d}", "void": False,
                          "faces": faces, "outcome": {"point_before": point_before, "shooter": shooter}}, round_)

    follow("event", {"type": "event", "kind": "table_opened", "detail": {}})
    throw(1, [3, 3], None, 1)
    throw(2, [3, 4], 6, 1)  # seven out: shooter 2
    follow("event", {"type": "event", "kind": "table_opened", "detail": {}})
    throw(3, [5, 6], None, 2)
    follow("event", {"type": "event", "kind": "new_shooter", "detail": {"shooter": 3}})
    throw(4, [2, 2], None, 3)
    follow("result", {"type": "result", "round": 5, "round_id": "c-1-00000005", "void": True, "reason": "cocked"}, 5)
    journal.close()

    again = BoardKeeper("craps", "c-1")
    assert again.replay(Journal.open(tmp_path / "journal.sqlite")) == 2
    assert again.message("u") == live.message("u")
    board = again.message("u").board
    assert (board.throws, board.point, board.shooter, board.hot_roll) == (2, 4, 3, 1)
