"""The SAS codec on bytes, with no I/O: CRC, frames from PUBLISHED.md, BCD, every poll and reply."""

from __future__ import annotations

from datetime import datetime

import pytest

from drivers.sas import polls
from drivers.sas.bcd import decode_bcd, encode_bcd
from drivers.sas.crc import crc16_kermit, strip_crc, with_crc
from drivers.sas.denominations import cents_per_credit
from drivers.sas.errors import SasCrcError, SasFrameError
from drivers.sas.meters import meter_size
from drivers.sas.replies import (Ack, Busy, ExceptionReply, ExtendedMetersReply, HandpayReply, MachineInfoReply,
                                 MeterReply, Nack, ProgressiveWinReply, SelectedGameReply, SelectedMetersReply,
                                 VersionReply, decode_reply, encode_reply, reply_fields, reply_length)
from drivers.sas.wire import ESC, EscapeCodec, ParmrkDecoder, WireByte


def test_crc16_kermit_check_value():
    # ../shared/oracles/PUBLISHED.md, SAS: check value of ASCII "123456789" is 0x2189
    assert crc16_kermit(b"123456789") == 0x2189


def test_ticket_status_frame_from_published():
    # PUBLISHED.md: `01 71 01 FF 1F D0` - long poll 0x71 with its CRC, least significant byte first
    frame = polls.long_poll(1, 0x71, b"\xff", length_byte=True).message()
    assert frame == bytes.fromhex("01 71 01 FF 1F D0")
    assert polls.parse_request(frame).data == b"\x01\xff"


def test_clock_broadcast_frame_from_published():
    # PUBLISHED.md: `00 7F 03 08 20 01 14 30 14 24 CA` sets the clock to 2001-03-08 14:30:14
    frame = polls.set_date_time(datetime(2001, 3, 8, 14, 30, 14)).message()
    assert frame == bytes.fromhex("00 7F 03 08 20 01 14 30 14 24 CA")
    assert polls.parse_request(frame).is_broadcast


def test_a_flipped_bit_fails_the_crc():
    frame = bytearray(with_crc(b"\x01\x71\x01\xff"))
    frame[3] ^= 0x01
    with pytest.raises(SasCrcError, match="CRC mismatch"):
        strip_crc(bytes(frame))


def test_bcd_round_trip_and_limits():
    assert encode_bcd(12345678, 4) == bytes.fromhex("12345678")
    assert decode_bcd(bytes.fromhex("00000099")) == 99
    assert decode_bcd(b"") == 0
    with pytest.raises(SasFrameError, match="does not fit"):
        encode_bcd(10 ** 8, 4)  # never truncated silently
    with pytest.raises(SasFrameError, match="not packed BCD"):
        decode_bcd(bytes.fromhex("1A"))


def test_general_and_read_polls_are_type_r_without_crc():
    assert polls.general_poll(5).message() == bytes([0x85])
    assert polls.read_poll(5, 0x1C).message() == bytes([0x05, 0x1C])
    with pytest.raises(SasFrameError):
        polls.read_poll(5, 0x01)  # shutdown is type S (with a CRC)
    with pytest.raises(SasFrameError):
        polls.general_poll(0)


def test_shutdown_and_startup_carry_a_crc():
    assert polls.shutdown(3).message() == with_crc(b"\x03\x01")
    assert polls.startup(3).message() == with_crc(b"\x03\x02")
    assert polls.request_length(polls.shutdown(3).message()[:2]) == 4


def test_meter_size_table_sizes():
    assert meter_size(0x00) == 4 and meter_size(0x05) == 4  # credits and counts
    assert meter_size(0x0D) == 5 and meter_size(0x10) == 5  # ticket amounts in cents
    assert meter_size(0x80) == 5 and meter_size(0x81) == 4
    with pytest.raises(SasFrameError, match="meter-size table"):
        meter_size(0x62)


def test_selected_meters_reply_uses_the_meter_size_table():
    poll = polls.selected_meters(1, 0, [0x00, 0x0D, 0x05])
    assert poll.message()[:7] == bytes([0x01, 0x2F, 0x05, 0x00, 0x00, 0x00, 0x0D])
    reply = SelectedMetersReply(1, 0, {0x00: 12345678, 0x0D: 1234567890, 0x05: 42})
    frame = encode_reply(reply)
    # address, command, length, game (2), then code+4, code+5, code+4 bytes, CRC
    assert len(frame) == 3 + 2 + 5 + 6 + 5 + 2 and frame[2] == len(frame) - 5
    assert reply_length(poll, frame[:3]) == len(frame)
    assert decode_reply(poll, frame) == reply


def test_extended_meters_alternate_6f_af_and_carry_sizes():
    first = polls.extended_meters(1, 0, [0x0000, 0x0001])
    second = polls.extended_meters(1, 0, [0x0000, 0x0001], alternate=True)
    assert (first.command, second.command) == (0x6F, 0xAF)
    assert polls.parse_meter_request(polls.parse_request(second.message())) == (0, [0, 1])
    reply = ExtendedMetersReply(1, 0xAF, 0, {0x0000: (9, 123456789012345678), 0x0001: (0, 0)})
    assert decode_reply(second, encode_reply(reply)) == reply


@pytest.mark.parametrize("command, reply", [
    (0x0F, MeterReply(1, 0x0F, dict(cancelled_credits=1, coin_in=2, coin_out=3, total_drop=4, jackpot=5,
                                    games_played=6))),
    *[(c, MeterReply(1, c, {n: 99999999})) for c, n in [(0x10, "cancelled_credits"), (0x11, "coin_in"),
                                                        (0x12, "coin_out"), (0x13, "total_drop"), (0x14, "jackpot"),
                                                        (0x15, "games_played"), (0x16, "games_won"),
                                                        (0x17, "games_lost"), (0x1A, "current_credits")]],
    (0x18, MeterReply(1, 0x18, dict(games_since_power_reset=12, games_since_slot_door_closure=3))),
    (0x19, MeterReply(1, 0x19, dict(coin_in=1, coin_out=2, total_drop=3, jackpot=4, games_played=5))),
    (0x1C, MeterReply(1, 0x1C, dict(coin_in=1, coin_out=2, total_drop=3, jackpot=4, games_played=5, games_won=6,
                                    slot_door_opened=7, power_resets=8))),
    (0x1B, HandpayReply(1, 1, 0x02, 123456, 0, 1)),
    (0x1F, MachineInfoReply(1, "AB", "001", 0x01, 10, 1, 0, "PT9200", 9200)),
    (0x54, VersionReply(1, "602", "SN-0042")),
    (0x55, SelectedGameReply(1, 7)),
    (0x85, ProgressiveWinReply(1, 1, 2, 5000012)),
])
def test_every_read_poll_reply_round_trips(command, reply):
    poll = polls.read_poll(1, command)
    frame = encode_reply(reply)
    assert reply_length(poll, frame[:3]) == len(frame)
    assert decode_reply(poll, frame) == reply


def test_machine_info_layout_is_24_bytes_and_gives_the_base_percentage():
    frame = encode_reply(MachineInfoReply(1, "AB", "001", 0x01, 10, 1, 0, "PT9200", 9200))
    assert len(frame) == 24  # address, 0x1F, 20 data bytes, CRC
    decoded = decode_reply(polls.read_poll(1, 0x1F), frame)
    assert decoded.base_return == pytest.approx(0.92) and cents_per_credit(decoded.denomination_code) == 1


def test_ack_nack_busy():
    poll = polls.shutdown(4)
    assert decode_reply(poll, b"\x04") == Ack(4)
    assert decode_reply(poll, b"\x84") == Nack(4)
    assert decode_reply(polls.read_poll(4, 0x1C), b"\x04\x00") == Busy(4)
    assert reply_length(polls.read_poll(4, 0x1C), b"\x04\x00") == 2
    assert reply_length(poll, b"\x04") is None  # ACK or BUSY: only the 5 ms gap tells


def test_progressive_broadcasts_0x80_and_0x86():
    single = polls.progressive_single(1, 1, 1234567)
    assert single.message()[:2] == b"\x00\x80" and len(single.message()) == 11
    assert polls.parse_progressive(polls.parse_request(single.message())) == (1, {1: 1234567})
    multi = polls.progressive_multi(1, {1: 500000, 2: 50000, 3: 5000})
    assert polls.parse_progressive(polls.parse_request(multi.message())) == (1, {1: 500000, 2: 50000, 3: 5000})


def test_reply_to_another_command_or_address_is_refused():
    frame = encode_reply(MeterReply(2, 0x11, {"coin_in": 5}))
    with pytest.raises(SasFrameError, match="does not answer"):
        decode_reply(polls.read_poll(1, 0x11), frame)
    truncated = encode_reply(MeterReply(1, 0x1C, dict.fromkeys(
        ("coin_in", "coin_out", "total_drop", "jackpot", "games_played", "games_won", "slot_door_opened",
         "power_resets"), 1)))[:-3]
    with pytest.raises(SasFrameError, match="expected 36"):
        decode_reply(polls.read_poll(1, 0x1C), truncated)


def test_exception_reply_fields():
    assert reply_fields(ExceptionReply(0x11)) == {"type": "exception", "code": 0x11, "name": "slot_door_opened",
                                                  "kind": "door"}


def test_escape_codec_marks_the_wakeup_byte_and_escapes_itself():
    codec = EscapeCodec()
    wire = codec.encode(bytes([0x7E | 0x80, ESC, 0x01]), wakeup=True)  # a general poll to 0x7E is 0xFE too
    assert wire == bytes([ESC, 0x01, 0xFE, ESC, 0x00, 0x01])
    decoded = codec.decode(wire[:2]) + codec.decode(wire[2:])  # split anywhere
    assert decoded == [WireByte(0xFE, True), WireByte(ESC), WireByte(0x01)]


def test_parmrk_decoder_reads_parity_marked_bytes_as_wakeup():
    decoder = ParmrkDecoder()
    # Linux with INPCK|PARMRK: FF 00 X = X with a parity error (the 9th bit set), FF FF = a data FF
    assert decoder.decode(b"\x01\xff\x00") + decoder.decode(b"\x81\xff\xff") == [
        WireByte(0x01), WireByte(0x81, True), WireByte(0xFF)]
