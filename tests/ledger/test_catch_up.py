"""Catching up from a controller: a gap of an epoch the controller no longer knows is that epoch's to give up on,
never the gaps of the epoch it runs now (the chaos test, 2026-11-29: a replaced journal's lost state message marked
the new epoch's gaps unfillable and left its own open)."""

from __future__ import annotations

import json

import msgspec

from firmware_host.ledger.booking import Booker
from firmware_host.ledger.catch_up import CatchUp
from firmware_host.mqtt.contract import MessagesResponse

from .feed import TableFeed
from .test_warden import UTC, book


class ControllerOfAnotherEpoch:
    """Answers every request as a controller whose journal was replaced: it knows only `epoch`."""

    def __init__(self, epoch: str) -> None:
        self.epoch, self.asked = epoch, []

    def ask(self, table, request):
        self.asked.append(request)
        return msgspec.json.encode(MessagesResponse(table=table, seq=0, utc=UTC, epoch=self.epoch, after=request.after,
                                                    next_after=request.after, reason="unknown_epoch"))


def open_gaps(books, epoch):
    return books.run(lambda s: s.all("SELECT missing_seq FROM gaps WHERE epoch = ? AND filled_utc IS NULL AND "
                                     "unfillable_utc IS NULL ORDER BY missing_seq", (epoch,)))


def test_a_gap_of_an_epoch_the_controller_no_longer_knows_is_given_up_in_that_epoch_only(books):
    old = TableFeed("bac-1", seed=5, void_rate=0)
    first = old.rounds(3)
    book(books, first[:4] + first[5:])  # one message of the old epoch lost
    new = TableFeed("bac-1", seed=6, void_rate=0, first_round=old.round_no + 1)
    second = new.rounds(3)
    book(books, second[:3] + second[4:])  # and one of the new epoch, which its controller can still send
    lost_old, lost_new = open_gaps(books, old.epoch), open_gaps(books, new.epoch)
    assert lost_old and lost_new
    controller = ControllerOfAnotherEpoch(new.epoch)
    after = json.loads(first[3][1])["seq"]
    result = CatchUp(controller, books, Booker("test"), "tablehw", "test").sweep("bac-1", old.epoch, after)
    assert result.status == "unknown_epoch" and controller.asked[0].epoch == old.epoch
    assert open_gaps(books, old.epoch) == []  # given up on: the controller cannot send them any more
    assert open_gaps(books, new.epoch) == lost_new  # still to be asked for
    given_up = books.run(lambda s: s.all("SELECT epoch FROM anomalies WHERE kind = 'gap_unfillable'"))
    assert given_up == [(old.epoch,)]
