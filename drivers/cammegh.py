"""Commercial wheel decoder for the Cammegh-style read protocol: lines in, typed events out (pure, no I/O).

Exactly one event per change of (state, spin, warnings), never one per repeated status line, so it
works the same whether the wheel repeats its status every 0.5 s or only sends it on changes (mode
128 off). Warnings that arrive together with a state change belong to that state's event. The bare
winning number the wheel sends before its state-5 status is checked against it; a bonus line gives
a `wheel_bonus` event, an `*F` line a `wheel_error` event; replies to commands (`*P`, `*o`, `*O`, ...)
only tell the reader the wheel is there (and its mode). Line formats: `cammegh_lines.py`.
`CammeghReader` (cammegh_reader.py) puts the decoder on a serial port.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import Iterable

from .cammegh_lines import (BonusLine, StatusLine, WheelMessage, WinningNumberLine, describe_mode, mode_of,
                            parse_line, split_lines)
from .errors import ProtocolError
from .events import (
    DeviceEvent, SpinMissed, WheelBonus, WheelError, WheelFault, WheelPhase, WheelPhaseChanged, WheelResult,
    WheelWarning, now_stamp,
)
from .wheel_layout import SpinChecks

log = logging.getLogger(__name__)

STATES = {1: WheelPhase.GAME_START, 2: WheelPhase.NEW_GAME, 3: WheelPhase.BALL_IN_TRACK,
          4: WheelPhase.NO_MORE_BETS, 5: WheelPhase.WINNING_NUMBER, 6: WheelPhase.TABLE_CLOSED}
SPIN_MODULO = 1000


class CammeghDecoder:
    """Wheel lines -> one typed event per change; no I/O, the arrival time is passed in."""

    def __init__(self, *, name: str = "wheel", checks: SpinChecks | None = None) -> None:
        self.name = name
        self.checks = checks or SpinChecks()
        self.last: StatusLine | None = None
        self.mode: int | None = None            # from the wheel's `*o` / `*O` replies, when it sent one
        self.lines = 0
        self.bad_lines = 0
        self._result_spin: int | None = None    # spin whose result was emitted
        self._result_number: int | None = None
        self._launched_spin: int | None = None  # spin whose ball reached the track
        self._announced: tuple[int | None, int] | None = None  # (spin, number) of a bare winning number

    def feed(self, line: bytes | str, mono: float, utc: datetime) -> list[DeviceEvent]:
        """Events for one line: [] for a repeat; raises ProtocolError for a bad line (state kept)."""
        self.lines += 1
        try:
            parsed = parse_line(line)
        except ProtocolError:
            self.bad_lines += 1
            raise
        stamp = {"device": self.name, "mono": mono, "utc": utc}
        spin = self.last.spin if self.last else None
        match parsed:
            case StatusLine():
                return self._status(parsed, stamp)
            case WinningNumberLine(number):
                return self._winning_number(number, stamp)
            case BonusLine(bonus_type, value):
                return [WheelBonus(**stamp, spin=spin, bonus_type=bonus_type, value=value)]
            case WheelMessage():
                return self._message(parsed, stamp)

    def _status(self, status: StatusLine, stamp: dict) -> list[DeviceEvent]:
        last = self.last
        if last is not None and (status.state, status.spin, status.flags) == (last.state, last.spin, last.flags) \
                and (status.state != 5 or status.number == last.number):
            return []  # the wheel repeating itself (rotor speed drifting is not a change)
        self.last = status
        if last is not None and (status.state, status.spin) == (last.state, last.spin) and \
                (status.state != 5 or status.number == last.number):
            return [WheelWarning(**stamp, spin=status.spin, faults=status.faults)]
        events = self._missed(last, status, stamp)
        if status.state in (3, 4):
            self._launched_spin = status.spin
        if status.state == 5:
            events.append(self._result(status, stamp))
        else:
            events.append(WheelPhaseChanged(**stamp, phase=STATES[status.state], spin=status.spin,
                                            rotor_rpm=float(status.rotor_rpm), rotor_direction=status.rotor_direction,
                                            faults=status.faults))
        return events

    def _result(self, status: StatusLine, stamp: dict) -> WheelResult:
        detected = not status.flags & 1
        number = status.number if detected else None
        announced = self._announced
        self._announced = None
        disagrees = announced is not None and announced[0] == status.spin and number is not None \
            and announced[1] != number
        if disagrees:
            log.error("%s: spin %d: the wheel announced %d but its status shows %d: the result is void",
                      self.name, status.spin, announced[1], number)
        self._result_spin, self._result_number = status.spin, number
        ball_direction = status.rotor_direction if status.flags & 2 else status.rotor_direction.opposite
        faults = self.checks.evaluate(revolutions=None, ball_direction=ball_direction,
                                      rotor_direction=status.rotor_direction, ball_detected=detected,
                                      sensor_fault=bool(status.flags & 4) or disagrees,
                                      failed_launch=bool(status.flags & 8))
        return WheelResult(**stamp, spin=status.spin, number=number, ball_direction=ball_direction,
                           rotor_direction=status.rotor_direction, rotor_rpm=float(status.rotor_rpm), faults=faults)

    def _winning_number(self, number: int, stamp: dict) -> list[DeviceEvent]:
        """The bare number: kept for the state-5 status that follows, or checked against one already seen."""
        last = self.last
        spin = last.spin if last else None
        if last is not None and last.state == 5 and self._result_spin == spin:
            if self._result_number is not None and number != self._result_number:
                log.error("%s: spin %d: the wheel announced %d after its result %d", self.name, spin, number,
                          self._result_number)
                return [WheelWarning(**stamp, spin=spin, faults=(WheelFault.SENSOR_FAULT,))]
            return []
        self._announced = (spin, number)
        return []

    def _message(self, message: WheelMessage, stamp: dict) -> list[DeviceEvent]:
        spin = self.last.spin if self.last else None
        if message.letter == "F":
            log.warning("%s: the wheel reports an error: *F %s", self.name, message.text)
            return [WheelError(**stamp, spin=spin, message=message.text)]
        mode = mode_of(message)
        if mode is not None and mode != self.mode:
            self.mode = mode
            log.info("%s: the wheel is in %s", self.name, describe_mode(mode))
        else:
            log.debug("%s: *%s %s", self.name, message.letter, message.text)
        return []

    def _missed(self, last: StatusLine | None, status: StatusLine, stamp: dict) -> list[DeviceEvent]:
        """Spins whose result this reader never saw (it was disconnected meanwhile)."""
        if last is None or status.spin == last.spin:
            return []
        gap = (status.spin - last.spin) % SPIN_MODULO
        if gap >= SPIN_MODULO // 2:
            return []  # the counter went back: the wheel was reset, not hundreds of spins missed
        first = (last.spin + 1) % SPIN_MODULO
        if self._launched_spin == last.spin and self._result_spin != last.spin and not last.flags & 8:
            first = last.spin  # the last spin launched and its result never came
        if first == status.spin:
            return []
        return [SpinMissed(**stamp, first=first, last=(status.spin - 1) % SPIN_MODULO)]


def decode_lines(chunks: Iterable[bytes], *, name: str = "wheel", min_revolutions: int = 3, clock=time.monotonic):
    """Yield (input line number, events or the ProtocolError) for raw input lines (the CLI's core).

    Each input line may hold more than one wheel line (a bare number run into the status after it).
    """
    decoder = CammeghDecoder(name=name, checks=SpinChecks(min_revolutions))
    for number, chunk in enumerate(chunks, 1):
        lines, rest = split_lines(chunk)
        for line in lines + ([rest] if rest else []):
            mono, utc = clock(), now_stamp()[1]
            try:
                yield number, decoder.feed(line, mono, utc)
            except ProtocolError as exc:
                yield number, exc
