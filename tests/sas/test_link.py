"""The link: wakeup bit by MARK/SPACE parity on a UART (sequence checked on a recording termios), escape on ptys."""

from __future__ import annotations

import os
import termios
import time
import tty

import pytest

from drivers.sas.errors import SasLinkError
from drivers.sas.link import BYTE_TIME, CMSPAR, FdChannel, ParityControl, SasLink, open_link


class RecordingTermios:
    """Stands in for the termios module on a UART: keeps the attributes, logs every change."""

    INPCK, PARMRK, ISTRIP, IGNPAR = termios.INPCK, termios.PARMRK, termios.ISTRIP, termios.IGNPAR
    PARENB, PARODD, TCSADRAIN = termios.PARENB, termios.PARODD, termios.TCSADRAIN

    def __init__(self, log: list) -> None:
        self.attrs = [termios.ISTRIP | termios.IGNPAR, 0, termios.CS8, 0, 0, 0, []]
        self.log = log

    def tcgetattr(self, fd):
        return list(self.attrs)

    def tcsetattr(self, fd, when, attrs):
        self.attrs = list(attrs)
        self.log.append(("parity", "mark" if attrs[2] & termios.PARODD else "space", when))


class RecordingChannel:
    def __init__(self, log: list) -> None:
        self.log = log

    def fileno(self) -> int:
        return -1

    def write(self, data: bytes) -> None:
        self.log.append(("write", data))


def test_wakeup_byte_goes_with_mark_parity_the_rest_with_space_draining_between():
    log: list = []
    fake = RecordingTermios(log)
    link = SasLink(RecordingChannel(log), parity=ParityControl(3, tty=fake))
    log.clear()
    link.send(bytes.fromhex("01 1C"))
    assert log == [("parity", "mark", termios.TCSADRAIN), ("write", b"\x01"),
                   ("parity", "space", termios.TCSADRAIN), ("write", b"\x1c")]
    attrs = fake.attrs
    assert attrs[2] & termios.PARENB and attrs[2] & CMSPAR  # stick parity: the parity bit is the 9th bit
    assert attrs[0] & termios.INPCK and attrs[0] & termios.PARMRK  # received wakeup bytes come marked
    assert not attrs[0] & termios.ISTRIP and not attrs[0] & termios.IGNPAR  # 8 clean data bits


def test_a_reply_is_sent_without_the_wakeup_bit():
    log: list = []
    link = SasLink(RecordingChannel(log), parity=ParityControl(3, tty=RecordingTermios(log)))
    log.clear()
    link.send(b"\x01\x1a\x00\x00\x00\x05\x00\x00", wakeup=False)
    assert log == [("write", b"\x01\x1a\x00\x00\x00\x05\x00\x00")]


@pytest.fixture
def pty():
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    yield master, os.ttyname(slave)
    os.close(slave)
    os.close(master)


def test_a_pty_cannot_carry_parity_and_says_so(pty):
    _, path = pty
    with pytest.raises(SasLinkError, match="cannot carry the wakeup bit|cannot switch MARK/SPACE"):
        open_link(path, framing="parity")
    link = open_link(path)
    assert link.framing == "escape"  # auto: a pty gets the escape code
    link.close()


def test_bad_url_or_framing_is_a_clear_error():
    with pytest.raises(SasLinkError, match="cannot open SAS port"):
        open_link("/dev/does-not-exist-sas")
    with pytest.raises(SasLinkError, match="framing"):
        open_link("/dev/null", framing="ninth-bit")


def test_paced_link_takes_line_time_and_delivers_at_line_rate(pty):
    master, path = pty
    os.set_blocking(master, False)
    link = open_link(path, pace=True)
    start = time.monotonic()
    link.send(bytes(20))
    assert time.monotonic() - start >= 20 * BYTE_TIME  # 11.5 ms on a 19200-baud line
    sender = SasLink(FdChannel(os.dup(master)))
    sender.send(bytes(range(1, 11)), wakeup=False)  # ten bytes at once
    start = time.monotonic()
    got = [link.next_byte(start + 1).value for _ in range(10)]
    assert got == list(range(1, 11)) and time.monotonic() - start >= 9 * BYTE_TIME
    sender.close()
    link.close()
