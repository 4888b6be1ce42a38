"""The gate's parts on their own: who from the topic, where the reply goes, size and rate per user, the
inbox's order and bounds, the ticket registry."""

from __future__ import annotations

import pytest

from firmware_host.journal import Journal
from firmware_host.mqtt.admission import ANSWER_EVERY_S, Admission, Limits
from firmware_host.mqtt.contract import Topics
from firmware_host.mqtt.identity import reply_to
from firmware_host.mqtt.link import Inbound
from firmware_host.rounds.gate import RequestGate, TableRequest
from firmware_host.rounds.inbox import Inbox
from firmware_host.rounds.inputs import ConsoleCommand
from firmware_host.rounds.tickets import TicketRegistry, request_digest
from firmware_host.service_config import AccessSection

TOPICS = Topics("tablehw", "craps-1")
ACCESS = AccessSection(terminals={"terminal-07": ["seat-1"]}, dealers=["pit-1"], back_office=["bo"],
                       requests_per_second=2, request_burst=3)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_requester_is_the_last_topic_level():
    assert TOPICS.requester("tablehw/tables/craps-1/bets/terminal-07") == ("bets", "terminal-07")
    assert TOPICS.requester("tablehw/tables/craps-1/console/pit-1") == ("console", "pit-1")
    assert TOPICS.requester("tablehw/tables/craps-1/bets") is None
    assert TOPICS.requester("tablehw/tables/craps-1/result/x") is None
    assert TOPICS.requester("tablehw/tables/craps-2/bets/terminal-07") is None
    assert TOPICS.requester("tablehw/tables/craps-1/bets/a/b") is None


@pytest.mark.parametrize("asked, used", [
    ("tablehw/replies/terminal-07/pos/3", "tablehw/replies/terminal-07/pos/3"),
    (None, "tablehw/replies/terminal-07/tables/craps-1/bets"),
    ("tablehw/replies/terminal-08/pos/3", "tablehw/replies/terminal-07/tables/craps-1/bets"),
    ("tablehw/replies/terminal-07", "tablehw/replies/terminal-07/tables/craps-1/bets"),
    ("tablehw/replies/terminal-07/", "tablehw/replies/terminal-07/tables/craps-1/bets"),
    ("tablehw/replies/terminal-07/+", "tablehw/replies/terminal-07/tables/craps-1/bets"),
    ("tablehw/replies/terminal-07/a\x00b", "tablehw/replies/terminal-07/tables/craps-1/bets"),
    ("tablehw/replies/terminal-07/" + "é" * 200, "tablehw/replies/terminal-07/tables/craps-1/bets"),
    ("tablehw/tables/craps-1/result", "tablehw/replies/terminal-07/tables/craps-1/bets"),
])
def test_replies_only_in_the_requesters_tree(asked, used):
    reply = reply_to(TOPICS.reply_prefix("terminal-07"), TOPICS.default_reply("bets", "terminal-07"), asked, b"c")
    assert (reply.topic, reply.correlation) == (used, b"c")


def test_rate_and_size_per_user_and_one_answer_a_second():
    clock = Clock()
    admission = Admission(Limits(max_request_bytes=100, requests_per_second=2, burst=3), clock)
    assert [admission.check("a", 10) for _ in range(3)] == [None] * 3
    first, second = admission.check("a", 10), admission.check("a", 10)
    assert (first.reason, first.answer) == ("rate_limited", True)
    assert (second.reason, second.answer) == ("rate_limited", False)
    assert admission.check("b", 10) is None  # another user has its own bucket
    clock.now += 0.5  # one token back
    assert admission.check("a", 10) is None
    clock.now += ANSWER_EVERY_S
    big = admission.check("a", 101)
    assert (big.reason, big.answer) == ("too_large", True) and "100 bytes" in big.message
    assert admission.counts == {"rate_limited": 2, "too_large": 1}


def test_events_go_first_and_requesters_take_turns_in_bounded_lanes():
    inbox = Inbox(per_user=2)
    assert inbox.put_request("a", "a1") and inbox.put_request("a", "a2")
    assert not inbox.put_request("a", "a3")  # a's lane is full
    assert inbox.put_request("a", "a-refusal", beyond_limit=True)
    inbox.put_request("b", "b1")
    inbox.put(ConsoleCommand("no_more_bets"))
    events, requests = inbox.take(0, max_requests=3)
    assert events == [ConsoleCommand("no_more_bets")] and requests == ["a1", "b1", "a2"]
    assert inbox.take(0, max_requests=10) == ([], ["a-refusal"]) and inbox.waiting() == 0


def message(kind: str, user: str, payload: bytes = b"{}") -> Inbound:
    return Inbound(TOPICS.request(kind, user), payload, None, b"corr")


def test_the_gate_admits_by_role_and_answers_refusals_sparingly():
    inbox = Inbox(per_user=ACCESS.request_burst)
    gate = RequestGate(TOPICS, ACCESS, inbox, Admission(ACCESS.limits(), Clock()))
    gate(message("bets", "terminal-07"))
    gate(message("console", "pit-1"))
    gate(message("bets", "pit-1"))  # a dealer is not a terminal
    gate(message("recall", "terminal-07"))  # nor a terminal the back office
    gate(Inbound("tablehw/tables/craps-1/state", b"{}", None, None))
    events, requests = inbox.take(0, 10)
    assert [(r.kind, r.user) for r in events] == [("console", "pit-1")]
    assert [(r.kind, r.user, r.refusal and r.refusal.reason) for r in requests] == [
        ("bets", "terminal-07", None), ("bets", "pit-1", "not_authorised"), ("recall", "terminal-07", "not_authorised")]
    assert all(isinstance(r, TableRequest) for r in events + requests)
    for _ in range(10):  # terminal-07 has 1 token left of 3 (a bet, a recall), then nothing
        gate(message("bets", "terminal-07"))
    _, requests = inbox.take(0, 100)
    assert sum(r.refusal is None for r in requests) == 1 and len(requests) == 1  # the refusal answer: a second later
    assert gate.admission.counts["rate_limited"] == 9 and gate.admission.counts["not_a_request"] == 1


def test_a_tickets_first_answer_survives_a_rebuild(tmp_path):
    journal = Journal.open(tmp_path / "j.sqlite")
    registry = TicketRegistry()
    mine, changed = request_digest("terminal-07", b'{"a":1}'), request_digest("terminal-07", b'{"a":2}')
    with journal.transaction() as txn:
        txn.record("bet_accepted", {"ticket": "t1", "request": mine.hex()}, round=4)
        txn.record("bet_refused", {"ticket": "t2", "request": mine.hex(), "reason": "betting_closed"}, round=5)
        txn.record("bet_withdrawn", {"ticket": "t1", "request": mine.hex()}, round=4)
    registry.rebuild(journal.records(kinds=("bet_accepted", "bet_refused", "bet_withdrawn")))
    assert registry.bet_answer("t1", mine)[:2] == (True, None) and registry.bet_answer("t1", mine).repeated
    assert registry.bet_answer("t1", changed)[:2] == (False, "duplicate_ticket")
    assert registry.bet_answer("t1", request_digest("terminal-08", b'{"a":1}')).reason == "duplicate_ticket"
    assert registry.bet_answer("t2", mine)[:2] == (False, "betting_closed")
    assert registry.bet_answer("t2", mine).round == 5
    assert registry.withdrawal_answer("t1", mine).accepted and registry.bet_answer("t3", mine) is None
    journal.close()
