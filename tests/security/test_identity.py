"""Attacks on who may bet, withdraw, act and read, against the broker of docs/deploy.md and a real controller.

Each test names what stops the attack and checks that nothing accepted was lost or doubled. They
share one broker and one controller (module scope): none of them kills anything.
"""

from __future__ import annotations

import time

import pytest

from firmware_host.mqtt.admission import ANSWER_EVERY_S

from .certs import FloorCA
from .clients import T, BrokerUser, bet, withdraw
from .deployed_broker import DeployedBroker
from .table import ACCESS, Table, wait_until

NOT_AUTHORISED = 0x87


@pytest.fixture(scope="module")
def site(tmp_path_factory, ca: FloorCA):
    directory = tmp_path_factory.mktemp("identity")
    broker = DeployedBroker(directory / "broker", ca).start()
    table = Table(directory / "table", broker).start()
    yield broker, table
    table.close()
    broker.kill()


@pytest.fixture
def t7(site):
    user = BrokerUser(site[0], "terminal-07")
    yield user
    user.close()


@pytest.fixture
def t8(site):
    user = BrokerUser(site[0], "terminal-08")
    yield user
    user.close()


def controller_connections(broker: DeployedBroker) -> int:
    """How often the controller connected (the broker's log names every client that connects)."""
    return broker.log().count(" as table-craps-1 (")


def test_bet_for_another_terminals_owner_is_refused(site, t7, t8):
    """Stopped by the controller's [access] terminals: a terminal bets only for its own owners."""
    broker, table = site
    stolen = t8.ask("bets", bet("own-a1", "seat-1"))
    assert (stolen["accepted"], stolen["reason"]) == (False, "not_authorised")
    assert "seat-1" in stolen["message"]
    mine = t8.ask("bets", bet("own-a2", "seat-3"))
    assert mine["accepted"], mine
    legit = t7.ask("bets", bet("own-a1", "seat-1"))  # the refused attempt did not take the ticket
    assert legit["accepted"] and not legit["repeated"], legit
    table.close_betting()
    assert table.settled_tickets()["own-a1"] == 1 and table.settled_tickets()["own-a2"] == 1
    assert [b["owner"] for b in table.journal("bet_accepted") if b["ticket"] == "own-a1"] == ["seat-1"]
    assert [b["user"] for b in table.journal("bet_accepted") if b["ticket"] == "own-a1"] == ["terminal-07"]
    table.assert_accepted_once({"own-a1", "own-a2"})


def test_request_on_another_users_topic_is_refused_by_the_broker(site, t8):
    """Stopped by the broker's ACL (`pattern write .../bets/%u`): nobody writes under another user's name,
    not a terminal's bets nor the pit console's "no more bets"."""
    broker, table = site
    round_no = table.betting_round()
    assert t8.puback(t8.publish(f"{T}/bets/terminal-07", bet("own-b1", "seat-1"), wait=False)) == NOT_AUTHORISED
    close = {"schema": 1, "type": "console", "action": "no_more_bets"}
    assert t8.puback(t8.publish(f"{T}/console/pit-console-1", close, wait=False)) == NOT_AUTHORISED
    assert t8.puback(t8.publish(f"{T}/result", b'{"forged": true}', wait=False)) == NOT_AUTHORISED
    probe = t8.ask("bets", bet("own-b2", "seat-3"))  # the controller's inbox is past anything t8 sent
    assert probe["accepted"]
    assert not any(b["ticket"] == "own-b1" for b in table.journal("bet_accepted") + table.journal("bet_refused"))
    assert table.states()[-1]["phase"] == "betting" and table.states()[-1]["round"] == round_no
    table.close_betting()
    table.assert_accepted_once({"own-b2"})


def test_withdraw_for_another_owner_is_refused(site, t7, t8):
    """Stopped by [access] terminals and the bet's owner: only a terminal allowed for the bet's owner
    withdraws it, naming that owner."""
    broker, table = site
    assert t7.ask("bets", bet("own-c1", "seat-2"))["accepted"]
    as_other = t8.ask("bets", withdraw("own-c1", "seat-3"))
    assert (as_other["accepted"], as_other["reason"]) == (False, "not_authorised")
    impersonating = t8.ask("bets", withdraw("own-c1", "seat-2"))
    assert (impersonating["accepted"], impersonating["reason"]) == (False, "not_authorised")
    assert not table.journal("bet_withdrawn")
    table.close_betting()
    assert table.settled_tickets()["own-c1"] == 1
    table.assert_accepted_once({"own-c1"})


def test_reply_pointed_at_another_terminal_goes_to_the_senders_own_tree(site, t7, t8):
    """Stopped by the reply rule (answers only in the requester's tree `tablehw/replies/<user>/`) and the
    broker's ACL (`pattern read tablehw/replies/%u/#`: nobody reads another's replies)."""
    broker, table = site
    t8.client.subscribe("tablehw/replies/terminal-07/#", qos=1)  # the broker grants it, and delivers nothing
    correlation = t8.send("bets", bet("own-d1", "seat-3"), response_topic="tablehw/replies/terminal-07/bets")
    answer = t8.answer(correlation)
    assert answer.topic == "tablehw/replies/terminal-08/tables/craps-1/bets" and answer.json()["accepted"]
    probe = t7.ask("bets", bet("own-d2", "seat-1"))  # t7's own answer arrives: the earlier one would have too
    assert probe["accepted"]
    assert not any(g.correlation == correlation for g in t7.snapshot())
    assert not [g for g in t8.snapshot() if g.topic.startswith("tablehw/replies/terminal-07/")]
    table.close_betting()
    table.assert_accepted_once({"own-d1", "own-d2"})


@pytest.mark.parametrize("poison", [
    f"{T}/result",  # a table topic: the board would show it
    f"{T}/availability",
    "$SYS/broker/clients",
    "tablehw/replies/terminal-08/+",  # a wildcard: a protocol error to publish to
    "tablehw/replies/terminal-08/" + "x" * 300,  # longer than any reply topic the controller writes
    "tablehw/tables/other-table/state",
])
def test_poisoned_response_topic_is_answered_in_the_senders_tree(site, t8, poison):
    """Stopped by the reply rule: a response topic outside the requester's tree is replaced by the
    default, so the broker never refuses the controller's reply nor drops its connection."""
    broker, table = site
    connections = controller_connections(broker)
    answer = t8.answer(t8.send("bets", bet(f"poison-{abs(hash(poison))}", "seat-3"), response_topic=poison))
    assert answer.topic == "tablehw/replies/terminal-08/tables/craps-1/bets"
    assert answer.json()["accepted"]
    table.close_betting()  # results still flow
    assert controller_connections(broker) == connections == 1
    assert not [g for g in table.observer.snapshot("/availability") if g.json()["state"] != "online"]


def test_client_id_takeover_leaves_the_controller_connected(site, t7):
    """Stopped by `use_username_as_clientid`: a client asking for the controller's client id gets its
    own user name as id, so it can only ever knock off its own sessions."""
    broker, table = site
    thieves = [BrokerUser(broker, user, client_id=name)
               for user, name in (("terminal-08", "table-craps-1"), ("pit-supervisor-1", "tablehw-craps-1"))]
    try:
        accepted = set()
        for i in range(20):  # the original attack lost 15 of 20 bets to the two clients' tug of war
            answer = t7.ask("bets", bet(f"own-e{i}", "seat-1"))
            assert answer["accepted"], answer
            accepted.add(f"own-e{i}")
        table.close_betting()
        assert controller_connections(broker) == 1
        assert table.settled_once(accepted)
    finally:
        for thief in thieves:
            thief.close()
    table.assert_accepted_once(accepted)


def test_forged_who_is_kept_only_as_a_display_name(site, t7):
    """Stopped by identity from the topic: `who` journalled is the broker user; the payload's `who` is a
    display name beside it. A terminal may not act on the console; a dealer may not override."""
    broker, table = site
    table.betting_round()
    action = {"schema": 1, "type": "console", "action": "new_shooter", "who": "floor-manager-boss", "why": "test"}
    assert table.pit.ask("console", action)["accepted"]
    record = [r for r in table.journal("console_action") if r["action"] == "new_shooter"][-1]
    assert (record["who"], record["display_name"]) == ("pit-console-1", "floor-manager-boss")
    event = [g.json() for g in table.observer.snapshot("/events") if g.json()["kind"] == "dealer_action"][-1]
    assert (event["who"], event["detail"]["display_name"]) == ("pit-console-1", "floor-manager-boss")
    as_terminal = t7.ask("console", {"schema": 1, "type": "console", "action": "no_more_bets"})
    assert (as_terminal["accepted"], as_terminal["reason"]) == (False, "not_authorised")
    override = {"schema": 1, "type": "console", "action": "override", "why": "x", "result": {"faces": [3, 4]}}
    by_dealer = table.pit.ask("console", override)
    assert (by_dealer["accepted"], by_dealer["reason"]) == (False, "not_authorised")
    assert table.states()[-1]["phase"] == "betting"


def test_recall_is_for_the_back_office_and_supervisors_only(site, t7):
    """Stopped by [access] back_office / supervisors: a terminal cannot read every player's bets."""
    broker, table = site
    time.sleep(ANSWER_EVERY_S)  # a refusal before decoding is answered at most once a second per user
    refused = t7.ask("recall", {"schema": 1, "type": "recall", "last": 5})
    assert (refused["rounds"], refused["reason"]) == ([], "not_authorised")
    recalled = table.observer.ask("recall", {"schema": 1, "type": "recall", "last": 2})
    assert recalled["reason"] is None and recalled["rounds"]
    unknown = table.observer.ask("recall", {"schema": 1, "type": "everything"})
    assert unknown["reason"] == "bad_request" and "recall" in unknown["message"]


def rss_kb(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_oversized_requests_are_refused_before_decoding(site, t7, t8):
    """Stopped by the controller's size check before decoding (`too_large`, answered at most once a second)
    and the broker's `max_packet_size` (a bigger packet costs its sender the connection). The controller
    keeps receiving after them (it asks no MQTT 5 Maximum Packet Size: Mosquitto 2.0.11 would stop
    delivering to it after 20 dropped messages)."""
    broker, table = site
    # t8's token bucket full again (and no refusal of t8's answered in the last second): every request spends a
    # token, too large or not, so the 31 too large below leave tokens for the bet after them. (With 41, one more than
    # the burst, that bet could find the bucket empty on a fast machine and its refusal go unanswered: CI, 2026-11-28.)
    time.sleep(max(ANSWER_EVERY_S, ACCESS["request_burst"] / ACCESS["requests_per_second"]))
    before = rss_kb(table.process.pid)
    started = time.monotonic()
    big = t8.send("bets", b'{"pad": "' + b"x" * 5000 + b'"}')  # over 4096 bytes
    answer = t8.answer(big).json()
    assert (answer["accepted"], answer["reason"]) == (False, "too_large") and "4096" in answer["message"]
    sent = [t8.send("bets", b"{" + b" " * 512_000 + b"}", wait=False) for _ in range(30)]  # 15 MB in all
    assert len(sent) + 1 < ACCESS["request_burst"]
    assert t8.ask("bets", bet("own-f1", "seat-3"))["accepted"]  # sent after all of them: they were read
    answered = [g for g in t8.answers() if g.correlation in set(sent)]
    assert all(g.json()["reason"] == "too_large" for g in answered)
    assert len(answered) <= 1 + (time.monotonic() - started) / ANSWER_EVERY_S  # answers cost: the rest counted
    assert rss_kb(table.process.pid) - before < 40_000  # 15 MB went through; none of it was kept
    huge = BrokerUser(broker, "floor-system")  # another user: two clients of one user knock each other off
    try:
        huge.publish(f"{T}/bets/floor-system", b"x" * 2_000_000, wait=False)
        assert wait_until(lambda: any("disconnect" in e for e in huge.events))
    finally:
        huge.close()
    table.close_betting()
    table.assert_accepted_once({"own-f1"})


def test_flood_from_one_terminal_is_rate_limited_and_others_are_served(site, t7, t8):
    """Stopped by the per-user token bucket (20/s, burst 40) and the per-user queue (40): the flood costs
    its sender, answered at most once a second; other terminals and the dealer are served in turn."""
    broker, table = site
    time.sleep(ANSWER_EVERY_S)  # no refusal of t8's answered in the last second: the flood's first one is
    table.betting_round()
    started = time.monotonic()
    flood = [t8.send("bets", bet(f"flood-{i}", "seat-3", stake=5000), wait=False) for i in range(1500)]
    mine = [t7.send("bets", bet(f"own-g{i}", "seat-1"), wait=False) for i in range(5)]
    assert all(t7.answer(c).json()["accepted"] for c in mine)
    flooding = set(flood)  # on a loaded machine the flood may still be in transit: close once it has hit the limit
    assert t8.wait_for(lambda got: any(g.correlation in flooding and g.json().get("reason") == "rate_limited"
                                       for g in got), 120), "the flood was never rate-limited"
    settled_round = table.close_betting()
    elapsed = time.monotonic() - started
    answers = [g.json() for g in t8.answers() if g.correlation in set(flood)]
    accepted = {a["ticket"] for a in answers if a["accepted"]}
    late = {a["ticket"] for a in answers if a["reason"] == "betting_closed"}
    refused = [a for a in answers if a["reason"] == "rate_limited"]
    admitted = len(accepted) + len(late)  # decoded and judged: within the bucket (burst 40, 20/s)
    assert accepted and refused and admitted <= 40 + 20 * elapsed, (len(accepted), len(late), elapsed)
    assert len(refused) <= elapsed + 2  # the rest was only counted: a refusal is answered at most once a second
    assert all(a["ticket"] == "" and "slow down" in a["message"] for a in refused)
    # A bet still in the flooder's queue when the next round opens is accepted into that round, which nobody
    # closes here (CI, 2026-11-28, on a loaded machine): each accepted bet is checked against its own round.
    rounds = {a["ticket"]: a["round"] for a in answers if a["accepted"]}
    in_round = {t for t, r in rounds.items() if r == settled_round}
    assert in_round and all(r >= settled_round for r in rounds.values()), rounds  # never an earlier round
    assert table.settled_once(in_round | {f"own-g{i}" for i in range(5)})
    assert not (late | (accepted - in_round)) & set(table.settled_tickets())
    assert settled_round < table.betting_round()
    table.assert_accepted_once(accepted | {f"own-g{i}" for i in range(5)})
