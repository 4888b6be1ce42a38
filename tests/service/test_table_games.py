"""Roulette and punto banco specifics end to end: void spins and direction, misdeals held and corrected,
the cut card's last coup and a new shoe (004 §II, X)."""

from __future__ import annotations

from .listener import Listener, firsts
from .table_run import check_bets_settled_once, journal_rows, run_table, table_config


def test_roulette_void_spins_are_respun_with_the_ball_back_on_the_last_number(broker, tmp_path):
    """X.16: a void spin is announced, nothing settles, the ball goes back on the previous number and the
    wheel spins again; X.15: the ball's direction alternates."""
    listener = Listener(broker.url, ["tablehw/tables/sim-roulette/#"])
    config = table_config(tmp_path, "roulette", broker.url, action_seconds=0.02, betting_seconds=0.05, void_rate=0.3)
    done = run_table(config, rounds=10, timeout_s=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 10, 20)
    results = firsts(listener, "/result")
    voids = [r for r in results if r["void"]]
    assert voids and all(r["reason"] == "no_spin" and r["number"] is None for r in voids)
    for void in voids:  # the void attempt is followed by a valid one in the same round
        assert any(r["round"] == void["round"] and r["attempt"] > void["attempt"] for r in results)
    events = [e for e in firsts(listener, "/events") if e["kind"] == "void"]
    assert all("ball_back_on" in e["detail"] for e in events)
    directions = [r["outcome"]["direction"] for r in results if not r["void"]]
    assert all(a != b for a, b in zip(directions, directions[1:])) or voids  # alternates (voids spin too)
    settled = check_bets_settled_once(tmp_path / "storage")
    assert settled["win"] and settled["lose"]
    listener.close()


def test_baccarat_misdeal_held_until_the_dealer_corrects_it(broker, tmp_path):
    """A card drawn after the coup is complete (while the dealer confirms it) is a misdeal (II.14;
    TooManyCards: burn it): the table is held and published as such until the dealer confirms the
    correction; the coup then settles as dealt."""
    listener = Listener(broker.url, ["tablehw/tables/sim-baccarat/#"])
    config = table_config(tmp_path, "baccarat", broker.url, action_seconds=0.04, betting_seconds=0.05, void_rate=0.5,
                          sections={"table": {"dealer_confirms": True}})
    done = run_table(config, rounds=6, timeout_s=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= 6, 20)
    events = firsts(listener, "/events")
    misdeals = [e for e in events if e["kind"] == "misdeal"]
    assert misdeals and all(e["detail"]["kind"] == "too_many_cards" and e["detail"]["remedy"] == "burn_card"
                            for e in misdeals)
    corrected = [e for e in events if e["kind"] == "misdeal_corrected"]
    assert len(corrected) == len(misdeals)
    held = [s for s in firsts(listener, "/state") if s["phase"] == "held"]
    assert held and all(s["betting_open"] is False for s in held)
    confirms = [e for e in events if e["kind"] == "dealer_action" and e["detail"]["action"] == "confirm"]
    assert confirms and all(e["who"] == "sim-dealer" for e in confirms)
    discarded = [b for _, _, b in journal_rows(tmp_path / "storage", "card") if b["action"] == "discarded"]
    assert len(discarded) == len(misdeals)
    check_bets_settled_once(tmp_path / "storage")
    listener.close()


def test_baccarat_cut_card_last_coup_and_new_shoe(broker, tmp_path):
    """The cut card announces the last coup (II.6); after it the table waits for a new shoe, whose first
    coup burns 8 cards again (II.5), and the board history restarts."""
    listener = Listener(broker.url, ["tablehw/tables/sim-baccarat/#"])
    config = table_config(tmp_path, "baccarat", broker.url, action_seconds=0.005, betting_seconds=0.01,
                          void_rate=0.0, bets_per_round=2, sections={"game": {"decks": 6}})
    done = run_table(config, rounds=75, timeout_s=240)
    assert done.returncode == 0, done.stderr[-2000:]
    events = [b for _, _, b in journal_rows(tmp_path / "storage", "event")]
    kinds = [e["kind"] for e in events]
    assert "last_coup" in kinds and "shoe_finished" in kinds and "new_shoe" in kinds
    assert kinds.index("last_coup") < kinds.index("shoe_finished") < kinds.index("new_shoe")
    shoe_end = [e for e in events if e["kind"] == "shoe_finished"][0]["round"]
    burns = [b for _, r, b in journal_rows(tmp_path / "storage", "card") if r == shoe_end + 1]
    assert len(burns) >= 8 + 4  # the new shoe's first coup: 8 burn cards, then the coup
    assert listener.wait_for(lambda m: any(x.topic.endswith("/board") and x.json().get("reset") == "new_shoe"
                                           for x in m), 20)
    check_bets_settled_once(tmp_path / "storage")
    listener.close()
