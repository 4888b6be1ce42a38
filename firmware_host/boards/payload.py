"""The `board` topic's payload (docs/mqtt.md, "Boards"): msgspec structs.

A `BoardMessage` has the fields every outgoing payload of the contract has (`schema`, `type`,
`table`, `seq`, `utc`; `seq` is filled in by the journal's outbox), the round the board follows,
the table's limits and paytable, and `board`: what that game's boards show, tagged by `game`.
"""

from __future__ import annotations

from typing import Union

import msgspec
from msgspec import Struct

SCHEMA = 1


class PaytableRow(Struct, frozen=True, omit_defaults=True):
    """A bet and what it pays ("x:y": wins x for every y staked, the stake returned)."""

    bet: str
    pays: str
    number: int | None = None
    condition: str | None = None


class TableInfo(Struct, frozen=True):
    """What regulations require be visible before betting: limits (minor units) and paytable."""

    rulebook: str
    currency: str
    minor_units_per_unit: int
    minimum: int
    maximum: int
    per_bet_maximum: dict[str, int]
    paytable: list[PaytableRow]


class SpinView(Struct, frozen=True):
    number: int
    colour: str  # "red", "black", "green"
    direction: str | None  # "cw", "ccw", or None when the wheel does not report it


class NumberCountView(Struct, frozen=True):
    number: int
    count: int


class ChanceCountsView(Struct, frozen=True):
    spins: int
    zero: int
    red: int
    black: int
    odd: int
    even: int
    low: int
    high: int
    dozens: list[int]
    columns: list[int]


class RouletteBoard(Struct, frozen=True, tag_field="game", tag="roulette"):
    spins: int  # valid spins this session
    last: list[SpinView]  # newest first, at most `last_n`
    last_n: int
    window: int  # hot, cold and counts are over the last `window` spins
    hot: list[NumberCountView]
    cold: list[NumberCountView]
    counts: ChanceCountsView
    wheel: str = "french"  # the configured wheel: "french" (004 X.9) or "american_numbering" (IX.2)
    wheel_order: list[int] = []  # its numbers in order round the wheel, as the config names them


class BeadView(Struct, frozen=True):
    winner: str  # "B", "P", "T"
    banker_pair: bool
    player_pair: bool


class BigRoadCellView(Struct, frozen=True):
    winner: str | None  # None: only ties so far this shoe, marked on the first cell
    ties: int
    banker_pair: bool  # this cell's coup, or a tie marked on it, had a banker pair
    player_pair: bool


class BaccaratCounts(Struct, frozen=True):
    coups: int
    banker: int
    player: int
    tie: int
    banker_pair: int
    player_pair: int


class BaccaratBoard(Struct, frozen=True, tag_field="game", tag="baccarat"):
    shoe: int  # shoes since the session opened, from 1
    last_coup: bool  # the cut card is out: the next coup is the shoe's last (or this one was)
    counts: BaccaratCounts
    bead_plate: list[BeadView]  # oldest first; drawn down columns of six
    big_road: list[list[BigRoadCellView]]  # logical columns, top to bottom
    big_eye_boy: list[list[str]]  # "R" / "B" marks in columns
    small_road: list[list[str]]
    cockroach_pig: list[list[str]]
    layout: dict[str, list[list[int]]]  # per road, [x, y] of each cell in column order (6 rows, dragon tail)
    next: dict[str, dict[str, str | None]]  # "B"/"P" -> road -> the mark that coup would add


class CrapsThrowView(Struct, frozen=True):
    faces: list[int]
    total: int
    point: int | None  # the point in force before this throw
    outcome: str | None  # "natural", "craps", "point", "point_made", "seven_out" or None
    shooter: int


class CrapsBoard(Struct, frozen=True, tag_field="game", tag="craps"):
    throws: int  # valid throws this session
    last: list[CrapsThrowView]  # newest first
    last_n: int
    point: int | None  # the point now (None: next throw is a come-out)
    shooter: int  # the shooter now, numbered from 1 this session
    hot_roll: int  # throws by the current shooter so far
    longest_roll: int  # the longest roll of the session


class ThreeDiceView(Struct, frozen=True):
    faces: list[int]
    total: int
    chance: str | None  # "small", "big" (and banca francesa "aces"), None: triple / no decision
    triple: bool


class ThreeDiceCounts(Struct, frozen=True):
    results: int
    small: int
    big: int
    aces: int
    triples: int
    no_decision: int


class CussecBoard(Struct, frozen=True, tag_field="game", tag="cussec"):
    results: int
    last: list[ThreeDiceView]
    last_n: int
    counts: ThreeDiceCounts


class BancaFrancesaBoard(Struct, frozen=True, tag_field="game", tag="banca_francesa"):
    results: int
    last: list[ThreeDiceView]
    last_n: int
    counts: ThreeDiceCounts


class PaiKaoView(Struct, frozen=True):
    faces: list[int]
    total: int
    first_seat: int  # 0 = banker, then right to left (002 Art. 1.4)
    winning_seats: list[int] = []  # the seats whose hands beat the banker's (002 Art. 6), in dealing order


class PaiKaoBoard(Struct, frozen=True, tag_field="game", tag="paikao"):
    rounds: int
    last: list[PaiKaoView]
    last_n: int
    seat_counts: list[int]  # how often each of the 8 seats received the first stack


class ChemindeFerBoard(BaccaratBoard, frozen=True, tag="chemin_de_fer"):
    """Chemin de fer's results on the baccarat roads (winner "B": the bank won, "P": the punter, "T": equal
    points, a void coup under I.76); its shoe as baccarat's."""


class BlackjackCoupView(Struct, frozen=True):
    dealer: list[str]  # the dealer's cards as dealt ("AS", "10H")
    total: int  # the dealer's best total (over 21: bust)
    bust: bool
    blackjack: bool  # ace and a ten-value card as the first two (V.21)
    boxes: int  # boxes played this coup


class BlackjackCounts(Struct, frozen=True):
    coups: int
    busts: int  # coups the dealer busted
    blackjacks: int  # coups the dealer had blackjack
    totals: dict[str, int]  # dealer's standing totals "17".."21" -> coups


class BlackjackBoard(Struct, frozen=True, tag_field="game", tag="blackjack"):
    shoe: int  # shoes since the session opened, from 1
    last: list[BlackjackCoupView]  # newest first, at most `last_n`
    last_n: int
    counts: BlackjackCounts  # over this shoe's coups


AnyBoard = Union[RouletteBoard, BaccaratBoard, ChemindeFerBoard, CrapsBoard, CussecBoard, BancaFrancesaBoard,
                 PaiKaoBoard, BlackjackBoard]


class BoardMessage(Struct, frozen=True, kw_only=True, tag_field="type", tag="board"):
    """The retained payload of `<prefix>/tables/<id>/board`."""

    table: str
    seq: int = 0  # the outbox's sequence number, filled in when published
    utc: str
    epoch: str = ""  # the journal's epoch and the previous seq on this topic, filled in when published
    prev_seq: int = 0
    schema: int = SCHEMA
    round: int | None = None  # the round this board follows; None after a reset
    round_id: str | None = None
    reset: str | None = None  # why the history was last emptied: "new_session" or "new_shoe"
    languages: list[str] = msgspec.field(default_factory=lambda: ["en"])  # the table's [board] languages: the first large, a second under it
    table_info: TableInfo | None = None
    board: AnyBoard


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(BoardMessage)


def encode(message: BoardMessage) -> bytes:
    return _encoder.encode(message)


def decode(data: bytes | str) -> BoardMessage:
    """A board message, validated (raises msgspec.ValidationError on anything else)."""
    return _decoder.decode(data)
