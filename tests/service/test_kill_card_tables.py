"""kill -9 of a blackjack and a chemin de fer table at every phase of a coup, then a restart.

After the restart the interrupted coup is either settled from its journalled reading (the coup rebuilt
from the journal's cards and decisions, settled as the rules core settles it) or voided with every stake
returned (004 §II.14, as punto banco: a coup the controller did not watch whole cannot be vouched for);
every accepted bet is settled exactly once, no round twice; a persistent subscriber on a real Mosquitto
gets every message in order. The simulated shoe goes on where it was (004 §I.14, V.11: never reshuffled
mid-shoe) and the table sees its cards in order. Chemin de fer: the bank comes back as it was (I.46).
"""

from __future__ import annotations

import signal

import pytest

from firmware_host.simulation.shoe_log import ShoeLog

from .listener import Listener
from .table_run import check_bets_settled_once, journal_rows, run_table, table_config
from .test_card_tables_e2e import rules_core_settlements
from .test_faults import check_delivery
from .test_kill_baccarat import check_results_in_order, check_shoe_continues

FAST = {"action_seconds": 0.02, "betting_seconds": 0.05, "void_rate": 0.0}  # no slips unless asked
CONFIRMS = {"table": {"dealer_confirms": True}}
PHASES = {  # crash_at: (what the restart does, the phase it finds the round in, [table] keys, simulation keys)
    "betting:2": ("resumed", "betting", None, {}),
    "no_more_bets:2": ("voided", "no_more_bets", None, {}),
    "dealing:2": ("voided", "dealing", None, {}),
    "card:2:4": ("voided", "dealing", None, {}),
    "reading:2": ("resumed", "reading", None, {}),
    "settling:2": ("resumed", "reading", None, {}),  # the settlement had not committed: the reading is settled
    "publishing:2": ("between_rounds", None, None, {}),
    "confirming:2": ("resumed", "confirming", CONFIRMS, {}),  # the dealer confirms again
    "held:2": ("voided", "held", CONFIRMS, {"void_rate": 0.6}),  # a slip held the table
}
CASES = [(game, crash) for game in ("blackjack", "chemin_de_fer") for crash in PHASES]


def check_round(storage, rnd: int, action: str, accepted_before: set[str], config) -> None:
    """The crashed round: one settlement holding every bet accepted before the kill; void with every stake
    returned, or settled as the rules core settles the coup the journal holds."""
    (settlement,) = [b for _, r, b in journal_rows(storage, "settlement") if r == rnd]
    assert accepted_before <= {line["ticket"] for line in settlement["bets"]}, "an accepted bet was lost"
    results = [b for _, r, b in journal_rows(storage, "result") if r == rnd]
    if action == "voided":
        assert settlement["void"] and [r["reason"] for r in results] == ["service_restart"]
        assert all(line["result"] == "returned" and line["returned"] == line["stake"] and not line["paid"]
                   for line in settlement["bets"])
        return
    assert not settlement["void"] and not any(r["void"] for r in results)
    core = rules_core_settlements(storage, config)[rnd]
    assert sorted((b["ticket"], b["result"], b["paid"], b["returned"], b["kept"]) for b in settlement["bets"]) == core


@pytest.mark.parametrize("game, crash_at", CASES)
def test_kill_9_at_each_phase_of_a_coup(broker, tmp_path, game, crash_at):
    action, phase, table, simulation = PHASES[crash_at]
    sections = dict(table or {})
    topic = f"tablehw/tables/sim-{game}"
    listener = Listener(broker.url, [f"{topic}/#"], persistent=True)
    storage = tmp_path / "storage"
    crash = table_config(tmp_path, game, broker.url, name="crash.toml", sections=sections, crash_at=crash_at,
                         **{**FAST, **simulation})
    first = run_table(crash, rounds=30, timeout_s=120)
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    crashed = max(rnd for _, rnd, _ in journal_rows(storage, "round_opened"))
    assert crashed == 2 or crash_at.startswith("held")  # held: the first slip in round 2 or later
    accepted_before = {b["ticket"] for _, rnd, b in journal_rows(storage, "bet_accepted") if rnd == crashed}
    assert accepted_before
    assert (crashed in {rnd for _, rnd, _ in journal_rows(storage, "settlement")}) == (action == "between_rounds")
    last_card_seq = max((seq for seq, _, _ in journal_rows(storage, "card")), default=0)  # the shoe may be new
    out_before = ShoeLog(storage).read().position
    bank_before = [b["game_state"].get("bank") for _, _, b in journal_rows(storage, "round_closed")][-1]

    again = table_config(tmp_path, game, broker.url, name="again.toml", sections=sections, **{**FAST, **simulation})
    second = run_table(again, rounds=3, timeout_s=120)
    assert second.returncode == 0, second.stderr[-2000:]

    check_bets_settled_once(storage)
    recovered = [b for _, _, b in journal_rows(storage, "event") if b["kind"] == "recovered"]
    assert len(recovered) == 1 and recovered[0]["detail"]["action"] == action and recovered[0]["round"] == crashed
    if phase:
        assert recovered[0]["detail"]["phase"] == phase
    check_round(storage, crashed, action, accepted_before, again)
    cards = check_shoe_continues(storage)  # the first card after the restart is the next one out of the shoe
    after = [c for c in cards if c["seq"] > last_card_seq]
    assert after and after[0]["position"] == out_before + 1
    later = [b for _, rnd, b in journal_rows(storage, "result") if rnd > crashed]
    assert later and not any(r["void"] for r in later if not simulation)
    if not simulation:  # the table and the shoe agree on every coup after the restart: no misdeal
        assert not any(b["kind"] == "misdeal" for _, _, b in journal_rows(storage, "event"))
    if game == "chemin_de_fer" and action == "between_rounds":  # I.46: the bank goes on as it was
        states = [b["game_state"]["bank"] for _, rnd, b in journal_rows(storage, "round_opened") if rnd == crashed + 1]
        assert states == [bank_before]
    check_delivery(listener, storage, topic)
    check_results_in_order(listener)
    listener.close()
