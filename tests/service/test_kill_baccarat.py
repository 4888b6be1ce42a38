"""kill -9 of a punto banco table at each phase of a coup, then a restart (issue 6, must show).

After the restart the interrupted coup is either settled from its journalled reading or voided with
every stake returned (Portugal 1995 II.14: a coup that cannot be vouched for is void), every accepted
bet is settled exactly once, no round is settled twice, and a persistent subscriber on a real
Mosquitto gets every result and settlement in sequence order. The simulated shoe goes on where it
was, as a physical shoe does (II.4-6: the shoe is dealt through to the cut card, never reshuffled
mid-shoe): the table sees the shoe's cards in order, and no card comes out of it twice.
"""

from __future__ import annotations

import os
import signal
import time
from fractions import Fraction

import pytest

from firmware_host.errors import InputFileError
from firmware_host.simulation.shoe_log import ShoeLog

from .listener import Listener
from .table_run import check_bets_settled_once, finish, journal_rows, run_table, start_table, table_config
from .test_faults import check_delivery, first_arrivals

TABLE = "tablehw/tables/sim-baccarat"
FAST = {"action_seconds": 0.02, "betting_seconds": 0.05, "void_rate": 0.0}  # no dealing slips unless asked
CONFIRMS = {"table": {"dealer_confirms": True}}

CASES = {  # crash_at: (what the restart does, the phase it finds the round in, [table] keys, simulation keys)
    "betting:2": ("resumed", "betting", None, {}),
    "no_more_bets:2": ("voided", "no_more_bets", None, {}),
    "dealing:2": ("voided", "dealing", None, {}),
    "card:2:4": ("voided", "dealing", None, {}),  # burn card, player, banker, player out of the shoe
    "reading:2": ("resumed", "reading", None, {}),
    "settling:2": ("resumed", "reading", None, {}),  # the settlement had not committed: the reading is settled
    "publishing:2": ("between_rounds", None, None, {}),
    "confirming:2": ("resumed", "confirming", CONFIRMS, {}),  # the dealer confirms again
    "held:2": ("voided", "held", CONFIRMS, {"void_rate": 0.5}),  # an extra card drawn while confirming
}


def cards_by_shoe(storage) -> list[list[dict]]:
    """The journalled cards out of each shoe (a `shoe` record starts the next one), in journal order."""
    starts = [seq for seq, _, _ in journal_rows(storage, "shoe")]
    shoes: list[list[dict]] = [[] for _ in range(len(starts) + 1)]
    for seq, rnd, body in journal_rows(storage, "card"):
        if "position" in body:
            shoes[sum(seq > start for start in starts)].append({**body, "round": rnd, "seq": seq})
    return shoes


def check_shoe_continues(storage) -> list[dict]:
    """Within each shoe the cards came out at strictly rising positions (none twice); the current shoe's
    cards are the simulated shoe's own, in its order. Returns the current shoe's cards."""
    shoes = cards_by_shoe(storage)
    for cards in shoes:
        positions = [c["position"] for c in cards]
        assert positions == sorted(set(positions)), f"a card position came out twice: {positions}"
    physical = ShoeLog(storage).read()
    assert physical is not None
    current = shoes[-1]
    assert current and all(physical.cards[c["position"] - 1] == c["card"] for c in current)
    assert physical.position >= current[-1]["position"]
    return current


def check_coup_settled(result: dict, settlement: dict) -> None:
    """II.17-19: the winning side is paid (banker less 5% commission to the 50-cent chip, tie 9:1); on
    a tie the player and banker bets stand off; every other bet loses."""
    winner = result["outcome"]["winner"]
    pays = {"player": Fraction(1), "banker": Fraction(95, 100), "tie": Fraction(9)}
    for line in settlement["bets"]:
        if winner == "tie" and line["bet"] != "tie":
            assert (line["result"], line["returned"], line["paid"]) == ("push", line["stake"], 0), line
        elif line["bet"] == winner:
            expected = int(line["stake"] * pays[winner] // 50 * 50)
            assert (line["result"], line["paid"], line["returned"]) == ("win", expected, line["stake"]), line
        else:
            assert (line["result"], line["paid"], line["kept"]) == ("lose", 0, line["stake"]), line


def check_round(storage, rnd: int, action: str, accepted_before: set[str]) -> None:
    """The crashed round: one settlement holding every bet accepted before the kill; void with every stake
    returned, or settled on its one valid result."""
    (settlement,) = [b for _, r, b in journal_rows(storage, "settlement") if r == rnd]
    assert accepted_before <= {line["ticket"] for line in settlement["bets"]}, "an accepted bet was lost"
    results = [b for _, r, b in journal_rows(storage, "result") if r == rnd]
    if action == "voided":
        assert settlement["void"] and [r["reason"] for r in results] == ["service_restart"]
        assert all(line["result"] == "returned" and line["returned"] == line["stake"] and not line["paid"]
                   for line in settlement["bets"])
    else:
        (result,) = results
        assert not settlement["void"] and not result["void"]
        check_coup_settled(result, settlement)


def check_results_in_order(listener) -> None:
    """The subscriber's results, first arrivals in seq order, go round by round; each round's settlement
    follows its result."""
    results = first_arrivals(listener, "/result")
    keys = [(r["round"], r["attempt"]) for r in results]
    assert keys == sorted(keys) and len(set(keys)) == len(keys), keys
    result_seq = {r["round"]: r["seq"] for r in results}
    assert all(s["seq"] > result_seq[s["round"]] for s in first_arrivals(listener, "/settlement"))


@pytest.mark.parametrize("crash_at", list(CASES))
def test_kill_9_at_each_phase_of_a_coup(broker, tmp_path, crash_at):
    action, phase, table, simulation = CASES[crash_at]
    sections = dict(table or {})
    listener = Listener(broker.url, [f"{TABLE}/#"], persistent=True)
    storage = tmp_path / "storage"
    crash = table_config(tmp_path, "baccarat", broker.url, name="crash.toml", sections=sections,
                         crash_at=crash_at, **{**FAST, **simulation})
    first = run_table(crash, rounds=30, timeout_s=120)
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    crashed = max(rnd for _, rnd, _ in journal_rows(storage, "round_opened"))
    assert crashed == 2 or crash_at.startswith("held")  # held: the first extra card in round 2 or later
    accepted_before = {b["ticket"] for _, rnd, b in journal_rows(storage, "bet_accepted") if rnd == crashed}
    assert accepted_before
    settled_before = {rnd for _, rnd, _ in journal_rows(storage, "settlement")}
    assert (crashed in settled_before) == (action == "between_rounds")
    cards_before = cards_by_shoe(storage)[-1]
    out_before = ShoeLog(storage).read().position

    again = table_config(tmp_path, "baccarat", broker.url, name="again.toml", sections=sections,
                         **{**FAST, **simulation})
    second = run_table(again, rounds=3, timeout_s=120)
    assert second.returncode == 0, second.stderr[-2000:]

    results = check_bets_settled_once(storage)
    assert results["win"] and results["lose"]
    recovered = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "recovered"]
    assert len(recovered) == 1 and recovered[0]["detail"]["action"] == action and recovered[0]["round"] == crashed
    if phase:
        assert recovered[0]["detail"]["phase"] == phase
    check_round(storage, crashed, action, accepted_before)
    # the shoe went on where it was: the first card after the restart is the next one out of the shoe
    cards = check_shoe_continues(storage)
    after = [c for c in cards if c["seq"] > cards_before[-1]["seq"]]
    assert after and after[0]["position"] == out_before + 1
    if crash_at == "card:2:4":  # killed with four cards of the coup out, right after the previous coup's
        last = max(c["position"] for c in cards_before if c["round"] < crashed)
        assert [c["position"] for c in cards_before if c["round"] == crashed] == [last + 1, last + 2, last + 3, last + 4]
    if crash_at.startswith("held"):  # the extra card: out of the shoe, never recorded by the table
        assert out_before == cards_before[-1]["position"] + 1
    # the table and the shoe agree on every coup after the restart: no void, and no misdeal the dealer did not make
    later = [b for _, rnd, b in journal_rows(storage, "result") if rnd > crashed]
    assert len(later) >= 2 and not any(r["void"] for r in later)
    if not simulation.get("void_rate"):
        assert not any(b["kind"] == "misdeal" for _, _, b in journal_rows(storage, "event"))
    check_delivery(listener, storage, TABLE)
    check_results_in_order(listener)
    listener.close()


def test_kill_9_while_the_shoe_is_changed(broker, tmp_path):
    """Killed after the last coup of a shoe (II.6: the cut card came out), while the table waits for the new
    shoe: the restart still waits for it, and the new shoe's first coup burns 8 cards again (II.5)."""
    listener = Listener(broker.url, [f"{TABLE}/#"], persistent=True)
    storage = tmp_path / "storage"
    quick = {"action_seconds": 0.005, "betting_seconds": 0.01, "void_rate": 0.0, "bets_per_round": 2}
    six_decks = {"game": {"decks": 6}}
    crash = table_config(tmp_path, "baccarat", broker.url, name="crash.toml", sections=six_decks,
                         crash_at="preparing:2", **quick)
    first = run_table(crash, rounds=90, timeout_s=240)
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    last_round = max(rnd for _, rnd, _ in journal_rows(storage, "round_opened"))
    assert last_round in {rnd for _, rnd, _ in journal_rows(storage, "settlement")}
    kinds = [b["kind"] for _, _, b in journal_rows(storage, "event")]
    assert kinds.index("last_coup") < kinds.index("shoe_finished") and "new_shoe" not in kinds

    again = table_config(tmp_path, "baccarat", broker.url, name="again.toml", sections=six_decks, **quick)
    second = run_table(again, rounds=2, timeout_s=120)
    assert second.returncode == 0, second.stderr[-2000:]
    check_bets_settled_once(storage)
    recovered = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "recovered"]
    assert [r["detail"]["action"] for r in recovered] == ["between_rounds"]
    assert [b["shoe"] for _, _, b in journal_rows(storage, "shoe")] == [2]
    assert ShoeLog(storage).read().shoe > 1  # the dealer put a new shoe in (a second one if the kill beat the first)
    cards = check_shoe_continues(storage)
    first_coup = [c for c in cards if c["round"] == last_round + 1]
    assert first_coup[0]["position"] == 1 and len(first_coup) >= 8 + 4
    check_delivery(listener, storage, TABLE)
    check_results_in_order(listener)
    listener.close()


def test_external_kill_9_mid_shoe(broker, tmp_path):
    """A kill -9 from outside at an arbitrary moment of a coup: a card may be out of the shoe that the table
    never recorded; the next coup starts after it all the same."""
    listener = Listener(broker.url, [f"{TABLE}/#"], persistent=True)
    storage = tmp_path / "storage"
    config = table_config(tmp_path, "baccarat", broker.url, **FAST)
    process = start_table(config)
    try:
        assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 3, 60)
        time.sleep(0.037)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        finish(process, 30)
    cards_before = cards_by_shoe(storage)[-1]
    out_before = ShoeLog(storage).read().position
    second = run_table(config, rounds=3, timeout_s=120)
    assert second.returncode == 0, second.stderr[-2000:]
    check_bets_settled_once(storage)
    recovered = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "recovered"]
    assert len(recovered) == 1
    if recovered[0]["detail"]["action"] == "voided":
        check_round(storage, recovered[0]["round"], "voided", set())
    cards = check_shoe_continues(storage)
    after = [c for c in cards if c["seq"] > cards_before[-1]["seq"]]
    assert after and after[0]["position"] == out_before + 1
    check_delivery(listener, storage, TABLE)
    check_results_in_order(listener)
    listener.close()


def test_a_card_torn_by_the_kill_never_left_the_shoe(tmp_path):
    """A kill in the middle of writing a card leaves a torn last line: that card was never handed to the
    table (it is written before it is seen), so it is still in the shoe."""
    record = ShoeLog(tmp_path)
    record.start(1, ["5H", "7H", "QC", "2S"], 3)
    record.card(1, "5H", "dealt")
    record.card(1, "7H", "dealt")
    with open(record.path, "a") as handle:
        handle.write('{"coup": 1, "card": "Q')
    found = record.read()
    assert (found.shoe, found.position, found.cut_at) == (1, 2, 3)
    assert [line["card"] for line in found.out] == ["5H", "7H"]


def test_an_unreadable_shoe_record_is_a_clear_error(tmp_path):
    record = ShoeLog(tmp_path)
    record.start(1, ["5H", "7H"], 1)
    with open(record.path, "a") as handle:
        handle.write("scribbled\n")
        handle.write('{"coup": 1, "card": "5H", "as": "dealt"}\n')
    with pytest.raises(InputFileError, match=r"simulated-shoe.jsonl: line 2 is not JSON"):
        record.read()
