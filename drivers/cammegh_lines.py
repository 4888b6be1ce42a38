"""The lines a Cammegh-style wheel sends on its read protocol, parsed with no I/O (docs/devices.md).

Sources: the SlingShot 2 read-protocol codec (scodec, `device.cammegh.slingshot.Input`: `Status`, `BonusWin`,
`Win`), the wheel logs of studio-sdp-mirror (`sim/log/ss2/ss2_protocol.log`, `tests/self-test.log`) and the
owner's handbook mode table they quote (p. 50). Line types:

* `*X;<state>;<spin 3 digits>;<number 2 chars>;<flags hex>;<rotor speed 3 digits>;<direction 0|1>` — the
  status. The number is space-padded (` 6`) and blank (two spaces) before the first result.
* `<number 2 chars>` alone — the winning number, sent just before the state-5 status (mode 16 turns it off).
* `*Y;<bonus type 1-6>;<3 chars>` — a bonus win.
* `*<letter> <text>` — the wheel's other messages: `*F` errors during play (mode 256), and its replies to
  commands (`*P OK`, `*P NO`, `*o 1158`, `*o BUSY`, `*O 6 1 60 1158`, `*u OK`, `*T s 14.0 17.50000`).

Lines end with CR LF; a `*` also starts a new line, so a bare number sent without its line end still
parts from the status line that follows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ProtocolError
from .events import Direction, WheelFault

MAX_LINE = 64
FLAGS = ((1, WheelFault.BALL_NOT_DETECTED), (2, WheelFault.SAME_DIRECTION), (4, WheelFault.SENSOR_FAULT),
         (8, WheelFault.NO_SPIN))
# Mode option values (handbook p. 50, as quoted in studio-sdp-mirror's docs); the factory mode is 1157.
MODE_NO_SINGLE_NUMBER = 16
MODE_STATUS_REPEAT = 128
MODE_ERROR_MESSAGES = 256

_STATUS = re.compile(r"\*X;([1-6]);(\d{3});(\d\d| \d|  );([0-9A-Fa-f]{1,2});(\d{3});([01])")
_BONUS = re.compile(r"\*Y;([1-6]);([ -~]{3})")
_NUMBER = re.compile(r"\d\d| \d")
_MESSAGE = re.compile(r"\*([A-WZa-z])([ -~]*)")
_LINE_END = re.compile(rb"\r\n|\r|\n|(?=\*)")


@dataclass(frozen=True, slots=True)
class StatusLine:
    state: int
    spin: int
    number: int | None  # None while the wheel shows no number yet
    flags: int
    rotor_rpm: int
    rotor_direction: Direction

    @property
    def faults(self) -> tuple[WheelFault, ...]:
        return tuple(fault for bit, fault in FLAGS if self.flags & bit)


@dataclass(frozen=True, slots=True)
class WinningNumberLine:
    number: int


@dataclass(frozen=True, slots=True)
class BonusLine:
    bonus_type: int
    value: str


@dataclass(frozen=True, slots=True)
class WheelMessage:
    """`*F`, `*P`, `*o`, `*O`, ... : the letter and the text after it."""

    letter: str
    text: str


WheelLine = StatusLine | WinningNumberLine | BonusLine | WheelMessage


def split_lines(buffer: bytes) -> tuple[list[bytes], bytes]:
    """Complete lines in `buffer` (without their ends) and the unfinished rest."""
    *lines, rest = _LINE_END.split(buffer)
    return [line for line in lines if line], rest


def line_text(raw: bytes | str) -> str:
    """The line as text; ProtocolError naming the first byte that is not printable ASCII."""
    if isinstance(raw, bytes):
        raw = raw.decode("latin-1")  # one character per byte, so the column is right
    text = raw.rstrip("\r\n")
    for column, char in enumerate(text, 1):
        if not " " <= char <= "~":
            shown = f"0x{ord(char):02x}" if ord(char) < 0x100 else repr(char)
            raise ProtocolError(f"byte {shown} at column {column} is not printable ASCII: not a wheel line")
    if len(text) > MAX_LINE:
        raise ProtocolError(f"a line of {len(text)} characters is longer than any the wheel sends ({MAX_LINE})")
    return text


def parse_line(raw: bytes | str) -> WheelLine:
    """One line of the read protocol; ProtocolError saying what is wrong with it."""
    text = line_text(raw)
    if text.startswith("*X"):
        return parse_status(text)
    if text.startswith("*Y"):
        match = _BONUS.fullmatch(text)
        if match is None:
            raise ProtocolError(f"not a bonus line (*Y;<type 1-6>;<3 characters>): {text!r}")
        return BonusLine(int(match[1]), match[2])
    if _NUMBER.fullmatch(text):
        return WinningNumberLine(_number(text, text))
    match = _MESSAGE.fullmatch(text)
    if match is None:
        raise ProtocolError(f"not a line of the wheel's read protocol: {text[:40]!r}")
    return WheelMessage(match[1], match[2].strip())


def parse_status(line: str) -> StatusLine:
    """One status line (its line end may be on); ProtocolError saying what is wrong."""
    text = line_text(line)
    match = _STATUS.fullmatch(text)
    if match is None:
        raise ProtocolError(f"not a status line: {text[:40]!r}")
    state, spin, number, flags, rpm, direction = match.groups()
    if int(flags, 16) > 0xF:
        raise ProtocolError(f"unknown warning flags {flags} (known: 1, 2, 4, 8): {text!r}")
    shown = None if number == "  " else _number(number, text)
    if state == "5" and shown is None and not int(flags, 16) & 1:
        raise ProtocolError(f"state 5 (winning number) without a number and without flag 1: {text!r}")
    return StatusLine(int(state), int(spin), shown, int(flags, 16), int(rpm),
                      Direction.CLOCKWISE if direction == "0" else Direction.COUNTERCLOCKWISE)


def _number(field: str, text: str) -> int:
    number = int(field)
    if number > 36:
        raise ProtocolError(f"winning number {number} is not on a single-zero wheel: {text!r}")
    return number


def mode_of(message: WheelMessage) -> int | None:
    """The mode value in a `*o <mode>` or `*O ... <mode>` reply, None in any other message."""
    if message.letter not in "oO" or not message.text:
        return None
    last = message.text.split()[-1]
    return int(last) if last.isdigit() and len(last) <= 5 else None


def describe_mode(mode: int) -> str:
    """What a mode value means for this reader, in words for the log."""
    repeat = "on" if mode & MODE_STATUS_REPEAT else "off (status lines only on changes)"
    single = "off" if mode & MODE_NO_SINGLE_NUMBER else "on"
    errors = "on" if mode & MODE_ERROR_MESSAGES else "off"
    return f"mode {mode}: 0.5 s status repeat {repeat}, single winning number {single}, *F error messages {errors}"
