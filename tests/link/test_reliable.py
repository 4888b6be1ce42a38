"""The pure reliable channel: in-order delivery, duplicates, loss, window, retransmission, wraparound."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.protocol import Frame, FrameDecoder, Kind, ReliableChannel


def frames_of(chunks: list[bytes]) -> list[Frame]:
    decoder = FrameDecoder()
    return [f for chunk in chunks for f in decoder.feed(chunk)]


def exchange(sender: ReliableChannel, receiver: ReliableChannel, wire: list[bytes], now: float) -> list[Frame]:
    """Deliver `wire` to receiver, feed its replies back to sender; return delivered frames."""
    delivered = []
    replies = []
    for frame in frames_of(wire):
        got, out = receiver.receive(frame, now)
        delivered += got
        replies += out
    for frame in frames_of(replies):
        sender.receive(frame, now)
    return delivered


def test_in_order_delivery_and_acks_release_the_window():
    a, b = ReliableChannel(window=4), ReliableChannel(window=4)
    wire = [w for i in range(3) for w in a.send(Kind.EVENT, bytes([i]), 0.0)]
    assert [f.payload for f in exchange(a, b, wire, 0.01)] == [b"\x00", b"\x01", b"\x02"]
    assert a.in_flight == 0 and a.stats.rtt_samples == 3


def test_window_bounds_frames_in_flight():
    a = ReliableChannel(window=2)
    sent = [w for i in range(5) for w in a.send(Kind.EVENT, bytes([i]), 0.0)]
    assert len(sent) == 2 and a.in_flight == 5


def test_duplicates_are_acked_but_not_delivered():
    a, b = ReliableChannel(), ReliableChannel()
    wire = a.send(Kind.EVENT, b"x", 0.0)
    assert len(exchange(a, b, wire, 0.0)) == 1
    got, out = b.receive(frames_of(wire)[0], 0.1)
    assert got == [] and b.stats.duplicates == 1
    assert frames_of(out)[0].kind == Kind.ACK


def test_lost_frame_is_retransmitted_after_timeout():
    a, b = ReliableChannel(min_rto=0.05), ReliableChannel()
    a.send(Kind.EVENT, b"lost", 0.0)  # never reaches b
    assert a.poll(0.01) == []
    again = a.poll(0.06)
    assert [f.payload for f in exchange(a, b, again, 0.07)] == [b"lost"]
    assert a.stats.retransmitted == 1 and a.in_flight == 0


def test_gap_frames_are_dropped_until_resent_in_order():
    a, b = ReliableChannel(), ReliableChannel()
    first = a.send(Kind.EVENT, b"1", 0.0)
    second = a.send(Kind.EVENT, b"2", 0.0)
    assert exchange(a, b, second, 0.0) == [] and b.stats.out_of_order == 1
    resent = a.poll(1.0)
    assert [f.payload for f in exchange(a, b, resent, 1.0)] == [b"1", b"2"]
    assert first  # the original first copy was lost on the wire


def test_stale_ack_is_ignored():
    a = ReliableChannel()
    a.send(Kind.EVENT, b"1", 0.0)
    a.receive(Frame(Kind.ACK, 0, 200), 0.0)  # acks nothing we sent
    assert a.in_flight == 1


def test_sequence_numbers_wrap_around():
    a, b = ReliableChannel(window=8), ReliableChannel(window=8)
    got = []
    for i in range(600):
        got += exchange(a, b, a.send(Kind.EVENT, i.to_bytes(2, "little"), i * 0.001), i * 0.001)
    assert [int.from_bytes(f.payload, "little") for f in got] == list(range(600))


def test_reset_restarts_sequences_and_take_unsent_keeps_order():
    a = ReliableChannel(window=1)
    for i in range(3):
        a.send(Kind.EVENT, bytes([i]), 0.0)
    assert a.take_unsent() == [(Kind.EVENT, b"\x00"), (Kind.EVENT, b"\x01"), (Kind.EVENT, b"\x02")]
    a.reset()
    assert a.next_seq == 0 and a.expected == 0 and a.in_flight == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 0.4), st.floats(0.0, 0.3))
def test_lossy_duplicating_wire_delivers_everything_exactly_once_in_order(seed, loss, dup):
    """Random loss and duplication in both directions: every frame arrives once, in order."""
    rng = random.Random(seed)
    a, b = ReliableChannel(window=4, min_rto=0.01), ReliableChannel(window=4)

    def wire(chunks):
        out = []
        for chunk in chunks:
            if rng.random() < loss:
                continue
            out.append(chunk)
            if rng.random() < dup:
                out.append(chunk)
        return out

    delivered, now, total = [], 0.0, 40
    pending = [w for i in range(total) for w in a.send(Kind.EVENT, bytes([i]), now)]
    for _ in range(5000):
        replies = []
        for frame in frames_of(wire(pending)):
            got, out = b.receive(frame, now)
            delivered += got
            replies += out
        pending = []
        for frame in frames_of(wire(replies)):
            _, out = a.receive(frame, now)
            pending += out
        now += 0.005
        pending += a.poll(now)
        if a.in_flight == 0:
            break
    assert [f.payload[0] for f in delivered] == list(range(total))
