"""The blackjack and chemin de fer boards (004 §V, §I), kept from the service's result and event payloads."""

from __future__ import annotations

from firmware_host.boards.keeper import BoardKeeper, history_for_config
from firmware_host.boards.payload import ChemindeFerBoard
from firmware_host.config import load_config

from .test_keeper import result


def blackjack_result(round_: int, dealer: list[str], total: int, boxes: int = 2, bust: bool = False,
                     blackjack: bool = False) -> dict:
    outcome = {"dealer": {"cards": dealer, "total": total, "bust": bust, "blackjack": blackjack},
               "boxes": [{"box": n + 1, "hands": [{"total": 18}]} for n in range(boxes)]}
    return result(round_, cards={"dealer": dealer}, outcome=outcome)


def test_blackjack_board_shows_the_last_coups_dealer_totals_and_busts_this_shoe():
    k = BoardKeeper("blackjack", "t1")
    k.on_result(blackjack_result(1, ["10H", "7S"], 17))
    k.on_result(blackjack_result(2, ["6D", "5C", "KS"], 21, boxes=3))
    k.on_result(blackjack_result(3, ["AS", "KD"], 21, blackjack=True))
    assert not k.on_result(result(4, void=True, reason="misdeal"))  # a void coup has no dealer's hand
    k.on_result(blackjack_result(4, ["6S", "10C", "9H"], 25, bust=True))
    board = k.message("u").board
    assert [(c.dealer, c.total, c.bust, c.blackjack) for c in board.last] == [
        (["6S", "10C", "9H"], 25, True, False), (["AS", "KD"], 21, False, True), (["6D", "5C", "KS"], 21, False, False),
        (["10H", "7S"], 17, False, False)]
    assert board.last[2].boxes == 3
    c = board.counts
    assert (c.coups, c.busts, c.blackjacks, c.totals) == (4, 1, 1, {"17": 1, "18": 0, "19": 0, "20": 0, "21": 1})
    assert k.on_event({"kind": "new_shoe", "detail": {"shoe": 2}})  # V.11: the board follows the shoe
    m = k.message("u")
    assert (m.board.shoe, m.board.last, m.reset) == (2, [], "new_shoe")
    assert k.on_event({"kind": "table_opened"}) and k.message("u").board.shoe == 2  # the shoe, not the session


def test_chemin_de_fer_board_puts_its_coups_on_the_baccarat_roads():
    k = BoardKeeper("chemin_de_fer", "t1")
    coups = [("banker", ["9H", "KS"], ["3D", "2C", "4S"]), ("banker", ["2H", "3S", "KD"], ["8D", "AC"]),
             ("player", ["8H", "AS"], ["5D", "2C", "9S"]), ("tie", ["7H", "QS"], ["7D", "KC"])]
    for n, (winner, banker, player) in enumerate(coups, 1):
        k.on_result(result(n, cards={"banker": banker, "player": player}, outcome={"winner": winner}))
    board = k.message("u").board
    assert isinstance(board, ChemindeFerBoard)  # tagged "chemin_de_fer" on the wire
    assert [b.winner for b in board.bead_plate] == ["B", "B", "P", "T"]
    assert [[cell.winner for cell in col] for col in board.big_road] == [["B", "B"], ["P"]]
    assert board.big_road[1][0].ties == 1 and board.counts.coups == 4
    assert k.on_event({"kind": "new_shoe"}) and k.message("u").board.bead_plate == []


def test_card_tables_boards_show_their_paytables_and_limits(repo_root):
    blackjack = history_for_config(load_config(repo_root / "config" / "sim-blackjack.toml"))
    pays = {row.bet: row.pays for row in blackjack.table.paytable}
    assert pays["blackjack"] == "3:2" and pays["insurance"] == "2:1"  # 004 §V.21, V.33
    chemin = history_for_config(load_config(repo_root / "config" / "sim-chemin_de_fer.toml"))
    pays = {row.bet: row.pays for row in chemin.table.paytable}
    assert pays["player"] == "1:1" and pays["banker"] == "19:20"  # I.47: the bank's wins less 5%
    assert chemin.table.minimum == load_config(repo_root / "config" / "sim-chemin_de_fer.toml").limits.minimum
