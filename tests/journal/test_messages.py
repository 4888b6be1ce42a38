"""Messages since a seq (docs/mqtt.md, `messages`): exact bytes, seq order, per-topic prev_seq, bounds, epochs."""

from __future__ import annotations

import json

from ..service.engine_harness import feed, request
from .rig import played_journal

REPLY = "tablehw/replies/ledger/gaps"


def ask(engine, body: dict) -> dict:
    feed(engine, request(engine, "recall", "ledger", {"schema": 1, **body}, REPLY, b"c-1"))
    (reply,) = [m for m in engine.journal.messages() if m.topic == REPLY][-1:]
    return json.loads(reply.payload)


def test_every_message_of_the_asked_topics_in_seq_order_with_its_exact_bytes(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 5)
    answer = ask(engine, {"type": "messages", "after": 0, "topics": ["result", "settlement"], "epoch": None})
    assert answer["type"] == "messages_response" and answer["epoch"] == engine.journal.epoch
    wanted = {f"{engine.topics.base}/result", f"{engine.topics.base}/settlement"}
    stored = {m.seq: m.payload for m in engine.journal.messages() if m.topic in wanted}
    assert [c["seq"] for c in answer["messages"]] == sorted(stored)
    assert all(c["payload"].encode() == stored[c["seq"]] for c in answer["messages"])  # the bytes as published
    assert answer["more"] is False and answer["next_after"] == answer["seq"] - 1 and answer["first_available"] == 1
    for topic in wanted:  # prev_seq chains each topic
        chain = [json.loads(c["payload"]) for c in answer["messages"] if c["topic"] == topic]
        assert [p["prev_seq"] for p in chain] == [0] + [p["seq"] for p in chain[:-1]]


def test_limit_gives_more_and_next_after_and_paging_covers_everything(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 6)
    seen, after = [], 0
    for _ in range(50):
        answer = ask(engine, {"type": "messages", "after": after, "topics": ["state"], "limit": 4})
        assert len(answer["messages"]) <= 4
        seen += [c["seq"] for c in answer["messages"]]
        after = answer["next_after"]
        if not answer["more"]:
            break
    states = [m.seq for m in engine.journal.messages() if m.topic == engine.topics.state]
    assert seen == [s for s in states if s <= after] and len(seen) >= 20


def test_size_is_bounded_to_about_256_kb(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 80)
    answer = ask(engine, {"type": "messages", "after": 0, "limit": 500})
    size = len(json.dumps(answer["messages"]))
    assert answer["more"] is True and 200_000 < size <= 262_144, size


def test_unknown_epoch_and_bad_requests_say_why(tmp_path):
    engine = played_journal(tmp_path / "journal.sqlite", 2)
    answer = ask(engine, {"type": "messages", "after": 0, "epoch": "0" * 32})
    assert answer["reason"] == "unknown_epoch" and answer["messages"] == []
    bad = ask(engine, {"type": "messages", "after": 0, "topics": ["bets"]})
    assert bad["reason"] == "bad_request" and "topics" in bad["message"]
    bad = ask(engine, {"type": "messages", "after": -1})
    assert bad["reason"] == "bad_request" and "after" in bad["message"]
    bad = ask(engine, {"type": "messages", "after": 0, "limit": 501})
    assert bad["reason"] == "bad_request" and "limit" in bad["message"]
