"""Re-sent requests get the answer they got the first time: after settlement, after kill -9, after a broker restart.

What stops a second bet or a contradiction in each: the table-wide ticket registry (rounds/tickets.py),
journalled with every answer and rebuilt from the journal at start.
"""

from __future__ import annotations

import json

from .clients import BrokerUser, bet, withdraw
from .table import Table, wait_until


def test_resent_after_settlement_gets_the_first_answer(table, broker):
    t7 = BrokerUser(broker, "terminal-07")
    try:
        first = t7.ask("bets", bet("idem-1", "seat-1"))
        low = t7.ask("bets", bet("idem-2", "seat-1", stake=100))
        assert first["accepted"] and (low["accepted"], low["reason"]) == (False, "under_minimum")
        assert t7.ask("bets", bet("idem-3", "seat-2"))["accepted"]
        assert t7.ask("bets", withdraw("idem-3", "seat-2"))["accepted"]
        settled = table.close_betting()
        again = t7.ask("bets", bet("idem-1", "seat-1"))  # the round is settled; the next one takes bets
        assert (again["accepted"], again["repeated"], again["round"]) == (True, True, first["round"])
        assert again["round_id"] == first["round_id"]
        low_again = t7.ask("bets", bet("idem-2", "seat-1", stake=100))
        assert (low_again["accepted"], low_again["reason"], low_again["repeated"]) == (False, "under_minimum", True)
        withdrawn_again = t7.ask("bets", withdraw("idem-3", "seat-2"))
        assert withdrawn_again["accepted"] and withdrawn_again["repeated"]
        changed = t7.ask("bets", bet("idem-1", "seat-1", stake=10000))
        assert (changed["accepted"], changed["reason"]) == (False, "duplicate_ticket")
        table.close_betting()
        assert table.settled_tickets()["idem-1"] == 1 and "idem-3" not in table.settled_tickets()
        assert [s["round"] for s in table.settlements() if any(b["ticket"] == "idem-1" for b in s["bets"])] == [settled]
        table.assert_accepted_once({"idem-1", "idem-3"})
    finally:
        t7.close()


def test_resent_after_kill_9_gets_the_first_answer(tmp_path, broker):
    """The bet accepted before the crash is on the layout after it: the re-sent request is answered
    "accepted" (repeated), not `duplicate_ticket`; the copy the broker kept for the dead controller too."""
    table = Table(tmp_path / "table", broker).start()
    t7 = BrokerUser(broker, "terminal-07", persistent=True, client_id="terminal-07")
    try:
        first = t7.ask("bets", bet("kill-1", "seat-1"))
        assert first["accepted"]
        table.kill()
        queued = t7.send("bets", bet("kill-1", "seat-1"))  # kept by the broker for the controller's session
        table.start()
        replayed = t7.answer(queued).json()
        assert (replayed["accepted"], replayed["repeated"], replayed["round"]) == (True, True, first["round"])
        again = t7.ask("bets", bet("kill-1", "seat-1"))
        assert (again["accepted"], again["repeated"]) == (True, True)
        table.close_betting()
        assert table.settled_tickets()["kill-1"] == 1
        table.assert_accepted_once({"kill-1"})
    finally:
        t7.close()
        table.close()


def test_resent_after_a_broker_restart_gets_the_first_answer(tmp_path, broker):
    """After a broker restart a terminal that lost its answer sends again while betting is closed: the
    answer is the first one ("accepted"), never `betting_closed`. The table's `state` tells that the
    broker was away and why."""
    table = Table(tmp_path / "table", broker).start()
    t7 = BrokerUser(broker, "terminal-07", persistent=True, client_id="terminal-07")
    try:
        first = t7.ask("bets", bet("restart-1", "seat-1"))
        assert first["accepted"]
        round_no = first["round"]
        assert table.pit.ask("console", {"schema": 1, "type": "console", "action": "no_more_bets"})["accepted"]
        broker.stop()
        broker.start()
        assert t7.connected.wait(30) and table.observer.connected.wait(30)
        again = t7.ask("bets", bet("restart-1", "seat-1"))
        assert (again["accepted"], again["repeated"], again["round"]) == (True, True, round_no)
        assert table.wait_state(lambda s: s["round"] > round_no and s["phase"] == "betting")
        assert wait_until(lambda: table.settled_tickets()["restart-1"] == 1)
        seen = [s["broker"] for s in table.states()]
        assert any(not b["reachable"] and b["cause"] for b in seen), seen
        # the newest state (by seq: after the restart the observer may get the retained state before the ones
        # queued for it while the broker was down) says the broker is reachable again
        assert table.wait_state(lambda s: s["broker"]["reachable"] and s["round"] > round_no)
        assert max(table.states(), key=lambda s: s["seq"])["broker"]["reachable"] is True
        table.assert_accepted_once({"restart-1"})
    finally:
        t7.close()
        table.close()


def test_retained_requests_are_never_replayed(tmp_path, broker):
    """Stopped by the controller's subscriptions (MQTT 5 Retain Handling 2): a request published retained
    (a "no more bets" that would close betting at every reconnect, a bet placed again) is not replayed
    when the controller subscribes."""
    pit, t7 = BrokerUser(broker, "pit-console-1"), BrokerUser(broker, "terminal-07")
    try:
        close = {"schema": 1, "type": "console", "action": "no_more_bets"}
        pit.client.publish(pit.request_topic("console"), json.dumps(close), qos=1, retain=True)
        t7.client.publish(t7.request_topic("bets"), json.dumps(bet("retained-1", "seat-1")), qos=1,
                          retain=True).wait_for_publish(20)
        table = Table(tmp_path / "table", broker).start()
        try:
            assert t7.ask("bets", bet("live-1", "seat-1"))["accepted"]  # the controller is listening
            assert table.states()[-1]["phase"] == "betting"
            assert not [b for b in table.journal("bet_accepted") if b["ticket"] == "retained-1"]
            assert not [r for r in table.journal("console_action") if r["action"] == "no_more_bets"]
        finally:
            table.close()
    finally:
        pit.close()
        t7.close()
