"""The MQTT contract of docs/mqtt.md as code: topic names and msgspec payload schemas (schema 1).

Outgoing payloads carry `seq`, `epoch` and `prev_seq`, which `Transaction.publish` (or `stamp`)
fills in from the outbox; build them with `seq=0`. Incoming requests are decoded with `decode_request`, which raises `BadRequest`
naming what was wrong.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

import msgspec
from msgspec import Meta, Struct

SCHEMA = 1


REQUEST_KINDS = ("bets", "console", "recall")


class Topics:
    """Every topic of one table: `<prefix>/tables/<table_id>/...`, and the replies to its requesters.

    Requests arrive on `T/<kind>/<user>` (kind: bets, console, recall), `<user>` being the
    requester's broker user name, which the broker's ACL (`pattern write ... /%u`) guarantees.
    """

    def __init__(self, prefix: str, table_id: str) -> None:
        self.prefix = prefix
        self.table_id = table_id
        self.base = f"{prefix}/tables/{table_id}"
        self.ledger_anchor = f"{prefix}/ledger/anchors/{table_id}"  # retained by the back-office ledger
        self.availability = f"{self.base}/availability"
        self.state = f"{self.base}/state"
        self.result = f"{self.base}/result"
        self.settlement = f"{self.base}/settlement"
        self.events = f"{self.base}/events"
        self.board = f"{self.base}/board"
        self.replies = f"{prefix}/replies/"

    def request(self, kind: str, user: str) -> str:
        """Where `user` sends a request of `kind` (bets, console, recall)."""
        return f"{self.base}/{kind}/{user}"

    def requester(self, topic: str) -> tuple[str, str] | None:
        """(kind, user) of a request topic, or None when the topic is not one."""
        head, _, user = topic.rpartition("/")
        kind = head.removeprefix(self.base + "/")
        if kind not in REQUEST_KINDS or head != f"{self.base}/{kind}" or not user:
            return None
        return kind, user

    def reply_prefix(self, user: str) -> str:
        """The only place replies to `user` go: its own reply tree, which only it may read."""
        return f"{self.replies}{user}/"

    def default_reply(self, kind: str, user: str) -> str:
        return f"{self.reply_prefix(user)}tables/{self.table_id}/{kind}"

    def inbound(self) -> list[tuple[str, int]]:
        """The request topics the controller subscribes to (QoS 1)."""
        return [(f"{self.base}/{kind}/+", 1) for kind in REQUEST_KINDS]


class _Out(Struct, tag_field="type", omit_defaults=False):
    """Fields every outgoing payload starts with (`epoch`, `seq`, `prev_seq`: docs/mqtt.md, "Delivery")."""

    table: str
    seq: int
    utc: str
    epoch: str = ""
    prev_seq: int = 0
    schema: int = SCHEMA


class Availability(Struct, tag_field="type", tag="availability"):
    """Retained; the Last Will says "offline". Carries `schema` like every payload (and `reason`, null
    unless locked)."""

    table: str
    state: Literal["online", "offline", "locked"]
    reason: str | None = None
    schema: int = SCHEMA


class JournalPoint(Struct):
    """`state.journal`: the record chain at that message (with `epoch` and `seq`, the table's anchor)."""

    records: int
    head: str  # 64 hex: the hash of record `records`
    anchor: Literal["checked", "unchecked"] = "unchecked"  # did the start-up check against the broker run?


class DiskSpace(Struct):
    """`state.disk`: free space on the journal's file system."""

    free_mb: int
    warning: bool  # below [storage] disk_warning_mb


class TableState(_Out, tag="state"):
    game: str = ""
    rulebook: str = ""
    currency: str = ""
    phase: str = ""
    round: int = 0
    round_id: str = ""
    attempt: int = 0
    betting_open: bool = False
    betting_closes: str | None = None  # UTC: when the betting timer closes betting (None: no timer running)
    betting_seconds: float = 0.0  # the table's betting time (0: only the dealer closes betting)
    last_coup: bool = False
    game_state: dict[str, Any] = {}
    open_bets: int = 0
    devices: dict[str, str] = {}
    limits: dict[str, int] = {}
    journal: JournalPoint | None = None
    disk: DiskSpace | None = None
    broker: dict[str, Any] = {}  # {"reachable": bool, "since": utc, "cause": why not} (docs/mqtt.md)


class Evidence(Struct):
    ref: str
    sha256: str


class Manual(Struct):
    who: str
    why: str


class ResultPayload(_Out, tag="result"):
    game: str = ""
    round: int = 0
    round_id: str = ""
    attempt: int = 1
    void: bool = False
    reason: str | None = None
    faces: list[int] | None = None
    total: int | None = None
    number: int | None = None
    cards: dict[str, list[str]] | None = None
    outcome: dict[str, Any] = {}
    evidence: Evidence | None = None
    manual: Manual | None = None


class BetLine(Struct):
    """One bet's settlement (docs/mqtt.md, settlement)."""

    ticket: str
    owner: str
    bet: str
    number: int | None
    stake: int
    result: str
    paid: int
    returned: int
    kept: int
    breakage: str
    point: int | None
    numbers: list[int] | None = None  # roulette splits, streets, corners ...


class Totals(Struct):
    staked: int
    paid: int
    returned: int
    kept: int
    breakage: str


class SettlementPayload(_Out, tag="settlement"):
    round: int = 0
    round_id: str = ""
    void: bool = False
    currency: str = ""
    bets: list[BetLine] = []
    totals: Totals | None = None


class EventPayload(_Out, tag="event"):
    round: int | None = None
    round_id: str | None = None
    kind: str = ""
    who: str | None = None
    why: str | None = None
    detail: dict[str, Any] = {}


class BetResponse(_Out, tag="bet_response"):
    ticket: str = ""
    accepted: bool = False
    reason: str | None = None
    message: str = ""
    round: int = 0
    round_id: str = ""
    repeated: bool = False  # the ticket was answered before: this is that answer again


class ConsoleResponse(_Out, tag="console_response"):
    action: str = ""
    accepted: bool = False
    reason: str | None = None
    message: str = ""


class RecalledRound(Struct):
    round: int
    round_id: str
    results: list[ResultPayload]
    bets: list[dict[str, Any]]
    settlement: SettlementPayload | None
    events: list[EventPayload]


class RecallResponse(_Out, tag="recall_response"):
    rounds: list[RecalledRound] = []
    reason: str | None = None  # why nothing was recalled (bad_request, not_authorised, rate_limited, ...)
    message: str = ""


class MessageCopy(Struct):
    """One message as the table published it: `payload` is its exact bytes, as a JSON string."""

    seq: int
    topic: str
    payload: str


class MessagesResponse(_Out, tag="messages_response"):
    after: int = 0
    messages: list[MessageCopy] = []
    next_after: int = 0
    more: bool = False
    first_available: int = 1
    reason: str | None = None  # unknown_epoch, bad_request (and the request gate's: not_authorised, rate_limited)
    message: str = ""


# --- the ledger's anchor (docs/mqtt.md, "The back-office ledger's topics"; docs/ledger.md) --------------
Epoch = Annotated[str, Meta(pattern="^[0-9a-f]{32}$")]
ChainHead = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]


class Anchor(Struct, tag_field="type", tag="anchor", omit_defaults=False):
    """Retained on `<prefix>/ledger/anchors/<table>`: the newest state the ledger booked with no gap before it."""

    table: str
    epoch: Epoch
    seq: int
    records: int
    head: ChainHead
    round: int
    utc: str
    schema: int = SCHEMA


# --- requests (in) ---------------------------------------------------------------------------
Text = Annotated[str, Meta(min_length=1, max_length=128)]


class BetRequest(Struct, tag_field="type", tag="bet", forbid_unknown_fields=True):
    ticket: Text
    owner: Text
    bet: Text
    stake: int
    number: int | None = None
    numbers: Annotated[list[int], Meta(max_length=24)] | None = None  # roulette: the numbers a split, street ... covers
    schema: Literal[1] = 1


class WithdrawRequest(Struct, tag_field="type", tag="withdraw", forbid_unknown_fields=True):
    ticket: Text
    owner: Text
    schema: Literal[1] = 1


class RecallRequest(Struct, tag_field="type", tag="recall", forbid_unknown_fields=True):
    last: Annotated[int, Meta(ge=1, le=100)] = 10
    schema: Literal[1] = 1


MESSAGE_TOPICS = ("result", "settlement", "events", "state", "board")  # names under T/ the outbox carries


class MessagesRequest(Struct, tag_field="type", tag="messages", forbid_unknown_fields=True):
    """Messages since `after` (the ledger fills gaps with it): docs/mqtt.md, "messages"."""

    after: Annotated[int, Meta(ge=0)]
    epoch: Annotated[str, Meta(pattern="^[0-9a-f]{32}$")] | None = None
    topics: Annotated[list[Literal[MESSAGE_TOPICS]], Meta(min_length=1)] | None = None
    limit: Annotated[int, Meta(ge=1, le=500)] = 200
    schema: Literal[1] = 1


class ManualResult(Struct, forbid_unknown_fields=True):
    faces: list[int] | None = None
    number: int | None = None
    cards: dict[str, list[str]] | None = None


ConsoleAction = Literal["open_betting", "no_more_bets", "confirm", "void", "new_shooter", "new_shoe",
                        "close_table", "override"]
# P'ai Kao (seed 002): a seat's tiles entered at the dealer console as it is opened, or cleared to be entered again.
TileAction = Literal["tiles", "clear_tiles"]
TILE_ACTIONS: tuple[str, ...] = TileAction.__args__
TileText = Annotated[str, Meta(min_length=1, max_length=8)]  # the tile's two ends, "6-6", "2-4"
TilePair = Annotated[list[TileText], Meta(min_length=2, max_length=2)]


class TileEntry(Struct, forbid_unknown_fields=True):
    """P'ai Kao: the seat (0 = the banker) and, for `tiles`, its four tiles as the two pairs it set (002 Art.
    5.1) with those of them that turned face up in the deal (Art. 2.2-2.3)."""

    seat: Annotated[int, Meta(ge=0, le=7)]
    pairs: Annotated[list[TilePair], Meta(min_length=2, max_length=2)] | None = None
    face_up: Annotated[list[TileText], Meta(max_length=4)] = []


# What the cards cannot tell, decided at the card tables' consoles (docs/mqtt.md, "console"): blackjack (004 §V)
# and chemin de fer (004 §I); the table's game says which it takes.
PlayAction = Literal["draw", "stand", "double", "split", "surrender", "insure", "no_insurance", "even_money",
                     "side_split", "side_double", "next_box", "discard", "bank", "banco", "suivi", "garage",
                     "pass_bank", "fault"]
PLAY_ACTIONS: tuple[str, ...] = PlayAction.__args__


class PlayDetail(Struct, forbid_unknown_fields=True):
    """What a play action names beyond the box or hand whose turn it is (docs/mqtt.md, "console")."""

    box: Annotated[int, Meta(ge=1, le=7)] | None = None
    hand: Annotated[int, Meta(ge=1, le=32)] | None = None
    ticket: Text | None = None  # a bet on a box: a side bettor's insurance, split or double
    amount: Annotated[int, Meta(ge=1, le=10**12)] | None = None  # insurance; the bank's capital
    match: bool | None = None  # side_split: the side bettor follows the split (V.28)
    holder: Text | None = None  # the bank's holder (I.30, I.39); the punter taking the cards (I.105 e)
    fault: Text | None = None  # chemin de fer: the fault's code (docs/rules-cards.md)
    reconstitute: bool = False  # a fault the dealer can reconstitute (I.104 c)


class ConsoleRequest(Struct, tag_field="type", tag="console", forbid_unknown_fields=True):
    action: ConsoleAction | TileAction | PlayAction
    who: Text | None = None  # a display name only: who acted is the broker user the request came from
    why: Annotated[str, Meta(max_length=500)] | None = None
    result: ManualResult | None = None
    tiles: TileEntry | None = None
    play: PlayDetail | None = None
    schema: Literal[1] = 1


Request = Union[BetRequest, WithdrawRequest, RecallRequest, MessagesRequest, ConsoleRequest]


class BadRequest(ValueError):
    """An incoming payload that is not valid JSON or not this schema; the message says why."""


def decode_request(payload: bytes, expected: type | Any = Request) -> Any:
    """Decode a request payload into its Struct, or raise `BadRequest`."""
    try:
        return msgspec.json.decode(payload, type=expected)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise BadRequest(str(exc)) from None


def fraction_text(value) -> str:
    """A Fraction as "num/den" (breakage in minor units)."""
    return f"{value.numerator}/{value.denominator}"
