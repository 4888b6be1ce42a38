"""A table's journal filled by the real round engine (in-process), and the tamper tools: SQL on the file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec

from firmware_host.journal import Journal
from firmware_host.journal.anchor import Anchor, behind, from_state
from firmware_host.journal.archive import archived_hash
from firmware_host.rounds.inputs import DiceSeen, ThrowStarted

from ..service.engine_harness import bet, feed, make_engine


def play(engine, rounds: int) -> None:
    """Craps rounds by hand: one pass-line bet, no more bets, throw, a reading (3-4: a point, then 7)."""
    for _ in range(rounds):
        ticket = f"t{engine.round}-{engine.attempt}-{len(engine.journal.messages())}"
        feed(engine, bet(engine, ticket, "pass", 5000))
        engine.close_betting(who="dealer")
        engine.family.handle(ThrowStarted(engine.round, engine.attempt))
        engine.family.handle(DiceSeen(engine.round, engine.attempt, (3, 4), None, None))


def played_journal(path: Path, rounds: int = 12, key: bytes | None = None):
    """A journal with `rounds` craps rounds played through the engine; returns the engine (journal open)."""
    engine = make_engine(path, key=key)
    play(engine, rounds)
    return engine


def retained_state(journal: Journal) -> bytes:
    """The newest `state` payload in the outbox: what the broker holds retained."""
    (payload,) = [m.payload for m in journal.messages() if m.topic.endswith("/state")][-1:]
    return payload


def anchor_reason(journal: Journal, state: bytes) -> str | None:
    anchor: Anchor = from_state(state)
    return behind(journal, anchor, lambda n: archived_hash(journal.path.parent, journal, n))


def sql(path: Path, *statements: tuple) -> None:
    """Edit the journal file as someone with file access would (the sqlite3 tool)."""
    conn = sqlite3.connect(path)
    for statement, *args in statements:
        conn.execute(statement, args)
    conn.commit()
    conn.close()


def rows(path: Path, query: str, *args) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(query, args).fetchall()
    finally:
        conn.close()


def decode(payload: bytes) -> dict:
    return json.loads(payload)


def encode(value) -> bytes:
    return msgspec.json.encode(value)


def rebuild_chain(path: Path, chain) -> None:
    """What a forger without the key does after an edit: recompute every checksum, seal, sent mark and link
    with `chain` (plain SHA-256 when he has no key), and the head in meta."""
    from firmware_host.journal.chain import outbox_digest

    conn = sqlite3.connect(path)
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    checksums = {}
    for seq, topic, qos, retain, props, payload, sent in conn.execute(
            "SELECT seq, topic, qos, retain, properties, payload, sent_utc FROM outbox ORDER BY seq").fetchall():
        checksums[seq] = chain.message(seq, topic, qos, bool(retain), props, payload)
        conn.execute("UPDATE outbox SET checksum = ?, sent_mac = ? WHERE seq = ?",
                     (checksums[seq], chain.sent(checksums[seq], sent) if sent else None, seq))
    previous = chain.genesis(meta["epoch"])
    for seq, kind, round_, utc, body in conn.execute(
            "SELECT seq, kind, round, utc, body FROM records ORDER BY seq").fetchall():
        if kind == "outbox":
            seal = json.loads(body)
            seal["digest"] = outbox_digest([checksums[s] for s in range(seal["first"], seal["last"] + 1)])
            body = json.dumps(seal, separators=(",", ":")).encode()
        previous = chain.link(previous, seq, kind, round_, utc, body)
        conn.execute("UPDATE records SET body = ?, hash = ? WHERE seq = ?", (body, previous, seq))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'chain_head'", (previous.hex(),))
    conn.commit()
    conn.close()


def cut_newest_rounds(path: Path, rounds: int) -> int:
    """Delete the newest `rounds` rounds consistently (records, messages, head), as the issue's tamperer did;
    returns the round the journal now ends with."""
    closed = rows(path, "SELECT seq, round FROM records WHERE kind = 'round_closed' ORDER BY seq DESC")
    keep_seq, keep_round = closed[rounds]
    seal_seq, body, digest = rows(path, "SELECT seq, body, hash FROM records WHERE kind = 'outbox' AND seq > ? "
                                        "ORDER BY seq LIMIT 1", keep_seq)[0]
    sql(path, ("DELETE FROM records WHERE seq > ?", seal_seq),
        ("DELETE FROM outbox WHERE seq > ?", json.loads(body)["last"]),
        ("UPDATE meta SET value = ? WHERE key = 'chain_length'", str(seal_seq)),
        ("UPDATE meta SET value = ? WHERE key = 'chain_head'", digest.hex()))
    return keep_round
