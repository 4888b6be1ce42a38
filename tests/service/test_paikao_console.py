"""P'ai Kao at the dealer console (seed 002, Macau 1985), in-process on a real journal: the bowl, the tile
keypad over MQTT (`T/console/<user>`, action `tiles`), what it refuses and why, and the settlement
against the banker, checked against the rules core settling the same deal directly."""

from __future__ import annotations

import random

from firmware_host.config import load_config
from firmware_host.games import build_table_game
from firmware_host.rounds.inputs import ConsoleCommand, DiceSeen, Phase, ThrowStarted
from firmware_host.rules.bets import Bet
from firmware_host.rules.paikao_game import PaiKaoRound
from firmware_host.rules.paikao_tiles import SET

from .engine_harness import ROOT, bet, console, feed, make_engine, records, sent

FACES = (1, 1, 1, 1)  # total 4: the first stack to seat 3 (Art. 1.2-1.4)
REPLY = "tablehw/replies/pit-1/pit"


def stacks(seed: int = 1) -> dict[int, list[str]]:
    """The 32 tiles shuffled and dealt four to a seat."""
    tiles = [str(t) for t, n in SET.items() for _ in range(n)]
    random.Random(seed).shuffle(tiles)
    return {seat: tiles[4 * seat:4 * seat + 4] for seat in range(8)}


def entry(seat: int, four: list[str], face_up: list[str] = ()) -> dict:
    return {"seat": seat, "pairs": [four[:2], four[2:]], "face_up": list(face_up)}


def tiles(engine, seat_entry: dict, action: str = "tiles"):
    return console(engine, action, user="pit-1", tiles=seat_entry)


def bowl(engine, faces=FACES, void=None):
    feed(engine, ConsoleCommand("no_more_bets", who="pit-1"), ThrowStarted(engine.round, engine.attempt),
         DiceSeen(engine.round, engine.attempt, None if void else faces, void))


def last_reply(engine) -> dict:
    return [b for t, b in sent(engine) if t == REPLY][-1]


def place_bets(engine) -> None:
    feed(engine, *[bet(engine, f"t{seat}", "seat", 10000 * seat, number=seat) for seat in range(1, 8)])


def test_every_seat_is_settled_against_the_banker_as_the_rules_core_settles_the_deal(tmp_path):
    """Art. 4.2 (5% on wins), 6 (both lines, copies to the banker, one line each a push): the table's
    settlement of a deal entered seat by seat in any order is the rules core's for the same deal."""
    engine = make_engine(tmp_path / "j.sqlite", "paikao")
    place_bets(engine)
    bowl(engine)
    assert engine.phase is Phase.DEALING
    first = [e for e in records(engine, "event") if e["kind"] == "first_seat"][-1]["detail"]
    assert (first["first_seat"], first["order"]) == (3, [3, 4, 5, 6, 7, 0, 1, 2])
    dealt = stacks(7)
    for seat in (6, 2, 7, 1, 4, 5, 3, 0):
        feed(engine, tiles(engine, entry(seat, dealt[seat])))
        assert last_reply(engine)["accepted"], last_reply(engine)
    (settlement,) = records(engine, "settlement")
    rules = build_table_game(load_config(ROOT / "config" / "sim-paikao.toml"))
    deal = PaiKaoRound(list(FACES))
    for seat in range(8):
        deal.deal.stack(seat, dealt[seat])
    for seat in range(8):
        deal.set(seat, dealt[seat][:2])
    direct = {o.bet.ticket: (o.result.value, o.paid, o.returned, o.kept)
              for o in rules.settle(deal, [Bet(f"t{s}", "seat", 10000 * s, "term-1", s) for s in range(1, 8)])}
    table = {line["ticket"]: (line["result"], line["paid"], line["returned"], line["kept"])
             for line in settlement["bets"]}
    assert table == direct
    result = [r for _, r in sent(engine, "/result") if not r["void"]][-1]
    assert result["faces"] == list(FACES) and result["outcome"]["first_seat"] == 3
    assert result["outcome"]["winning_seats"] == [s for s in deal.order if s and direct[f"t{s}"][0] == "win"]


def test_a_wrong_entry_is_refused_unchanged_with_what_was_wrong(tmp_path):
    """Art. 1.1 (each of the 32 tiles once a deal), 1.4 (four a seat): an entry the deal cannot hold is
    refused with a message naming the fault and nothing changes; `clear_tiles` takes a seat back."""
    engine = make_engine(tmp_path / "j.sqlite", "paikao")
    place_bets(engine)
    feed(engine, tiles(engine, entry(1, ["6-6", "6-6", "1-1", "1-1"])))
    assert last_reply(engine)["reason"] == "not_allowed_now"  # betting: no bowl read yet
    bowl(engine)
    dealt = stacks(3)
    feed(engine, tiles(engine, entry(1, dealt[1])))
    assert last_reply(engine)["accepted"]
    feed(engine, tiles(engine, entry(2, ["6-6", "6-6", "6-6", "1-1"])))  # the set holds two Teen
    reply = last_reply(engine)
    assert not reply["accepted"] and reply["reason"] == "malformed" and "Art. 1.1" in reply["message"]
    feed(engine, tiles(engine, entry(1, dealt[2])))
    assert "already entered" in last_reply(engine)["message"]
    feed(engine, tiles(engine, entry(4, ["6-7", "1-1", "2-2", "3-3"])))
    assert "not a domino" in last_reply(engine)["message"]
    feed(engine, tiles(engine, entry(5, dealt[5], face_up=[t for t in dealt[6] if t not in dealt[5]][:1])))
    assert "not among" in last_reply(engine)["message"]
    feed(engine, tiles(engine, entry(9, dealt[2])))
    reply = last_reply(engine)  # seats 0-7 only: refused by the contract, the field named
    assert reply["reason"] == "bad_request" and "$.tiles.seat" in reply["message"]
    assert sorted(engine.family.entries) == [1] and engine.phase is Phase.DEALING
    feed(engine, tiles(engine, {"seat": 1}, "clear_tiles"))
    assert last_reply(engine)["accepted"] and not engine.family.entries
    refused = [r for r in records(engine, "console_action") if not r["accepted"]]
    assert len(refused) == 6 and all(r["who"] == "pit-1" for r in refused)
    for seat in (1, 2, 3, 4, 5, 6, 7, 0):
        feed(engine, tiles(engine, entry(seat, dealt[seat])))
    assert len(records(engine, "settlement")) == 1 and engine.round == 2


def test_two_of_the_bankers_tiles_face_up_void_the_deal_and_return_every_stake(tmp_path):
    """Art. 2.3: two of the banker's tiles turned face up in the deal void it; a player's seat with two
    face up is out of play (its bet returned) and the deal goes on."""
    engine = make_engine(tmp_path / "j.sqlite", "paikao")
    place_bets(engine)
    bowl(engine)
    dealt = stacks(5)
    feed(engine, tiles(engine, entry(4, dealt[4], face_up=dealt[4][:2])))
    assert last_reply(engine)["accepted"] and engine.phase is Phase.DEALING
    feed(engine, tiles(engine, entry(0, dealt[0], face_up=dealt[0][1:3])))
    (settlement,) = records(engine, "settlement")
    assert settlement["void"] and {line["result"] for line in settlement["bets"]} == {"returned"}
    misdeal = [e for e in records(engine, "event") if e["kind"] == "misdeal"][-1]["detail"]
    assert misdeal["kind"] == "deal_void" and "2.3" in misdeal["article"]


def test_a_bad_bowl_is_shaken_again_with_the_bets_as_they_are(tmp_path):
    """Art. 1.5: dice overlapping or out of the bowl: shake again; nothing settles, the bets stay."""
    engine = make_engine(tmp_path / "j.sqlite", "paikao")
    place_bets(engine)
    bowl(engine, void="off_table")
    assert engine.phase is Phase.NO_MORE_BETS and engine.attempt == 2 and len(engine.book) == 7
    assert not records(engine, "settlement")
    void = [r for _, r in sent(engine, "/result") if r["void"]][-1]
    assert void["reason"] == "off_table" and void["faces"] is None
    feed(engine, ThrowStarted(engine.round, engine.attempt), DiceSeen(engine.round, engine.attempt, (6, 6, 6, 5), None))
    assert engine.phase is Phase.DEALING and engine.family.state_view()["first_seat"] == 6


def test_the_bank_passes_by_the_rules_and_a_winning_banker_keeps_his_winnings_in_across_a_restart(tmp_path):
    """Art. 4.9: a banker who won a deal and keeps the bank puts up his capital and winnings at least (the
    table checks the bank's turn with the rules core's PaiKaoBank, Art. 4.1 included, tested in
    tests/rules); the turn is journalled with the round and survives a restart."""
    rules = build_table_game(load_config(ROOT / "config" / "sim-paikao.toml"))
    capital = Bet("bank", "banker", 100000, "term-2")
    seats = [Bet(f"t{s}", "seat", 10000 * s, "term-1", s) for s in range(1, 8)]
    for seed in range(200):  # a deal the banker wins on balance
        dealt = stacks(seed)
        deal = PaiKaoRound(list(FACES))
        for seat in range(8):
            deal.deal.stack(seat, dealt[seat])
        for seat in range(8):
            deal.set(seat, dealt[seat][:2])
        won = next(o for o in rules.settle(deal, seats + [capital]) if o.bet.ticket == "bank")
        if won.result.value == "win":
            break
    engine = make_engine(tmp_path / "j.sqlite", "paikao")
    feed(engine, bet(engine, "bank", "banker", 100000, user="term-2", owner="term-2"))
    place_bets(engine)
    bowl(engine)
    for seat in range(8):
        feed(engine, tiles(engine, entry(seat, dealt[seat])))
    bank_line = [line for line in records(engine, "settlement")[-1]["bets"] if line["ticket"] == "bank"][0]
    assert (bank_line["result"], bank_line["paid"]) == ("win", won.paid)
    least = 100000 + won.paid
    assert engine.family.state_view()["bank"] == {"holder": "term-2", "deals": 1, "least_capital": least}
    engine.journal.close()
    engine = make_engine(tmp_path / "j.sqlite", "paikao")  # the turn comes back from the journal
    feed(engine, bet(engine, "bank2", "banker", 100000, user="term-2", owner="term-2"))
    answer = [b for t, b in sent(engine) if b.get("type") == "bet_response" and b["ticket"] == "bank2"][-1]
    assert not answer["accepted"] and "Art. 4.9" in answer["message"]
    feed(engine, bet(engine, "bank3", "banker", least, user="term-2", owner="term-2"))
    answer = [b for t, b in sent(engine) if b.get("type") == "bet_response" and b["ticket"] == "bank3"][-1]
    assert answer["accepted"]
