"""1,000 requests with poisoned response topics, and 1,000 replies a broker refuses: every result still
reaches the back office, in order, and the controller never loses its connection."""

from __future__ import annotations

from .clients import T, BrokerUser, bet
from .deployed_broker import DeployedBroker
from .table import Table, wait_until

POISONS = [f"{T}/result", f"{T}/settlement", f"{T}/state", "$SYS/broker/load", "tablehw/replies/{other}/stolen",
           "tablehw/replies/{me}/+", "tablehw/replies/{me}/#", "tablehw/replies/{me}/" + "z" * 300,
           "tablehw/tables/other-table/result", "#"]
ROUNDS, PER_ROUND = 4, 250
FAST = {"requests_per_second": 5000, "request_burst": 1000}  # every one of the 1,000 is handled, none rate-limited
OWNER = {"terminal-07": "seat-1", "terminal-08": "seat-3"}
OTHER = {"terminal-07": "terminal-08", "terminal-08": "terminal-07"}


def results_in_order(table: Table, rounds: list[int]) -> None:
    """The back office got every settlement and valid result of `rounds`, each once, in `seq` order."""
    settlements = table.settlements()
    assert [s["round"] for s in settlements][-len(rounds):] == rounds
    for topic in ("/settlement", "/result"):
        seqs = [g.json()["seq"] for g in table.observer.snapshot(topic) if not g.retained]
        assert seqs == sorted(set(seqs)), f"{topic} out of order or repeated"
    valid = {g.json()["round"] for g in table.observer.snapshot("/result") if not g.json()["void"]}
    assert set(rounds) <= valid


def controller_connections(broker: DeployedBroker) -> int:
    return broker.log().count(" as table-craps-1 (")


def play(table: Table, senders: list[BrokerUser], response_topic) -> tuple[list[int], set[str], list[bytes]]:
    """ROUNDS rounds of PER_ROUND bets spread over `senders`; returns the rounds played, the tickets
    sent and their correlation data."""
    rounds, tickets, sent = [], set(), []
    for r in range(ROUNDS):
        table.betting_round()
        for i in range(PER_ROUND):
            user = senders[i % len(senders)]
            ticket = f"p{r}-{i}"
            sent.append(user.send("bets", bet(ticket, OWNER[user.user]), response_topic=response_topic(i, user.user),
                                  wait=False))
            tickets.add(ticket)
        for user in senders:  # each sender's probe is behind its own bets (one connection keeps its order)
            probe = user.ask("bets", bet(f"probe-{r}-{user.user}", OWNER[user.user]))
            assert probe["accepted"]
            tickets.add(f"probe-{r}-{user.user}")
        rounds.append(table.close_betting())
    return rounds, tickets, sent


def test_1000_poisoned_response_topics_are_answered_and_results_flow(tmp_path, broker):
    """Stopped by the reply rule: every answer goes to its sender's own tree, none where the broker refuses."""
    table = Table(tmp_path / "table", broker, access=FAST).start()
    terminals = [BrokerUser(broker, user) for user in ("terminal-07", "terminal-08")]
    try:
        rounds, tickets, sent = play(table, terminals, lambda i, me: POISONS[i % len(POISONS)].format(
            me=me, other=OTHER[me]))
        for terminal in terminals:
            answers = [g for g in terminal.answers() if g.correlation in set(sent)]
            assert {g.topic for g in answers} == {f"tablehw/replies/{terminal.user}/tables/craps-1/bets"}
            assert all(g.json()["accepted"] for g in answers)
        assert sum(len([g for g in t.answers() if g.correlation in set(sent)]) for t in terminals) == len(sent)
        results_in_order(table, rounds)
        assert controller_connections(broker) == 1
        assert not table.journal("reply_undeliverable")
        assert table.settled_once(set(tickets))
        table.assert_accepted_once(tickets)
    finally:
        for terminal in terminals:
            terminal.close()
        table.close()


def test_1000_replies_the_broker_refuses_never_hold_back_results(tmp_path, ca):
    """A broker whose ACL refuses the controller's replies to one terminal (0x87): each refused reply is
    journalled as undeliverable and dropped; results, settlements and other replies go on, in order."""
    narrower = lambda acl: acl.replace("user table-craps-1\ntopic readwrite tablehw/tables/craps-1/#\n"  # noqa: E731
                                       "topic write tablehw/replies/#",
                                       "user table-craps-1\ntopic readwrite tablehw/tables/craps-1/#\n"
                                       + "\n".join(f"topic write tablehw/replies/{user}/#"
                                                   for user in ("terminal-07", "pit-console-1", "backoffice")))
    broker = DeployedBroker(tmp_path / "broker", ca, acl_edit=narrower).start()
    table = Table(tmp_path / "table", broker, access=FAST).start()
    t7, t8 = BrokerUser(broker, "terminal-07"), BrokerUser(broker, "terminal-08")
    try:
        rounds, tickets, sent = [], set(), 0
        for r in range(ROUNDS):
            table.betting_round()
            for i in range(PER_ROUND):
                t8.send("bets", bet(f"refused-{r}-{i}", "seat-3"), wait=False)
                tickets.add(f"refused-{r}-{i}")
            sent += PER_ROUND
            assert t7.ask("bets", bet(f"served-{r}", "seat-1"))["accepted"]
            tickets.add(f"served-{r}")
            # t8 hears no answer: its bets are known handled once their refused replies are journalled
            # (another connection's probe may overtake them), and only then is betting closed.
            assert wait_until(lambda: len(table.journal("reply_undeliverable")) >= sent, 60)
            rounds.append(table.close_betting())
        assert wait_until(lambda: len(table.journal("reply_undeliverable")) >= sent, 60)
        assert not t8.answers()
        undeliverable = table.journal("reply_undeliverable")
        assert len(undeliverable) == sent and {u["topic"] for u in undeliverable} == {
            "tablehw/replies/terminal-08/test/" + u["topic"].rsplit("/", 1)[1] for u in undeliverable}
        assert all("0x87" in u["reason"] for u in undeliverable)
        results_in_order(table, rounds)
        assert controller_connections(broker) == 1
        assert table.settled_once(set(tickets))
        table.assert_accepted_once(tickets)
    finally:
        t7.close()
        t8.close()
        table.close()
        broker.kill()
