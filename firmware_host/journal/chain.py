"""The journal's checksums: the record chain, message checksums and sent marks, keyed (HMAC) or plain SHA-256.

The key file is what docs/deploy.md §2 writes: 32 random bytes (`head -c 32 /dev/urandom`), or the
same as hex text (`openssl rand -hex 32`). Every reader of a journal (the service, `tablehw recall`,
`tablehw journal ...`, board replays) loads it with `load_key` and gets the same bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from pathlib import Path

from ..errors import ConfigError

MIN_KEY_BYTES = 16
_HEX = re.compile(rb"^(?:[0-9a-fA-F]{2})+$")


def load_key(path: str | Path | None) -> bytes | None:
    """The journal key from its file: hex text (whitespace around it ignored) or raw bytes; None without a file.
    Raises `ConfigError` naming the file when it cannot be read or is too short to be a key."""
    if not path:
        return None
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"storage.journal_key_file: cannot read {path}: {exc.strerror or exc}") from None
    text = raw.strip()
    key = bytes.fromhex(text.decode("ascii")) if _HEX.match(text) and len(text) >= 2 * MIN_KEY_BYTES else raw
    if len(key) < MIN_KEY_BYTES:
        raise ConfigError(f"storage.journal_key_file: {path} holds {len(key)} bytes; a key needs at least "
                          f"{MIN_KEY_BYTES} (write one with `head -c 32 /dev/urandom > {path}`)")
    return key


class Chain:
    """The record hash: SHA-256, or HMAC-SHA-256 with a secret key so a forger cannot rebuild it."""

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key

    @property
    def keyed(self) -> bool:
        return bool(self.key)

    def digest(self, data: bytes) -> bytes:
        if self.key:
            return hmac.digest(self.key, data, "sha256")
        return hashlib.sha256(data).digest()

    def genesis(self, epoch: str) -> bytes:
        """Where an epoch's chain starts: bound to the epoch, so records cannot be moved to another journal."""
        return self.digest(b"tablehw-journal-genesis\0" + epoch.encode())

    def key_check(self, epoch: str) -> str:
        """Stored in a keyed journal's meta: tells a wrong key from a tampered record."""
        return self.digest(b"tablehw-journal-key\0" + epoch.encode()).hex()

    def link(self, previous: bytes, seq: int, kind: str, round_: int | None, utc: str, body: bytes) -> bytes:
        head = struct.pack(">32sqq", previous, seq, -1 if round_ is None else round_)
        return self.digest(head + kind.encode() + b"\x00" + utc.encode() + b"\x00" + body)

    def message(self, seq: int, topic: str, qos: int, retain: bool, properties: bytes, payload: bytes) -> bytes:
        head = struct.pack(">qbb", seq, qos, int(retain))
        return self.digest(head + topic.encode() + b"\x00" + properties + b"\x00" + payload)

    def sent(self, checksum: bytes, sent_utc: str) -> bytes:
        """The mark that a message was acknowledged by the broker: bound to that message and time."""
        return self.digest(b"sent\0" + checksum + sent_utc.encode())

    def sealed(self, what: bytes) -> str:
        """A MAC over a summary (the journal's base, an archive's seal)."""
        return self.digest(b"seal\0" + what).hex()


def outbox_digest(checksums: list[bytes]) -> str:
    """What a transaction's `outbox` record holds: one hash over its messages' checksums, in seq order."""
    return hashlib.sha256(b"".join(checksums)).hexdigest()
