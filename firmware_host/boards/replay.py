"""Board replay: a stand-in table that publishes results and boards over MQTT the way the service
does (docs/mqtt.md: retained `availability` with a Last Will, retained `state`, `result` and `board`,
`events`), from a results string or from fresh draws. Between results it opens betting with a
countdown (`state`), closes it and plays, as a table would.

Draws: dice and the wheel at random (the ball's direction alternating, 004 §X.15); punto banco
dealt card by card from a shuffled 8-deck shoe through the rules core's dealing validator, with
"last coup" when fewer than the cut card's 12 cards are left and a new shoe after it (004 §II);
chemin de fer's stand-in coups are dealt the same way (the board shows only who won); blackjack's are
the dealer's hands drawn to 17 from a shuffled 6-deck shoe (004 §V.19), a new shoe every 40 coups.
It is for board vendors testing a screen, for `make board` when no simulated table is running,
and for the board page's browser test. It does not journal: the service is the table of record.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone

import msgspec

from ..clock import utc_after
from ..errors import BrokerUnreachable
from ..mqtt.contract import Availability, EventPayload, ResultPayload, TableState, Topics
from ..mqtt.link import LinkSettings, MqttLink, Will
from ..rules.blackjack_hand import Hand, dealer_stands
from ..rules.cards import parse_card, shoe_composition
from ..rules.punto_banco_deal import PuntoBancoCoup
from .history import BoardSettings
from .keeper import BOARD_OF_GAME, BoardKeeper
from .payload import TableInfo, encode
from .results_text import DICE, parse_coups, parse_faces, parse_spins

CUT_CARD = 12  # punto banco: the cut card ~12 cards from the end (DIGEST, 004 §II)
WORD = {"B": "banker", "P": "player", "T": "tie"}
PLAY_PHASE = {"roulette": "spinning", "baccarat": "dealing", "chemin_de_fer": "dealing", "blackjack": "dealing",
              "cussec": "revealing"}  # dice: "throwing"
BLACKJACK_SHOE = 40  # coups of a stand-in blackjack shoe
BETTING_SHARE = 0.75  # of the interval between results, betting is open


@dataclass(frozen=True)
class Step:
    """One thing the stand-in table does: a result (its fields) or an event (its kind)."""

    result: dict | None = None
    event: str | None = None
    detail: dict = field(default_factory=dict)


def steps_from_text(game: str, text: str) -> list[Step]:
    """The results of a results string (see `results_text`), one step each."""
    board = BOARD_OF_GAME[game]
    if board == "baccarat":
        return [Step({"outcome": {"winner": WORD[c.winner], "banker_pair": c.banker_pair,
                                  "player_pair": c.player_pair}}) for c in parse_coups(text)]
    if board == "roulette":
        return [Step({"number": s.number, "outcome": {"direction": s.direction}}) for s in parse_spins(text)]
    return [Step({"faces": list(f), "total": sum(f)}) for f in parse_faces(text, board)]


def drawn_steps(game: str, rng: random.Random) -> Iterator[Step]:
    """Endless fresh results for `game`."""
    board = BOARD_OF_GAME[game]
    if board in ("baccarat", "chemin_de_fer"):
        yield from _dealt_coups(rng)
    elif board == "blackjack":
        yield from _dealers_hands(rng)
    elif board == "roulette":
        for direction in itertools.cycle(("cw", "ccw")):
            yield Step({"number": rng.randrange(37), "outcome": {"direction": direction}})
    else:
        while True:
            faces = [rng.randint(1, 6) for _ in range(DICE[board])]
            yield Step({"faces": faces, "total": sum(faces)})


def _dealt_coups(rng: random.Random) -> Iterator[Step]:
    while True:
        cards = [card for card, n in shoe_composition(8).items() for _ in range(n)]
        rng.shuffle(cards)
        deck = iter(cards[8:])  # the first 8 burnt (004 §II)
        left = len(cards) - 8
        while True:
            last = left <= CUT_CARD + 6
            if last:
                yield Step(event="last_coup")
            coup = PuntoBancoCoup()
            while not coup.is_complete:
                coup.deal(next(deck))
                left -= 1
            view = coup.result().view()
            yield Step({"cards": {"player": view["player"], "banker": view["banker"]},
                        "outcome": {k: view[k] for k in ("winner", "player_points", "banker_points", "natural",
                                                         "player_pair", "banker_pair")}})
            if last:
                yield Step(event="new_shoe")
                break
            next(deck)  # one card burnt before every coup but the first
            left -= 1


def _dealers_hands(rng: random.Random) -> Iterator[Step]:
    while True:
        cards = [card for card, n in shoe_composition(6).items() for _ in range(n)]
        rng.shuffle(cards)
        deck = iter(cards)
        for _ in range(BLACKJACK_SHOE):
            dealer = [parse_card(next(deck)) for _ in range(2)]
            while not dealer_stands(dealer):
                dealer.append(parse_card(next(deck)))
            hand = Hand(dealer)
            boxes = rng.randint(1, 7)
            yield Step({"cards": {"dealer": [str(c) for c in dealer]},
                        "outcome": {"dealer": {"cards": [str(c) for c in dealer], "total": hand.total,
                                               "bust": hand.bust, "blackjack": hand.is_blackjack},
                                    "boxes": [{"box": n, "hands": []} for n in range(1, boxes + 1)]}})
        yield Step(event="new_shoe")


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Replay:
    """Publishes steps as a table would: result, then the board it gives, both retained."""

    def __init__(self, game: str, table_id: str, url: str, prefix: str = "tablehw",
                 settings: BoardSettings = BoardSettings(), table: TableInfo | None = None) -> None:
        self.game, self.table_id = game, table_id
        self.topics = Topics(prefix, table_id)
        self.keeper = BoardKeeper(game, table_id, settings, table)
        self.seq = itertools.count(1)
        self.round = 0
        self.table = table
        will = Will(self.topics.availability, msgspec.json.encode(Availability(table_id, "offline")),
                    msgspec.json.encode(Availability(table_id, "online")))
        self.link = MqttLink(LinkSettings(url, f"tablehw-replay-{table_id}", keepalive_s=5, session_expiry_s=0), will)

    def start(self, timeout_s: float = 10.0) -> None:
        """Connect (the link says "online") and publish the new session's empty board; `BrokerUnreachable`
        with the cause at the first failed attempt (a stand-in table has nothing to play offline)."""
        self.link.start()
        deadline = time.monotonic() + timeout_s
        while not self.link.connected:
            failed = self.link.watch.failures > 0
            if failed or time.monotonic() > deadline:
                self.link.stop()
                cause = self.link.watch.cause if failed else f"no answer within {timeout_s:.0f} s"
                raise BrokerUnreachable(f"cannot reach the broker {self.link.settings.url}: {cause}")
            time.sleep(0.05)
        self.play_step(Step(event="table_opened"))

    def stop(self) -> None:
        """A clean stop: "offline" is published before disconnecting."""
        self.link.stop()

    def play_step(self, step: Step) -> None:
        utc = utc_now()
        if step.event:
            event = EventPayload(self.table_id, next(self.seq), utc, kind=step.event, detail=step.detail)
            self._send(self.topics.events, msgspec.json.encode(event), retain=False)
            if self.keeper.on_event(msgspec.to_builtins(event)):
                self._send_board(utc)
            return
        self.round += 1
        round_id = f"{self.table_id}-{self.round:08d}"
        result = msgspec.structs.replace(
            ResultPayload(self.table_id, next(self.seq), utc, game=self.game, round=self.round, round_id=round_id),
            **step.result)
        self._send(self.topics.result, msgspec.json.encode(result), retain=True)
        if self.keeper.on_result(msgspec.to_builtins(result)):
            self._send_board(utc)

    def announce(self, phase: str, betting_seconds: float = 0.0) -> None:
        """Publish the retained `state` of the next round in `phase`; betting closes after `betting_seconds`."""
        utc = utc_now()
        betting = phase == "betting"
        info = self.table
        state = TableState(
            self.table_id, next(self.seq), utc, game=self.game, rulebook=info.rulebook if info else "",
            currency=info.currency if info else "", phase=phase, round=self.round + 1,
            round_id=f"{self.table_id}-{self.round + 1:08d}", attempt=1, betting_open=betting,
            betting_closes=utc_after(utc, betting_seconds) if betting and betting_seconds > 0 else None,
            betting_seconds=betting_seconds if betting else 0.0,
            limits={"minimum": info.minimum, "maximum": info.maximum} if info else {})
        self._send(self.topics.state, msgspec.json.encode(state), retain=True)

    def play(self, steps: Iterator[Step] | list[Step], interval_s: float, rounds: int | None = None,
             stop: threading.Event | None = None) -> int:
        """Play steps, one result every `interval_s` (betting open for most of it, then the play
        phase); returns the number of results published."""
        stop = stop or threading.Event()
        played = 0
        betting_s = interval_s * BETTING_SHARE
        for step in steps:
            if stop.is_set() or (rounds is not None and played >= rounds):
                break
            if step.result is not None:
                self.announce("betting", betting_s)
                if stop.wait(betting_s):
                    break
                self.announce(PLAY_PHASE.get(BOARD_OF_GAME[self.game], "throwing"))
                if stop.wait(interval_s - betting_s):
                    break
            self.play_step(step)
            played += step.result is not None
        return played

    def _send_board(self, utc: str) -> None:
        message = msgspec.structs.replace(self.keeper.message(utc), seq=next(self.seq))
        self._send(self.topics.board, encode(message), retain=True)

    def _send(self, topic: str, payload: bytes, retain: bool) -> None:
        info = self.link.publish(topic, payload, qos=1, retain=retain)
        try:
            info.wait_for_publish(5.0)
        except (RuntimeError, ValueError):
            pass  # not connected: paho keeps QoS 1 messages and sends them on reconnect
