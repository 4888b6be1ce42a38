"""A stand-in controller speaking the epoch contract, for the ledger's tests while issue 15's controller side
is not on main: `python -m tests.ledger.stand_in_table --table T --mqtt URL --storage DIR --rounds N`.

It is a real process with a real journal and outbox (firmware_host.journal / outbox, the controller's own
delivery code: at least once, in seq order, re-sent after a crash), so SIGKILL and broker restarts do to it
what they do to a table. What it publishes are TableFeed's contract-shaped rounds (epoch, seq, prev_seq,
state.journal), one journal transaction per round, the settlement also written as a `settlement` record
as the round engine does. It answers `messages` requests on `T/recall/<user>` from its outbox.

A fresh journal gets a new random epoch and continues round numbers after the highest round its retained
`T/state` or the ledger's anchor knows (what a supervisor's new epoch does on the real controller).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import signal
import sys
import threading
from pathlib import Path

import msgspec

from firmware_host.journal import Journal
from firmware_host.mqtt.contract import MessagesRequest, MessagesResponse, MessageCopy
from firmware_host.mqtt.link import Inbound, LinkSettings, MqttLink, Will, message_properties
from firmware_host.outbox import OutboxSender
from tests.service.listener import Listener

from .feed import TableFeed, utc_text

log = logging.getLogger("stand-in")
MAX_RESPONSE_BYTES = 256_000


class StandInTable:
    def __init__(self, table: str, url: str, storage: Path, prefix: str = "tablehw", seed: int = 0) -> None:
        self.table, self.url, self.prefix = table, url, prefix
        self.base = f"{prefix}/tables/{table}"
        storage.mkdir(parents=True, exist_ok=True)
        fresh = not (storage / "journal.sqlite").exists()
        self.journal = Journal.open(storage / "journal.sqlite")
        self.feed = TableFeed(table, prefix=prefix, seed=seed)
        self._lock = threading.Lock()
        if fresh or not list(self.journal.records(kind="stand_in_epoch")):
            self._new_epoch()
        else:
            self._resume()
        self.link = MqttLink(LinkSettings(url=url, client_id=f"stand-in-{table}", session_expiry_s=3600),
                             Will(f"{self.base}/availability", b'{"state":"offline"}', b'{"state":"online"}'),
                             subscriptions=[(f"{self.base}/recall/+", 1)], on_message=self._answer)
        self.sender = OutboxSender(self.journal, self.link)
        self.link.on_delivery = self.sender.deliver

    def _new_epoch(self) -> None:
        """A new journal: a new epoch, rounds going on after what the broker's retained state and anchor know."""
        known = 0
        listener = Listener(self.url, [f"{self.base}/state", f"{self.prefix}/ledger/anchors/{self.table}"])
        try:
            listener.wait_for(lambda got: len(got) >= 2, 3.0)
            for message in listener.snapshot():
                known = max(known, int(message.json().get("round") or 0))
        finally:
            listener.close()
        self.feed.round_no = known
        with self.journal.transaction() as txn:
            txn.record("stand_in_epoch", {"epoch": self.feed.epoch, "first_round": known + 1})
        log.info("%s: new epoch %s from round %d", self.table, self.feed.epoch, known + 1)

    def _resume(self) -> None:
        feed = self.feed
        feed.epoch = list(self.journal.records(kind="stand_in_epoch"))[-1].data()["epoch"]
        last = self.journal.last_record(("stand_in_round",))
        if last is not None:
            data = last.data()
            feed.round_no, feed.records, feed.head, feed.tickets = (data["round"], data["records"], data["head"],
                                                                    data["tickets"])
            feed.clock = feed.clock.fromisoformat(data["utc"].replace("Z", "+00:00"))
        else:
            feed.round_no = list(self.journal.records(kind="stand_in_epoch"))[-1].data()["first_round"] - 1
        for message in self.journal.messages():
            feed.seq = message.seq
            feed.last_on_topic[message.topic.removeprefix(self.base + "/")] = message.seq

    def play_round(self, void_rate: float) -> int:
        feed = self.feed
        feed.random = random.Random(f"{feed.epoch}-{feed.round_no}")
        feed.void_rate = void_rate
        with self._lock, self.journal.transaction() as txn:
            feed.seq = txn.next_message_seq() - 1
            messages = feed.round()
            for topic, payload in messages:
                body = json.loads(payload)
                if body["type"] == "settlement":
                    txn.record("settlement", payload, round=feed.round_no)
                seq = txn.publish(topic, payload, retain=topic.endswith(("/state", "/result")))
                assert seq == body["seq"], (seq, body["seq"])
            txn.record("stand_in_round", {"round": feed.round_no, "records": feed.records, "head": feed.head,
                                          "tickets": feed.tickets, "utc": utc_text(feed.clock)}, round=feed.round_no)
        return feed.round_no

    def rounds_played(self) -> int:
        return sum(1 for _ in self.journal.records(kind="settlement"))

    # --- messages since seq ------------------------------------------------------------------------------
    def _answer(self, message: Inbound) -> None:
        user = message.topic.rsplit("/", 1)[-1]
        try:
            request = msgspec.json.decode(message.payload, type=MessagesRequest)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return
        reply_prefix = f"{self.prefix}/replies/{user}/"
        topic = message.response_topic if (message.response_topic or "").startswith(reply_prefix) else \
            f"{reply_prefix}tables/{self.table}/recall"
        with self._lock:
            response = self._messages(request)
        self.link.publish(topic, msgspec.json.encode(response), qos=1,
                          properties=message_properties(correlation_data=message.correlation_data))

    def _messages(self, request: MessagesRequest) -> MessagesResponse:
        epoch = self.feed.epoch
        common = dict(table=self.table, seq=0, utc=utc_text(self.feed.clock), epoch=epoch, after=request.after)
        if request.epoch not in (None, epoch):
            return MessagesResponse(**common, reason="unknown_epoch", next_after=request.after)
        rows = self.journal.messages()
        first_available = rows[0].seq if rows else 1
        wanted = set(request.topics or [])
        listed, size, next_after, more = [], 0, max(request.after, rows[-1].seq if rows else 0), False
        for row in rows:
            if row.seq <= request.after:
                continue
            leaf = row.topic.removeprefix(self.base + "/")
            if wanted and leaf not in wanted:
                continue
            if len(listed) >= request.limit or size + len(row.payload) > MAX_RESPONSE_BYTES:
                next_after, more = listed[-1].seq, True
                break
            listed.append(MessageCopy(row.seq, row.topic, row.payload.decode()))
            size += len(row.payload)
        return MessagesResponse(**common, messages=listed, next_after=next_after, more=more,
                                first_available=first_available)

    def archive_below(self, seq: int) -> None:
        """Drop outbox rows below `seq` (what journal retention does to old messages)."""
        self.journal._conn.execute("DELETE FROM outbox WHERE seq < ? AND sent_utc IS NOT NULL", (seq,))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="stand_in_table")
    parser.add_argument("--table", required=True)
    parser.add_argument("--mqtt", required=True)
    parser.add_argument("--storage", required=True, type=Path)
    parser.add_argument("--rounds", type=int, required=True, help="stop once the journal holds this many rounds")
    parser.add_argument("--pace", type=float, default=0.05, help="seconds between rounds")
    parser.add_argument("--void-rate", type=float, default=0.1)
    parser.add_argument("--archive-below", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    table = StandInTable(args.table, args.mqtt, args.storage)
    if args.archive_below:
        table.archive_below(args.archive_below)
    table.sender.start()
    table.link.start()
    try:
        while table.rounds_played() < args.rounds and not stop.is_set():
            played = table.play_round(args.void_rate)
            print(f"{args.table} round {played}", flush=True)
            stop.wait(args.pace)
        while not stop.is_set():  # keep answering `messages` requests until told to stop
            table.sender.wait_sent(1.0)
            stop.wait(0.2)
    finally:
        table.sender.wait_sent(10.0)
        table.link.stop()
        table.sender.stop()
        table.journal.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
