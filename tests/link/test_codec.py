"""The pure link codec tested on bytes: COBS, CRC-16, frames, stream resync, fuzzing."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.errors import FrameError, ProtocolError
from drivers.protocol import (
    MAX_PAYLOAD, CommandMsg, EventMsg, Frame, FrameDecoder, HeartbeatMsg, HelloMsg, IdentityMsg, Kind, ResultMsg,
    cobs_decode, cobs_encode, crc16, decode_frame, encode_frame,
)
from drivers.protocol.boards import SHOE, WHEEL, pack_event, unpack_event

# Wikipedia "Consistent Overhead Byte Stuffing", encoding examples 1-10 (delimiter not included).
COBS_VECTORS = [
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x00\x11\x00", b"\x01\x02\x11\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
    (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255))),
    (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    (bytes(range(2, 256)) + b"\x00", b"\xff" + bytes(range(2, 256)) + b"\x01\x01"),
]


@pytest.mark.parametrize("raw,encoded", COBS_VECTORS)
def test_cobs_matches_published_vectors(raw, encoded):
    assert cobs_encode(raw) == encoded
    assert cobs_decode(encoded) == raw


@given(st.binary(max_size=700))
def test_cobs_round_trip_and_no_zero(data):
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(encoded) == data


def test_crc16_ccitt_false_check_value():
    # The catalogue check value of CRC-16/CCITT-FALSE (a.k.a. CRC-16/IBM-3740) over "123456789".
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_frame_layout_byte_by_byte():
    # The example of docs/firmware-protocol.md §2: an ACK from the host acknowledging up to seq 4.
    wire = encode_frame(Frame(Kind.ACK, 0, 5, b""))
    body = bytes((0x03, 0x00, 0x05, 0x00))
    crc = crc16(body)
    assert wire == b"\x00" + cobs_encode(body + crc.to_bytes(2, "little")) + b"\x00"
    assert crc == 0xE0E9
    assert wire.hex(" ") == "00 02 03 02 05 03 e9 e0 00"


frames = st.builds(
    Frame,
    kind=st.integers(0, 255), seq=st.integers(0, 255), ack=st.integers(0, 255),
    payload=st.binary(max_size=MAX_PAYLOAD),
)


@given(frames)
def test_frame_round_trip(frame):
    wire = encode_frame(frame)
    assert wire[0] == 0 and wire[-1] == 0 and 0 not in wire[1:-1]
    assert decode_frame(wire) == frame
    assert FrameDecoder().feed(wire) == [frame]


def corpus() -> list[Frame]:
    """Frames of every shape the link carries: control, events, commands, payloads with and without zeros."""
    rng = random.Random(5)
    out = [
        Frame(Kind.ACK, 0, 0), Frame(Kind.ACK, 0, 255), Frame(Kind.HEARTBEAT, 0, 7, HeartbeatMsg(123456).encode()),
        Frame(Kind.HELLO, 0, 0, HelloMsg(1, 200, 1000).encode()),
        Frame(Kind.IDENTITY, 0, 0, IdentityMsg(1, 1, 0xDEADBEEF, "WSB-000123", "fw 2.4.1+g1a2b3c").encode()),
        Frame(Kind.EVENT, 17, 3, EventMsg(42, 99_000, 3, b"\x11").encode()),
        Frame(Kind.COMMAND, 0, 0, CommandMsg(1, 2, 1500, b"\x00\x01").encode()),
        Frame(Kind.RESULT, 255, 254, ResultMsg(65535, 0, b"").encode()),
        Frame(Kind.EVENT, 1, 1, bytes(MAX_PAYLOAD)),
        Frame(Kind.EVENT, 2, 2, bytes(range(1, MAX_PAYLOAD + 1))),
    ]
    out += [Frame(rng.randrange(256), rng.randrange(256), rng.randrange(256),
                  bytes(rng.choice((0, rng.randrange(256))) for _ in range(rng.randrange(0, 64))))
            for _ in range(30)]
    return out


def test_every_single_bit_corruption_is_caught():
    """Flip each bit of each frame's wire bytes: the decoder never returns a different frame."""
    checked = 0
    for frame in corpus():
        wire = encode_frame(frame)
        for index in range(len(wire)):
            for bit in range(8):
                bad = bytearray(wire)
                bad[index] ^= 1 << bit
                results = FrameDecoder().feed(bytes(bad) + b"\x00")
                wrong = [r for r in results if isinstance(r, Frame) and r != frame]
                assert not wrong, f"byte {index} bit {bit} of {wire.hex()} decoded as {wrong}"
                if index not in (0, len(wire) - 1):  # a flipped delimiter may still leave the frame intact
                    assert frame not in results, f"corruption at byte {index} bit {bit} went unnoticed"
                checked += 1
    assert checked > 10_000


def test_resync_after_garbage():
    a, b = Frame(Kind.EVENT, 0, 0, b"first"), Frame(Kind.EVENT, 1, 0, b"second")
    garbage = bytes(range(1, 200)) + b"\xff\x13\x37"
    decoder = FrameDecoder()
    results = decoder.feed(garbage + encode_frame(a) + b"\x42\x00\x99" + encode_frame(b))
    assert [r for r in results if isinstance(r, Frame)] == [a, b]
    assert all(isinstance(r, FrameError) for r in results if not isinstance(r, Frame))
    assert decoder.errors >= 1


def test_resync_after_overrun_without_delimiter():
    decoder = FrameDecoder()
    errors = decoder.feed(b"\x55" * 2000)
    assert len(errors) == 1 and isinstance(errors[0], FrameError)
    frame = Frame(Kind.ACK, 0, 9)
    assert decoder.feed(encode_frame(frame)) == [frame]


def test_frames_split_at_every_byte_boundary():
    frames_in = [Frame(Kind.EVENT, i, i, bytes([i, 0, i])) for i in range(5)]
    stream = b"".join(encode_frame(f) for f in frames_in)
    for cut in range(len(stream)):
        decoder = FrameDecoder()
        got = decoder.feed(stream[:cut]) + decoder.feed(stream[cut:])
        assert got == frames_in


@settings(max_examples=300)
@given(st.binary(max_size=600))
def test_fuzzed_bytes_raise_only_protocol_errors(data):
    try:
        decode_frame(data)
    except ProtocolError:
        pass
    results = FrameDecoder().feed(data)  # the stream decoder never raises at all
    assert all(isinstance(r, (Frame, FrameError)) for r in results)


@settings(max_examples=300)
@given(st.sampled_from([HelloMsg, IdentityMsg, HeartbeatMsg, EventMsg, CommandMsg, ResultMsg]), st.binary(max_size=80))
def test_fuzzed_payloads_raise_only_protocol_errors(message, data):
    try:
        message.decode(data)
    except ProtocolError:
        pass


@settings(max_examples=200)
@given(st.sampled_from([WHEEL, SHOE]), st.integers(0, 255), st.binary(max_size=8))
def test_fuzzed_board_events_raise_only_protocol_errors(vocabulary, code, data):
    try:
        name, fields = unpack_event(vocabulary, code, data)
    except ProtocolError:
        return
    assert pack_event(vocabulary, name, **fields) == (code, data)


def test_message_round_trips():
    messages = [
        HelloMsg(1, 200, 1000), IdentityMsg(1, 2, 7, "SHOE-9", "1.0.0"), HeartbeatMsg(2**32 - 1),
        EventMsg(2**32 - 1, 5, 1, b"\x00\x01"), CommandMsg(9, 2, 65535, b"\x01"), ResultMsg(9, 4, b"x"),
    ]
    for message in messages:
        assert type(message).decode(message.encode()) == message


def test_identity_rejects_bad_text_and_trailing_bytes():
    good = IdentityMsg(1, 1, 1, "A", "B").encode()
    with pytest.raises(ProtocolError, match="trailing"):
        IdentityMsg.decode(good + b"\x00")
    with pytest.raises(ProtocolError, match="printable"):
        IdentityMsg.decode(good[:6] + b"\x01\x07" + good[8:])
    with pytest.raises(ProtocolError, match="longer"):
        IdentityMsg(1, 1, 1, "x" * 40, "B").encode()


def test_oversized_payload_is_refused():
    with pytest.raises(FrameError, match="exceeds"):
        Frame(Kind.EVENT, 0, 0, bytes(MAX_PAYLOAD + 1))
