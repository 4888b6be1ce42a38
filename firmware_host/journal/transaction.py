"""A journal transaction: records and outbox messages, stamped and chained, committed together by `Journal`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from .chain import outbox_digest
from .rows import OUTBOX_RECORD, MessageProperties

if TYPE_CHECKING:
    from .store import Journal


class Transaction:
    """One atomic write: records and outbox messages, committed (and fsynced) together."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._conn = journal._conn
        self._head_seq, self._head_hash = journal._head_seq, journal._head_hash
        self._next_message = journal._next_message
        self._topic_heads: dict[str, int] = {}
        self._checksums: list[bytes] = []
        self.records_written = 0
        self.messages_written = 0
        self.utc = journal.clock.utc()

    def record(self, kind: str, body: Any, round: int | None = None) -> int:
        """Append a chained critical record; `body` is bytes or anything msgspec encodes as JSON."""
        data = body if isinstance(body, bytes) else msgspec.json.encode(body)
        seq = self._head_seq + 1
        digest = self._journal.chain.link(self._head_hash, seq, kind, round, self.utc, data)
        self._conn.execute("INSERT INTO records (seq, kind, round, utc, body, hash) VALUES (?, ?, ?, ?, ?, ?)",
                           (seq, kind, round, self.utc, data, digest))
        self._head_seq, self._head_hash = seq, digest
        self.records_written += 1
        return seq

    def point(self) -> tuple[int, str]:
        """The record chain here: (records so far, hex hash of the newest) — what `state` publishes."""
        return self._head_seq, self._head_hash.hex()

    def next_message_seq(self) -> int:
        """The `seq` the next `publish` in this transaction will get."""
        return self._next_message

    def prev_seq(self, topic: str) -> int:
        """The `seq` of the newest message on `topic` in this epoch (0 when none)."""
        return self._topic_heads.get(topic) or self._journal._topic_heads.get(topic, 0)

    def stamp(self, topic: str, payload: msgspec.Struct) -> msgspec.Struct:
        """`payload` with the `seq`, `epoch` and `prev_seq` the next `publish` on `topic` gives it (for a
        payload that is also journalled as a record: stamp, encode, record, then publish those bytes)."""
        fields: dict[str, Any] = {"seq": self._next_message}
        if hasattr(payload, "epoch"):
            fields["epoch"] = self._journal.epoch
        if hasattr(payload, "prev_seq"):
            fields["prev_seq"] = self.prev_seq(topic)
        return msgspec.structs.replace(payload, **fields)

    def publish(self, topic: str, payload: Any, *, retain: bool = False, qos: int = 1,
                properties: MessageProperties | None = None) -> int:
        """Queue an outgoing message in the outbox; returns its sequence number. A Struct payload with a
        `seq` field is stamped (`stamp`); bytes are stored as given."""
        seq = self._next_message
        if not isinstance(payload, bytes):
            payload = msgspec.json.encode(self.stamp(topic, payload) if hasattr(payload, "seq") else payload)
        props = msgspec.json.encode(properties or MessageProperties())
        checksum = self._journal.chain.message(seq, topic, qos, retain, props, payload)
        self._conn.execute(
            "INSERT INTO outbox (seq, topic, payload, qos, retain, properties, created_utc, checksum) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (seq, topic, payload, qos, int(retain), props, self.utc, checksum))
        self._checksums.append(checksum)
        self._topic_heads[topic] = seq
        self._next_message = seq + 1
        self.messages_written += 1
        return seq

    def seal_outbox(self) -> None:
        """Chain this transaction's messages: one `outbox` record over their checksums."""
        if self.messages_written:
            first = self._next_message - self.messages_written
            self.record(OUTBOX_RECORD, {"first": first, "last": self._next_message - 1,
                                        "digest": outbox_digest(self._checksums)})
