"""Card shoe scanner simulator: a scripted card sequence ("AS", "10H", "KD"...), cut card, empty shoe."""

from __future__ import annotations

import random

from ..errors import DeviceConfigError
from ..protocol.boards import SHOE
from .board import BoardSim

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10} | {str(n): n for n in range(2, 11)}
SUITS = "CDHS"  # board suit codes 0..3


def card_code(card: str) -> tuple[int, int]:
    """(rank 1..13, suit code) of a card written like "AS", "10h", "Td"."""
    text = card.strip().upper()
    rank, suit = RANKS.get(text[:-1]), SUITS.find(text[-1:])
    if rank is None or suit < 0:
        raise DeviceConfigError(f"not a card: {card!r} (ranks A 2-10 J Q K, suits C D H S)")
    return rank, suit


def shuffled_shoe(decks: int, seed: int) -> list[str]:
    cards = [f"{r}{s}" for _ in range(decks) for r in ("A", *map(str, range(2, 11)), "J", "Q", "K") for s in SUITS]
    random.Random(seed).shuffle(cards)
    return cards


class ShoeSim(BoardSim):
    """A shoe scanner board; `load()`, then `deal()` cards and `cut_card()` as the dealer would."""

    def __init__(self, *, serial: str = "SHOE-SIM-1", **kwargs) -> None:
        super().__init__(SHOE, serial=serial, **kwargs)
        self.seq = 0

    def load(self) -> int:
        self.seq = 0
        return self.emit("shoe_loaded")

    def deal(self, *cards: str) -> list[int]:
        """Each card leaves the shoe in turn; returns the event ids."""
        ids = []
        for card in cards:
            rank, suit = card_code(card)
            self.seq += 1
            ids.append(self.emit("card_out", rank=rank, suit=suit, seq=self.seq))
        return ids

    def unreadable(self) -> int:
        self.seq += 1
        return self.emit("card_unreadable", seq=self.seq)

    def skip(self, count: int = 1) -> None:
        """Cards leave without the scanner seeing them (the next card's position jumps)."""
        self.seq += count

    def cut_card(self) -> int:
        return self.emit("cut_card", after_seq=self.seq)

    def empty(self) -> int:
        return self.emit("shoe_empty", cards=self.seq)

    def fault(self, sensor: int = 0, fault: int = 1) -> int:
        return self.emit("sensor_fault", sensor=sensor, fault=fault)
