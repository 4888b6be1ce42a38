"""The warden's duties in the books: the anchor only moves forward and stops before a gap; one lease holder."""

from __future__ import annotations

import json
import time

from firmware_host.ledger import inbound
from firmware_host.ledger.booking import Booker
from firmware_host.ledger.warden import advance_anchor, hold_lease

from .feed import TableFeed

UTC = "2026-03-02T06:00:00.000Z"


def book(books, messages):
    items = [x for x in (inbound.read("tablehw", t, p) for t, p in messages) if x is not None]
    books.run(lambda s: Booker("test").book(s, items, UTC))


def anchor(books, table):
    return books.run(lambda s: s.one("SELECT epoch, seq, round FROM anchors WHERE table_id = ?", (table,)))


def newest_state(feed, messages):
    states = [json.loads(p) for t, p in messages if t.endswith("/state")]
    return feed.epoch, states[-1]["seq"], states[-1]["round"]


def test_the_anchor_is_the_newest_state_and_never_goes_back(books):
    old = TableFeed("craps-1", seed=1)
    first = old.rounds(3)
    book(books, first)
    assert books.run(lambda s: advance_anchor(s, "craps-1", UTC))
    assert anchor(books, "craps-1") == newest_state(old, first)
    new = TableFeed("craps-1", seed=2, first_round=old.round_no + 1)
    second = new.rounds(2)
    book(books, second)
    books.run(lambda s: advance_anchor(s, "craps-1", UTC))
    assert anchor(books, "craps-1") == newest_state(new, second)
    late = old.rounds(1)  # a late message of the old epoch: its epoch is not the latest, nothing moves back
    book(books, late)
    assert not books.run(lambda s: advance_anchor(s, "craps-1", UTC))
    assert anchor(books, "craps-1") == newest_state(new, second)


def test_the_anchor_stops_before_an_unfilled_gap_and_moves_on_once_it_is_filled(books):
    feed = TableFeed("bac-1", seed=3, void_rate=0)
    messages = feed.rounds(4)
    seqs = [(t.rsplit("/", 1)[-1], json.loads(p)["seq"]) for t, p in messages]
    settlements = [i for i, (topic, _) in enumerate(seqs) if topic == "settlement"]
    missing = messages[settlements[1]]
    book(books, [m for m in messages if m is not missing])
    books.run(lambda s: advance_anchor(s, "bac-1", UTC))
    # everything on `settlement` after the one booked before the gap may be missing: the anchor stays below
    last_whole = seqs[settlements[0]][1]
    expected = max(seq for topic, seq in seqs if topic == "state" and seq <= last_whole)
    assert anchor(books, "bac-1")[1] == expected
    book(books, [missing])
    assert books.run(lambda s: advance_anchor(s, "bac-1", UTC))
    assert anchor(books, "bac-1") == newest_state(feed, messages)


def test_one_instance_holds_the_lease_until_it_lapses(books):
    now = time.time()
    assert books.run(lambda s: hold_lease(s, "ledger-a", now, 10.0))
    assert not books.run(lambda s: hold_lease(s, "ledger-b", now + 1, 10.0))
    assert books.run(lambda s: hold_lease(s, "ledger-a", now + 2, 10.0))  # renewed
    assert not books.run(lambda s: hold_lease(s, "ledger-b", now + 11, 10.0))
    assert books.run(lambda s: hold_lease(s, "ledger-b", now + 13, 10.0))  # lapsed: taken over
    assert not books.run(lambda s: hold_lease(s, "ledger-a", now + 14, 10.0))
