"""Card shoe scanner board driver: cards out (rank, suit, position), cut card, shoe emptied, sensor faults.

The board numbers cards from 1 after each shoe is loaded. The driver checks that numbering: a
skipped or repeated position means a card went out unseen (or was counted twice), which the
dealing validator must hear about, so it is reported as `CardSequenceGap` before the card itself.
"""

from __future__ import annotations

import logging
from typing import Callable

from .board_link import BoardDriver, BoardEvent, BoardLink
from .events import (
    CardOut, CardSequenceGap, CardUnreadable, CutCardSeen, DeviceEvent, SensorFault, ShoeEmptied, ShoeLoaded, Suit,
)
from .protocol.boards import FAULTS, SHOE

log = logging.getLogger(__name__)

SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)  # board suit codes 0..3


class ShoeBoard(BoardDriver):
    """Turns a shoe scanner board's events into CardOut, CutCardSeen, ShoeEmptied and friends."""

    vocabulary = SHOE

    def __init__(self, link: BoardLink, *, emit: Callable[[DeviceEvent], None], name: str = "shoe") -> None:
        super().__init__(link, emit, name)
        self.next_seq = 1
        self._subscribe()

    def _check_seq(self, event: BoardEvent, seq: int) -> None:
        if seq != self.next_seq:
            log.error("%s: card position %d, expected %d", self.name, seq, self.next_seq)
            self.emit(CardSequenceGap(**self._stamp(event), expected=self.next_seq, got=seq))
        self.next_seq = seq + 1

    def _on_card_out(self, event: BoardEvent, rank: int, suit: int, seq: int) -> None:
        self._check_seq(event, seq)
        if not 1 <= rank <= 13 or suit >= len(SUITS):
            log.error("%s: card %d read as rank %d suit %d: not a card", self.name, seq, rank, suit)
            self.emit(CardUnreadable(**self._stamp(event), seq=seq))
            return
        self.emit(CardOut(**self._stamp(event), rank=rank, suit=SUITS[suit], seq=seq))

    def _on_card_unreadable(self, event: BoardEvent, seq: int) -> None:
        self._check_seq(event, seq)
        self.emit(CardUnreadable(**self._stamp(event), seq=seq))

    def _on_cut_card(self, event: BoardEvent, after_seq: int) -> None:
        self.emit(CutCardSeen(**self._stamp(event), after_seq=after_seq))

    def _on_shoe_empty(self, event: BoardEvent, cards: int) -> None:
        self.emit(ShoeEmptied(**self._stamp(event), cards=cards))

    def _on_shoe_loaded(self, event: BoardEvent) -> None:
        self.next_seq = 1
        self.emit(ShoeLoaded(**self._stamp(event)))

    def _on_sensor_fault(self, event: BoardEvent, sensor: int, fault: int) -> None:
        self.emit(SensorFault(**self._stamp(event), sensor=_sensor(sensor), fault=FAULTS.get(fault, f"code_{fault}"),
                              active=True))

    def _on_sensor_ok(self, event: BoardEvent, sensor: int) -> None:
        self.emit(SensorFault(**self._stamp(event), sensor=_sensor(sensor), fault="cleared", active=False))

    def unlock_gate(self, hold_s: float = 30.0) -> None:
        """Let cards out; the board locks the gate again by itself `hold_s` after the link goes quiet."""
        self.link.hold_output("gate_lock", 0, hold_s)

    def lock_gate(self) -> None:
        self.link.release_output("gate_lock")


def _sensor(sensor: int) -> str:
    return SHOE.sensors[sensor] if sensor < len(SHOE.sensors) else f"sensor_{sensor}"
