"""Booking against the real engines (SQLite file, PostgreSQL cluster): once, never overwritten, gaps, anomalies."""

from __future__ import annotations

import json
import random

from firmware_host.ledger import inbound
from firmware_host.ledger.booking import Booker

from .feed import TableFeed

UTC = "2026-03-02T06:00:00.000Z"


def book(books, messages, booker=None, via="live"):
    booker = booker or Booker("test")
    items = [x for x in (inbound.read("tablehw", t, p, via) for t, p in messages) if x is not None]
    outcome = books.run(lambda s: booker.book(s, items, UTC))
    booker.remember(outcome)
    return outcome


def rows(books, sql, params=()):
    return books.run(lambda s: s.all(sql, params))


def kinds(books):
    return sorted(k for (k,) in rows(books, "SELECT kind FROM anomalies"))


def followed(messages):
    return [(t, p) for t, p in messages if t.rsplit("/", 1)[-1] in inbound.FOLLOWED]


def test_every_round_is_booked_once_and_redelivery_changes_nothing(books):
    feed = TableFeed("craps-1", seed=1)
    messages = followed(feed.rounds(20))
    first = book(books, messages)
    assert first.booked == len(messages) and first.duplicates == 0
    again = book(books, list(reversed(messages)) + messages[:5])
    assert again.booked == 0 and again.duplicates == len(messages) + 5
    booked = {r: (staked, paid, kept, returned, breakage) for r, staked, paid, kept, returned, breakage in rows(
        books, "SELECT round, staked, paid, kept, returned, breakage FROM rounds WHERE table_id = ?", ("craps-1",))}
    assert booked == {r: (s["totals"]["staked"], s["totals"]["paid"], s["totals"]["kept"], s["totals"]["returned"],
                          s["totals"]["breakage"]) for r, s in feed.settlements.items()}
    lines = rows(books, "SELECT COUNT(*) FROM bets")[0][0]
    assert lines == sum(len(s["bets"]) for s in feed.settlements.values())
    assert kinds(books) == []
    # holes in seq left by topics the ledger does not follow (board, bet responses) are not gaps
    assert rows(books, "SELECT COUNT(*) FROM gaps")[0][0] == 0


def test_messages_in_any_order_across_batches_book_the_same(books):
    feed = TableFeed("roul-1", seed=2)
    messages = followed(feed.rounds(15))
    shuffled = messages[:]
    random.Random(7).shuffle(shuffled)
    booker = Booker("a")
    for start in range(0, len(shuffled), 13):
        book(books, shuffled[start:start + 13], booker)
    assert rows(books, "SELECT COUNT(*) FROM messages")[0][0] == len(messages)
    assert rows(books, "SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL")[0][0] == 0
    assert kinds(books) == []


def test_a_seq_replayed_with_other_bytes_is_an_anomaly_and_the_first_booking_stands(books):
    feed = TableFeed("craps-2", seed=3, void_rate=0)
    messages = followed(feed.rounds(3))
    book(books, messages)
    topic, payload = next((t, p) for t, p in messages if t.endswith("/settlement"))
    forged = json.loads(payload)
    forged["totals"]["paid"] += 100000
    forged_bytes = json.dumps(forged).encode()
    outcome = book(books, [(topic, forged_bytes)])
    assert outcome.booked == 0 and [a.kind for a in outcome.anomalies] == ["seq_replayed"]
    kept = rows(books, "SELECT paid FROM rounds WHERE table_id = ? AND round = ?", ("craps-2", forged["round"]))
    assert kept == [(feed.settlements[forged["round"]]["totals"]["paid"],)]
    (detail, evidence), = rows(books, "SELECT detail, evidence FROM anomalies")
    assert json.loads(evidence) == forged and json.loads(detail)["booked_topic"] == "settlement"
    book(books, [(topic, forged_bytes)])  # the same finding again is the same row
    assert kinds(books) == ["seq_replayed"]


def test_a_missing_message_opens_a_gap_that_booking_it_fills(books):
    feed = TableFeed("bac-1", seed=4, void_rate=0)
    messages = followed(feed.rounds(4))
    settlements = [i for i, (t, _) in enumerate(messages) if t.endswith("/settlement")]
    held_back = messages[settlements[1]]
    book(books, [m for m in messages if m is not held_back])
    gaps = rows(books, "SELECT missing_seq, topic, filled_utc FROM gaps")
    assert gaps == [(json.loads(held_back[1])["seq"], "settlement", None)]
    outcome = book(books, [held_back], via="recall")
    assert outcome.gaps_filled == 1
    assert rows(books, "SELECT filled_via FROM gaps") == [("recall",)]
    assert kinds(books) == []


def test_a_new_epoch_is_an_anomaly_and_round_numbers_go_on(books):
    old = TableFeed("craps-3", seed=5)
    book(books, followed(old.rounds(5)))
    new = TableFeed("craps-3", seed=6, first_round=old.round_no + 1)
    outcome = book(books, followed(new.rounds(2)))
    assert [a.kind for a in outcome.anomalies] == ["epoch_change"]
    detail = outcome.anomalies[0].detail
    assert detail["previous_epoch"] == old.epoch and detail["previous_last_round"] == old.round_no
    assert rows(books, "SELECT epoch, ordinal FROM epochs ORDER BY ordinal") == [(old.epoch, 1), (new.epoch, 2)]
    assert rows(books, "SELECT COUNT(*) FROM rounds")[0][0] == 7


def test_a_round_settled_again_in_a_replaced_journal_is_reported_not_booked(books):
    old = TableFeed("craps-4", seed=7)
    book(books, followed(old.rounds(5)))
    replaced = TableFeed("craps-4", seed=8, first_round=3)  # a journal replaced without the anchor's round
    outcome = book(books, followed(replaced.rounds(1)))
    assert sorted(a.kind for a in outcome.anomalies) == ["epoch_change", "round_settled_twice"]
    (epoch,), = rows(books, "SELECT epoch FROM rounds WHERE table_id = ? AND round = 3", ("craps-4",))
    assert epoch == old.epoch


def test_a_journal_chain_going_back_within_an_epoch_is_reported(books):
    feed = TableFeed("craps-5", seed=9)
    book(books, followed(feed.rounds(3)))
    feed.records -= 5  # a journal rolled back: the next state claims a shorter chain
    outcome = book(books, [feed.state("betting")])
    assert [a.kind for a in outcome.anomalies] == ["chain_behind"]


def test_a_settlement_that_does_not_add_up_is_booked_and_reported(books):
    feed = TableFeed("craps-6", seed=10, void_rate=0)
    messages = followed(feed.rounds(1))
    index = next(i for i, (t, _) in enumerate(messages) if t.endswith("/settlement"))
    body = json.loads(messages[index][1])
    body["bets"] = [{"ticket": "t-1", "owner": "x", "bet": "pass", "number": None, "stake": 500, "result": "lose",
                     "paid": 0, "returned": 0, "kept": 500, "breakage": "0/1", "point": None}]
    body["totals"] = {"staked": 500, "paid": 0, "returned": 0, "kept": 400, "breakage": "0/1"}
    messages[index] = (messages[index][0], json.dumps(body).encode())
    outcome = book(books, messages)
    assert [a.kind for a in outcome.anomalies] == ["settlement_inconsistent"]
    assert "totals.kept 400 but the bets sum to 500" in outcome.anomalies[0].detail["problems"]
    assert rows(books, "SELECT kept FROM rounds") == [(400,)]


def test_hostile_payloads_are_refused_with_the_reason_and_kept_as_evidence(books):
    feed = TableFeed("craps-7", seed=11)
    topic, payload = feed.state("betting")
    other = json.loads(payload)
    other["table"] = "craps-8"
    bad_epoch = json.loads(payload)
    bad_epoch["epoch"] = "XYZ"
    outcome = book(books, [(topic, b"{not json"), (topic, json.dumps(other).encode()),
                           (topic, json.dumps(bad_epoch).encode()),
                           (feed.topic("result"), payload)])
    assert outcome.booked == 0
    assert kinds(books) == ["malformed", "malformed", "table_mismatch", "type_mismatch"]
    problems = " ".join(d for (d,) in rows(books, "SELECT detail FROM anomalies"))
    assert "$.epoch" in problems and "craps-8" in problems


def test_contradicting_links_are_reported(books):
    feed = TableFeed("craps-9", seed=12, void_rate=0)
    messages = followed(feed.rounds(2))
    states = [i for i, (t, _) in enumerate(messages) if t.endswith("/state")]
    last = json.loads(messages[states[-1]][1])
    last["prev_seq"] = json.loads(messages[states[-3]][1])["seq"]  # skips a state the books hold
    messages[states[-1]] = (messages[states[-1]][0], json.dumps(last).encode())
    outcome = book(books, messages)
    assert [a.kind for a in outcome.anomalies] == ["chain_conflict"]


def test_a_message_the_books_cannot_store_is_refused_and_the_rest_of_its_batch_booked(books):
    from firmware_host.ledger.booking import book_resiliently

    feed = TableFeed("craps-10", seed=13, void_rate=0)
    messages = followed(feed.rounds(3))
    index = next(i for i, (t, _) in enumerate(messages) if t.endswith("/result"))
    poisoned = json.loads(messages[index][1])
    poisoned["round"] = 2 ** 70  # valid JSON, a valid int, out of every engine's integer range
    messages[index] = (messages[index][0], json.dumps(poisoned).encode())
    items = [inbound.read("tablehw", t, p) for t, p in messages]
    outcome = book_resiliently(books, Booker("test"), items, UTC)
    assert outcome.booked == len(messages) - 1
    assert [a.kind for a in outcome.anomalies] == ["malformed"]
    assert "the books cannot store it" in outcome.anomalies[0].detail["problem"]
    assert rows(books, "SELECT COUNT(*) FROM rounds")[0][0] == 3
