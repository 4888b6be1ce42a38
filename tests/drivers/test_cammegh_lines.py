"""Every line type of the Cammegh-style read protocol, and the reader with the status repeat off.

Sources: the SlingShot 2 read-protocol codec (scodec `device.cammegh.slingshot.Input`: `Status` `*X;...`,
`BonusWin` `*Y;<type 1-6>;<3 chars>`, `Win` = the bare 2-character number), studio-sdp-mirror's wheel logs
(`sim/log/ss2/ss2_protocol.log`: bare numbers before state 5, space-padded numbers, `*P 1` / `*P OK`;
`tests/self-test.log`: blank numbers, `*o 1158`, `*o BUSY`, `*O 6 1 60 1158`, `*u OK`, `*T s ...`, a cut
fragment `00;0`) and the handbook's mode table they quote (16: no single winning number, 128: status every
0.5 s, 256: `*F` error messages during play).
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from drivers.cammegh import CammeghDecoder, decode_lines
from drivers.cammegh_lines import (BonusLine, WheelMessage, WinningNumberLine, describe_mode, parse_line,
                                   split_lines)
from drivers.cammegh_reader import CammeghReader
from drivers.errors import ProtocolError
from drivers.events import (DeviceHealth, Health, WheelBonus, WheelError, WheelFault, WheelPhaseChanged, WheelResult,
                            WheelWarning)
from drivers.sim.cammegh import FACTORY_MODE, CammeghSim
from drivers.transport import Backoff
from tests.link.harness import EventSink

UTC = datetime(2025, 1, 1, tzinfo=timezone.utc)

# Lines as ss2_protocol.log shows them (repeats shortened): power on, spin 11 ending on 27 with the bare
# number first, spin 12 ending on 16, spin 13 ending on a space-padded 6.
WHEEL_LOG = """*P 1
*P OK
*X;1;011;34;0;157;0
*X;1;011;34;0;159;0
*X;2;011;34;0;154;0
*X;2;011;34;0;078;1
*X;3;011;34;0;141;1
*X;3;011;34;0;142;1
*X;4;011;34;0;139;1
*X;4;011;34;0;137;1
27
*X;5;011;27;0;136;1
*X;5;011;27;0;136;1
*X;2;012;27;0;137;1
*X;3;012;27;0;161;0
*X;4;012;27;0;152;0
16
*X;5;012;16;0;154;0
*X;2;013;16;0;152;0
*X;3;013;16;0;170;1
*X;4;013;16;0;180;1
 6
*X;5;013; 6;0;177;1
*X;5;013; 6;0;177;1
*X;2;014; 6;0;181;1
"""


def feed(decoder, lines):
    events = []
    for i, line in enumerate(lines):
        events += decoder.feed(line, float(i), UTC)
    return events


def test_a_real_wheel_log_gives_each_result_once():
    decoder = CammeghDecoder()
    events = feed(decoder, WHEEL_LOG.splitlines())
    results = [e for e in events if isinstance(e, WheelResult)]
    assert [(r.spin, r.number, r.valid) for r in results] == [(11, 27, True), (12, 16, True), (13, 6, True)]
    assert decoder.bad_lines == 0


def test_space_padded_and_blank_numbers():
    decoder = CammeghDecoder()
    (phase,) = decoder.feed("*X;2;001;  ;0;174;0", 0.0, UTC)  # self-test.log: no number yet
    assert isinstance(phase, WheelPhaseChanged) and phase.spin == 1
    (result,) = decoder.feed("*X;5;001; 6;0;177;1", 1.0, UTC)
    assert result.number == 6
    with pytest.raises(ProtocolError, match="without a number"):
        parse_line("*X;5;002;  ;0;177;1")  # a winning-number state must show the number (or flag 1)
    assert parse_line("*X;5;002;  ;1;177;1").number is None  # ball not detected: no number, flag 1


@pytest.mark.parametrize("text,number", [("27", 27), (" 6", 6), (" 0", 0), ("36", 36)])
def test_the_bare_winning_number(text, number):
    assert parse_line(text) == WinningNumberLine(number)


@pytest.mark.parametrize("text", ["37", "6 ", "  ", "7", "123"])
def test_a_bare_number_off_the_wheel_is_refused(text):
    with pytest.raises(ProtocolError):
        parse_line(text)


def test_a_bare_number_that_disagrees_with_the_status_voids_the_result():
    decoder = CammeghDecoder()
    feed(decoder, ["*X;3;004;10;0;146;1", "*X;4;004;10;0;146;1", "17"])
    (result,) = decoder.feed("*X;5;004;18;0;146;1", 9.0, UTC)
    assert result.number == 18 and WheelFault.SENSOR_FAULT in result.faults and not result.valid


def test_a_bare_number_after_the_result_is_checked_too():
    decoder = CammeghDecoder()
    feed(decoder, ["*X;4;004;10;0;146;1", "*X;5;004;18;0;146;1"])
    assert decoder.feed("18", 5.0, UTC) == []
    (warning,) = decoder.feed("19", 6.0, UTC)
    assert isinstance(warning, WheelWarning) and warning.faults == (WheelFault.SENSOR_FAULT,)


def test_a_bare_number_run_into_the_status_line_is_split():
    lines, rest = split_lines(b"*X;4;011;34;0;139;1\r\n27*X;5;011;27;0;136;1\r\n*X;5;01")
    assert lines == [b"*X;4;011;34;0;139;1", b"27", b"*X;5;011;27;0;136;1"] and rest == b"*X;5;01"


def test_bonus_lines():
    assert parse_line("*Y;3;x50") == BonusLine(3, "x50")
    decoder = CammeghDecoder()
    feed(decoder, ["*X;4;007;10;0;146;1"])
    (bonus,) = decoder.feed("*Y;6;500", 1.0, UTC)
    assert isinstance(bonus, WheelBonus) and (bonus.spin, bonus.bonus_type, bonus.value) == (7, 6, "500")
    for bad in ("*Y;7;500", "*Y;1;50", "*Y;1;5000", "*Y:1:500"):
        with pytest.raises(ProtocolError, match="not a bonus line"):
            parse_line(bad)


def test_error_lines_are_reported_and_the_status_flags_judge_the_spin():
    decoder = CammeghDecoder()
    feed(decoder, ["*X;3;002;10;0;146;1"])
    (error,) = decoder.feed("*F 12", 1.0, UTC)
    assert isinstance(error, WheelError) and (error.spin, error.message) == (2, "12")
    (result,) = feed(decoder, ["*X;5;002;14;0;146;1"])
    assert result.valid  # state 5 is "established with no game errors present" (handbook)


@pytest.mark.parametrize("line", ["*P 1", "*P OK", "*P NO", "*P 0", "*o BUSY", "*u OK", "*T s 14.0 17.50000"])
def test_replies_to_commands_are_accepted_and_change_nothing(line):
    decoder = CammeghDecoder()
    assert isinstance(parse_line(line), WheelMessage)
    assert decoder.feed(line, 0.0, UTC) == [] and decoder.bad_lines == 0


def test_the_mode_is_learnt_from_the_options_replies():
    decoder = CammeghDecoder()
    decoder.feed("*O 6 1 60 1158", 0.0, UTC)
    assert decoder.mode == 1158
    decoder.feed("*o 1029", 1.0, UTC)
    assert decoder.mode == 1029
    assert "status repeat off" in describe_mode(1029) and "single winning number on" in describe_mode(1029)
    assert "status repeat on" in describe_mode(FACTORY_MODE)


@pytest.mark.parametrize("raw,message", [
    (b"*X;5;001;17;0;100;\xff", "byte 0xff at column 19 is not printable ASCII"),
    (b"\xfe\xff", "byte 0xfe at column 1"),
    (b"*X;5;001;17;0;1\x0000;1", "byte 0x00 at column 16"),
    (b"00;0", "not a line of the wheel's read protocol"),  # a fragment, as in self-test.log
    (b"*" + b"P" * 80, "longer than any the wheel sends"),
    (b"*X;5;001;40;0;100;1", "not on a single-zero wheel"),
])
def test_bytes_off_the_protocol_get_the_protocols_own_error(raw, message):
    decoder = CammeghDecoder()
    with pytest.raises(ProtocolError, match=message):
        decoder.feed(raw, 0.0, UTC)
    assert decoder.bad_lines == 1


def test_decode_lines_keeps_going_after_a_bad_byte():
    out = list(decode_lines([b"*X;4;001;00;0;146;1\n", b"\xff\xfe\n", b"17*X;5;001;17;0;146;1\n"]))
    assert isinstance(out[1][1], ProtocolError) and out[1][0] == 2
    results = [e for _, events in out if not isinstance(events, Exception) for e in events
               if isinstance(e, WheelResult)]
    assert [(r.spin, r.number, r.valid) for r in results] == [(1, 17, True)]


@pytest.fixture
def quiet_wheel(tmp_path, request):
    """A wheel with the 0.5 s status repeat off (mode 1157 - 128): lines only when something changes.

    Returns a function (period_s, lost_after_s) -> (sim, reader, sink); the reader asks the wheel for
    its options after 3 periods without a line.
    """
    def start(period_s: float, lost_after_s: float):
        sim = CammeghSim(path=tmp_path / "cammegh0", period=period_s, mode=FACTORY_MODE - 128)
        sim.start()
        sink = EventSink()
        reader = CammeghReader(sim.path, emit=sink, period_s=period_s, lost_after_s=lost_after_s,
                               backoff=Backoff(0.02, 0.1))
        reader.start()
        request.addfinalizer(sim.stop)
        request.addfinalizer(reader.stop)
        sim.set(state=1)  # one status line, then silence
        assert reader.wait_connected(5.0)
        return sim, reader, sink
    return start


def test_without_the_status_repeat_each_change_is_still_emitted_once(quiet_wheel):
    sim, reader, sink = quiet_wheel(0.05, 0.6)
    sim.play_spin(17, hold=0.05)
    sim.play_spin(25, hold=0.05)
    results = sink.take(WheelResult, 2)
    sink.settle(0.2)
    assert [(r.number, r.valid) for r in results] == [(17, True), (25, True)]
    assert len(sink.of_type(WheelResult)) == 2 and reader.decoder.bad_lines == 0


def test_without_the_status_repeat_an_idle_wheel_stays_connected(quiet_wheel):
    # generous periods: the wheel has 0.6 s to answer each query before the link counts as degraded
    sim, reader, sink = quiet_wheel(0.2, 1.5)
    time.sleep(2.5)  # past lost_after_s without a status line: the options queries are answered
    assert sim.queries_answered >= 2 and reader.decoder.mode == FACTORY_MODE - 128
    sink.settle(0.05)
    assert [e.state for e in sink.of_type(DeviceHealth)] == [Health.CONNECTED]


def test_without_the_status_repeat_a_silent_wheel_is_degraded_then_lost(quiet_wheel):
    sim, reader, sink = quiet_wheel(0.05, 0.6)
    sim.go_silent(1.2)  # no line at all, the queries unanswered
    time.sleep(1.0)
    sink.settle(0.05)
    states = [e.state for e in sink.of_type(DeviceHealth)]
    assert states[:3] == [Health.CONNECTED, Health.DEGRADED, Health.LOST]
    time.sleep(0.4)
    sim.play_spin(4, hold=0.05)
    (result,) = sink.take(WheelResult, 1)
    assert result.number == 4 and sink.of_type(DeviceHealth)[-1].state is Health.CONNECTED
