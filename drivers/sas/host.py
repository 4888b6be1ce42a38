"""One SAS transaction at a time on one link: send, read within the timing limits, retry, keep implied ACKs right.

Timing (SAS 2.3): a reply must start within 20 ms of the end of the poll, and no gap inside it may
exceed 5 ms; a reply cut by a longer gap is invalid. A poll that gets no valid reply (silence, a bad
CRC, a garbled or truncated frame, a NACK) is repeated, and the repeat is the implied NACK: the
machine re-sends the same data. After the last of `retries` repeats the host gives up (`SasNoReply`).

Implied ACK (SAS 3.1): the machine drops what it sent once the host polls it with anything else, polls
another machine, or broadcasts. So the host must never send the *same* poll twice in a row after a good
reply, or the machine would take it as a NACK and send the old data again (an exception counted twice).
When that would happen the host first sends a general poll to `ack_address`, an address with no machine
on this port: one byte, no reply, and the pending reply is acknowledged. This holds for every good reply,
"no activity" included: a machine may take a general poll repeated to it as the NACK of its last answer
(Aristocrat's `HostAcknowledgementProvider` compares the command bytes only).

Synchronisation: a machine that has just powered up, or heard nothing for 5 s, ignores polls to its own
address until it has seen a poll to another address or a global broadcast (Aristocrat's machine-side SAS
code, state `PendingAnotherAddress`; saspy sends a general poll to another address before each message).
On a port with one machine the cycle never addresses anyone else, so the host sends that same one-byte
general poll to `ack_address` (a *sync poll*) before a machine's poll whenever the machine has not heard
traffic for another address for `sync_interval` seconds, before the first poll to it, and after a poll
to it went unanswered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import SasFrameError, SasNoReply, SasTimeout
from .link import SasLink
from .polls import GENERAL_POLL_BIT, Poll, check_address
from .replies import Busy, Nack, Reply, decode_reply, reply_length

RESPONSE_TIMEOUT = 0.020
INTER_BYTE_TIMEOUT = 0.005
SYNC_INTERVAL = 1.0  # s; well inside the 5 s after which a machine without host traffic falls out of sync


@dataclass
class HostStats:
    polls: int = 0
    replies: int = 0
    timeouts: int = 0
    bad_frames: int = 0
    nacks: int = 0
    busy: int = 0
    retries: int = 0
    gave_up: int = 0
    ack_polls: int = 0
    sync_polls: int = 0
    chirps: dict[int, int] = field(default_factory=dict)


class SasHost:
    """Transactions on one SAS link (one thread only: the port's poller)."""

    def __init__(self, link: SasLink, *, response_timeout: float = RESPONSE_TIMEOUT,
                 inter_byte_timeout: float = INTER_BYTE_TIMEOUT, retries: int = 2, ack_address: int = 127,
                 sync_interval: float = SYNC_INTERVAL, on_chirp: Callable[[int], None] | None = None) -> None:
        self.link = link
        self.response_timeout = response_timeout
        self.inter_byte_timeout = inter_byte_timeout
        self.retries = retries
        self.ack_address = check_address(ack_address)
        self.sync_interval = sync_interval
        self.on_chirp = on_chirp
        self.stats = HostStats()
        self._unacknowledged: Poll | None = None  # the last poll whose good reply the machine still holds
        # address -> monotonic time until which that machine counts as synchronised (it heard another address);
        # a machine not polled yet heard every message so far
        self._synced_until: dict[int, float] = {}
        self._unpolled_synced_until = 0.0

    def transact(self, poll: Poll) -> Reply | None:
        """Send `poll` and return the machine's reply (None for a broadcast, which nobody answers).

        BUSY is returned, not retried: the caller schedules the long poll again later (SAS 4.1).
        """
        self._acknowledge_before(poll)
        self._synchronise_before(poll)
        last_error: Exception | None = None
        for attempt in range(1 + self.retries):
            if attempt:
                self.stats.retries += 1
            self._drop_stale_input()
            self.link.send(poll.message())
            self.stats.polls += 1
            if poll.is_broadcast:
                self._unacknowledged = None
                self._heard_elsewhere(None)
                return None
            self._heard_elsewhere(poll.address)
            try:
                reply = decode_reply(poll, self._read_reply(poll))
            except SasTimeout as exc:
                self.stats.timeouts += 1
                last_error = exc
                continue
            except SasFrameError as exc:
                self.stats.bad_frames += 1
                last_error = exc
                continue
            if isinstance(reply, Nack):
                self.stats.nacks += 1
                last_error = SasFrameError(f"{poll.describe()} was NACKed")
                continue
            self.stats.replies += 1
            if isinstance(reply, Busy):
                self.stats.busy += 1
            self._unacknowledged = poll
            return reply
        self.stats.gave_up += 1
        self._unacknowledged = None
        self._synced_until[poll.address] = 0.0  # it may have lost sync (power cycle, 5 s alone): sync first
        raise SasNoReply(f"{poll.describe()}: no valid reply after {1 + self.retries} attempts ({last_error})")

    def acknowledge(self) -> None:
        """Acknowledge the last reply now: a general poll to the unused `ack_address`, no reply awaited."""
        self._send_to_nobody()
        self.stats.ack_polls += 1

    def _send_to_nobody(self) -> None:
        # One byte, a general poll to an address with no machine on this port: an implied ACK for
        # whatever a machine still holds, and the "poll to another address" that synchronises them all.
        self.link.send(bytes([GENERAL_POLL_BIT | self.ack_address]))
        self._unacknowledged = None
        self._heard_elsewhere(None)

    def _acknowledge_before(self, poll: Poll) -> None:
        last = self._unacknowledged
        if last is not None and last.address == poll.address and last.command == poll.command:
            self.acknowledge()

    def _synchronise_before(self, poll: Poll) -> None:
        if poll.is_broadcast:
            return
        if self.link.clock() >= self._synced_until.setdefault(poll.address, self._unpolled_synced_until):
            self._send_to_nobody()
            self.stats.sync_polls += 1

    def _heard_elsewhere(self, address: int | None) -> None:
        """A message went to `address` (None: to no machine or all): every other machine heard another address."""
        until = self.link.clock() + self.sync_interval
        self._unpolled_synced_until = until
        synced = self._synced_until
        for other in synced:
            if other != address:
                synced[other] = until

    def _chirp(self, address: int) -> None:
        self.stats.chirps[address] = self.stats.chirps.get(address, 0) + 1
        if self.on_chirp:
            self.on_chirp(address)

    def _drop_stale_input(self) -> None:
        for byte in self.link.discard_input():
            if byte.wakeup:
                self._chirp(byte.value)

    def _read_reply(self, poll: Poll) -> bytes:
        clock = self.link.clock
        deadline = clock() + self.response_timeout
        received = bytearray()
        while True:
            byte = self.link.next_byte(deadline)
            if byte is None:
                if not received:
                    raise SasTimeout(f"{poll.describe()}: no reply within {self.response_timeout * 1000:.0f} ms")
                return bytes(received)  # ended by the inter-byte gap
            if byte.wakeup:  # a machine that lost the link chirps its address with the wakeup bit
                self._chirp(byte.value)
                continue
            received.append(byte.value)
            expected = reply_length(poll, bytes(received))
            if expected is not None and len(received) >= expected:
                return bytes(received)
            deadline = clock() + self.inter_byte_timeout

    def listen(self, duration: float) -> None:
        """Read the line for `duration` seconds without polling (chirps are counted and reported)."""
        clock = self.link.clock
        deadline = clock() + duration
        while (byte := self.link.next_byte(deadline)) is not None:
            if byte.wakeup:
                self._chirp(byte.value)
