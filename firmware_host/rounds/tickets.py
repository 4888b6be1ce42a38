"""The table's ticket registry: every bet ticket answered and every withdrawal accepted, for the journal's life.

A ticket names one bet request for the life of the journal (all rounds, all restarts). Its first
answer is its answer: the same request sent again (a lost response, a terminal's retry after a
restart, the broker's redelivery) gets that answer again, marked `repeated`, and is never placed,
journalled or settled a second time; a different request under a used ticket is `duplicate_ticket`.
An accepted withdrawal is final the same way; a refused one is not recorded (the bet may become
removable later). "The same request" is the same broker user and the same decoded content.

The registry is rebuilt at start from the journal's `bet_accepted`, `bet_refused` and
`bet_withdrawn` records, which carry the requester and a digest of the request. It keeps per
ticket an 8-byte digest, the round and the refusal reason: ~230 bytes per ticket in memory with a
UUID ticket (measured), so a journal of a million bets holds ~230 MB of registry (the unit's
MemoryMax is 400M): a table booking that many needs its journal archived (docs/deploy.md §4) first,
or this registry moved into an indexed table of the journal.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

KINDS = ("bet_accepted", "bet_refused", "bet_withdrawn")


class Answer(NamedTuple):
    """What a bet or withdrawal request was answered."""

    accepted: bool
    reason: str | None
    message: str
    round: int
    repeated: bool = False


def request_digest(user: str, canonical: bytes) -> bytes:
    """The identity of one request: who sent it and what it said (its re-encoded content)."""
    return hashlib.blake2b(user.encode() + b"\x00" + canonical, digest_size=8).digest()


class TicketRegistry:
    """Ticket -> (request digest, round, refusal reason or None); and accepted withdrawals."""

    def __init__(self) -> None:
        self._bets: dict[str, tuple[bytes, int, str | None]] = {}
        self._withdrawals: dict[str, tuple[bytes, int]] = {}

    def __len__(self) -> int:
        return len(self._bets)

    def rebuild(self, records) -> None:
        """From the journal's records of `KINDS`, in order."""
        self._bets.clear()
        self._withdrawals.clear()
        for record in records:
            data: dict[str, Any] = record.data()
            digest = bytes.fromhex(data.get("request", ""))  # records before the registry: never a repeat
            if record.kind == "bet_withdrawn":
                self._withdrawals[data["ticket"]] = (digest, record.round or 0)
            else:
                self._bets[data["ticket"]] = (digest, record.round or 0, data.get("reason"))

    def bet_answer(self, ticket: str, digest: bytes) -> Answer | None:
        """The answer already given to this ticket (repeated, or duplicate_ticket for another request);
        None when the ticket is new."""
        known = self._bets.get(ticket)
        if known is None:
            return None
        first, round_no, reason = known
        if first != digest:
            return Answer(False, "duplicate_ticket", f"ticket {ticket} was already used for another request",
                          round_no)
        if reason is None:
            return Answer(True, None, f"already accepted in round {round_no} (repeated request)", round_no, True)
        return Answer(False, reason, f"already refused ({reason}) in round {round_no} (repeated request)",
                      round_no, True)

    def withdrawal_answer(self, ticket: str, digest: bytes) -> Answer | None:
        known = self._withdrawals.get(ticket)
        if known is None:
            return None
        first, round_no = known
        if first != digest:
            return Answer(False, "not_allowed_now", f"ticket {ticket} was already withdrawn", round_no)
        return Answer(True, None, f"already withdrawn in round {round_no} (repeated request)", round_no, True)

    def answered_bet(self, ticket: str, digest: bytes, round_no: int, reason: str | None) -> None:
        self._bets[ticket] = (digest, round_no, reason)

    def withdrawn(self, ticket: str, digest: bytes, round_no: int) -> None:
        self._withdrawals[ticket] = (digest, round_no)
