"""Sequence numbers, cumulative acks, a bounded window and retransmission — pure: no I/O, no clock.

Both ends of the firmware link run one `ReliableChannel` (the host in firmware_host.link.session,
the simulators in drivers.sim.board). Time is passed in as `now` (seconds, monotonic), so the
logic is tested on bytes and numbers alone. Rules (docs/firmware-protocol.md §5):

- every sequenced frame (kind >= 0x10) takes the next 8-bit sequence number;
- every frame of either kind carries `ack` = the next sequence number expected from the peer;
- a receiver delivers only the frame it expects, acks duplicates again without delivering them,
  and drops frames from beyond a gap (the sender will retransmit them in order);
- a sender keeps at most `window` frames unacknowledged and resends all of them (go-back-N) when
  the oldest has waited one retransmission timeout.

The caller must hand delivered frames to their consumer *before* writing the returned ack bytes:
an acknowledged frame is then never lost.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..errors import ProtocolError
from .frame import Frame, encode_frame
from .messages import Kind

SEQ_MODULO = 256
SEQUENCED_MIN = 0x10  # kinds from here up take a sequence number, known or not


@dataclass(slots=True)
class _Unacked:
    seq: int
    kind: int
    payload: bytes
    sent_at: float
    attempts: int = 1


@dataclass(slots=True)
class ChannelStats:
    """Counters a health monitor reads."""

    sent: int = 0
    delivered: int = 0
    retransmitted: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    rtt_samples: int = 0
    srtt: float | None = None


class ReliableChannel:
    """One end of the reliable part of the link."""

    def __init__(self, *, window: int = 8, min_rto: float = 0.05, max_rto: float = 0.5) -> None:
        if not 1 <= window < SEQ_MODULO // 2:
            raise ProtocolError(f"window {window} must be between 1 and {SEQ_MODULO // 2 - 1}")
        self.window = window
        self.min_rto = min_rto
        self.max_rto = max_rto
        self.stats = ChannelStats()
        self.reset()

    def reset(self) -> None:
        """Start a new link session: both sequence spaces restart at 0; nothing in flight."""
        self.next_seq = 0
        self.expected = 0
        self.unacked: deque[_Unacked] = deque()
        self.queued: deque[tuple[int, bytes]] = deque()

    @property
    def rto(self) -> float:
        """Retransmission timeout: twice the smoothed round trip, within [min_rto, max_rto]."""
        if self.stats.srtt is None:
            return self.min_rto
        return min(self.max_rto, max(self.min_rto, 2 * self.stats.srtt))

    @property
    def in_flight(self) -> int:
        return len(self.unacked) + len(self.queued)

    @property
    def oldest_attempts(self) -> int:
        """How many times the oldest unacknowledged frame has been sent (0 when none)."""
        return self.unacked[0].attempts if self.unacked else 0

    def control(self, kind: int, payload: bytes = b"") -> bytes:
        """Encode an unsequenced (link control) frame carrying the current ack."""
        if kind >= SEQUENCED_MIN:
            raise ProtocolError(f"kind {kind:#04x} is sequenced: use send()")
        return encode_frame(Frame(kind, 0, self.expected, payload))

    def send(self, kind: int, payload: bytes, now: float) -> list[bytes]:
        """Queue a sequenced frame; return the encoded frames that may be written now."""
        if kind < SEQUENCED_MIN:
            raise ProtocolError(f"kind {kind:#04x} is link control: use control()")
        Frame(kind, 0, 0, payload)  # validates the payload size before anything is queued
        self.queued.append((kind, payload))
        return self._drain(now)

    def _drain(self, now: float) -> list[bytes]:
        out = []
        while self.queued and len(self.unacked) < self.window:
            kind, payload = self.queued.popleft()
            item = _Unacked(self.next_seq, kind, payload, now)
            self.next_seq = (self.next_seq + 1) % SEQ_MODULO
            self.unacked.append(item)
            self.stats.sent += 1
            out.append(encode_frame(Frame(kind, item.seq, self.expected, payload)))
        return out

    def receive(self, frame: Frame, now: float) -> tuple[list[Frame], list[bytes]]:
        """Take one decoded frame: return (frames to deliver, in order; bytes to write afterwards)."""
        self._take_ack(frame.ack, now)
        delivered: list[Frame] = []
        out: list[bytes] = []
        if frame.kind >= SEQUENCED_MIN:
            distance = (frame.seq - self.expected) % SEQ_MODULO
            if distance == 0:
                self.expected = (self.expected + 1) % SEQ_MODULO
                self.stats.delivered += 1
                delivered.append(frame)
            elif distance >= SEQ_MODULO // 2:
                self.stats.duplicates += 1
            else:
                self.stats.out_of_order += 1
            out.append(self.control(Kind.ACK))
        out.extend(self._drain(now))
        return delivered, out

    def _take_ack(self, ack: int, now: float) -> None:
        if not self.unacked:
            return
        count = (ack - self.unacked[0].seq) % SEQ_MODULO
        if count == 0 or count > len(self.unacked):
            return  # acks nothing new, or a stale ack from before a retransmission
        for _ in range(count):
            item = self.unacked.popleft()
            if item.attempts == 1:  # Karn: only unambiguous samples
                self._sample_rtt(now - item.sent_at)

    def _sample_rtt(self, rtt: float) -> None:
        stats = self.stats
        stats.rtt_samples += 1
        stats.srtt = rtt if stats.srtt is None else 0.875 * stats.srtt + 0.125 * rtt

    def next_timeout(self) -> float | None:
        """When poll() next has work (monotonic seconds), or None when nothing is in flight."""
        return self.unacked[0].sent_at + self.rto if self.unacked else None

    def poll(self, now: float) -> list[bytes]:
        """Resend every unacknowledged frame if the oldest has waited one timeout (go-back-N)."""
        deadline = self.next_timeout()
        if deadline is None or now < deadline:
            return []
        out = []
        for item in self.unacked:
            item.sent_at = now
            item.attempts += 1
            self.stats.retransmitted += 1
            out.append(encode_frame(Frame(item.kind, item.seq, self.expected, item.payload)))
        return out

    def take_unsent(self) -> list[tuple[int, bytes]]:
        """Remove and return every frame not yet acknowledged (sent or queued), oldest first."""
        items = [(u.kind, u.payload) for u in self.unacked] + list(self.queued)
        self.unacked.clear()
        self.queued.clear()
        return items

