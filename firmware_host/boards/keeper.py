"""A table's board kept from the service's own payloads (docs/mqtt.md): every `result` and `event`
goes through `BoardKeeper`, which says whether the retained `board` must be published again.

Working from the published payloads keeps boards out of the round engine and gives one path for
the live table and a restart: the engine hands every result and event it journals to `follow`
(in the same transaction), and at start-up `replay` feeds the journalled ones of the current
session back through the same code, so the board after a restart is the board before it.
Void attempts change nothing (they have no result). Resets (docs/mqtt.md, Board payloads): the
event `table_opened` starts a new session at every game but baccarat, whose roads follow the
shoe (a table closed and reopened keeps its shoe); `new_shoe` starts baccarat's next shoe. Each
reset is journalled as a `board_reset` record, so a restart replays only what followed it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import msgspec

from .baccarat_roads import BANKER, PLAYER, TIE, Coup
from ..config import TableConfig
from ..errors import TableError
from ..rules.dice import outcome_index
from .dice_history import craps_state_after
from .history import (BaccaratHistory, BlackjackCoup, BlackjackHistory, BoardSettings, ChemindeFerHistory,
                      CrapsHistory, History, PaiKaoHistory, RouletteHistory, ShoeHistory, ThreeDiceHistory)
from .payload import BoardMessage, TableInfo
from .results_text import DICE
from .table_info import table_info
from .roulette_stats import Spin

# The service's game names (config [game] name) and the board each gets.
BOARD_OF_GAME = {"roulette": "roulette", "punto_banco": "baccarat", "baccarat": "baccarat", "craps": "craps",
                 "cussec": "cussec", "banca_francesa": "banca_francesa", "paikao": "paikao",
                 "chemin_de_fer": "chemin_de_fer", "blackjack": "blackjack"}
BOARD_KINDS = ("result", "event")  # the journal records a board follows
RESET_RECORD = "board_reset"  # journalled with each reset: where a restart's replay starts

log = logging.getLogger(__name__)

WINNER = {"banker": BANKER, "player": PLAYER, "tie": TIE, BANKER: BANKER, PLAYER: PLAYER, TIE: TIE}


class BoardInputError(TableError, ValueError):
    """A result the board cannot use (the message names the round and the field)."""


def history_for(game: str, table_id: str, settings: BoardSettings = BoardSettings(),
                table: TableInfo | None = None) -> History:
    board = BOARD_OF_GAME.get(game)
    if board is None:
        raise BoardInputError(f"no result board for game {game!r}; boards exist for {sorted(BOARD_OF_GAME)}")
    if board in ("cussec", "banca_francesa"):
        return ThreeDiceHistory(board, table_id, settings, table)
    cls = {"roulette": RouletteHistory, "baccarat": BaccaratHistory, "craps": CrapsHistory,
           "paikao": PaiKaoHistory, "chemin_de_fer": ChemindeFerHistory, "blackjack": BlackjackHistory}[board]
    return cls(table_id, settings, table)


def history_for_config(config: TableConfig, source: str = "<config>") -> History | None:
    """The board history a table configuration gets, with its `[board]` settings and its limits and
    paytable; None for a game that has no result board."""
    game = type(config.game).__struct_config__.tag
    if game not in BOARD_OF_GAME:
        return None
    b = config.board
    table_id = config.table.id if config.table is not None else game
    history = history_for(game, table_id, BoardSettings(b.last_n, b.window, b.hot_cold, b.languages),
                          table_info(config, source))
    if isinstance(history, RouletteHistory):
        history.wheel = config.game.wheel  # the board shows the wheel order the config names
    return history


def _pair(cards: Any) -> bool:
    """The first two cards of a hand have the same rank ("9h", "9s"; rank is all but the suit)."""
    return isinstance(cards, list) and len(cards) >= 2 and str(cards[0])[:-1] == str(cards[1])[:-1]


class BoardKeeper:
    """The board of one table, fed with the table's result and event payloads."""

    def __init__(self, game: str, table_id: str, settings: BoardSettings = BoardSettings(),
                 table: TableInfo | None = None, history: History | None = None) -> None:
        self.game = game
        self.history = history if history is not None else history_for(game, table_id, settings, table)
        self.resets = 0  # how many times the history was emptied (a new one is journalled by `follow`)

    def replay(self, journal: Any) -> int:
        """Rebuild the board from a journal (`firmware_host.journal.Journal`) after a restart: from the
        last `board_reset` record (or the journal's start), its `result` and `event` records in order,
        through the same code as the live table. Returns how many results the board holds."""
        mark = journal.last_record((RESET_RECORD,))
        after = 0
        if mark is not None:
            self._reset(**mark.data())
            after = mark.seq
        for record in journal.records(kinds=BOARD_KINDS, after=after):
            self.apply(record.kind, record.data())
        return self.history.size()

    def follow(self, txn: Any, kind: str, data: bytes, topic: str) -> None:
        """The live table: `data` (a `result` or `event` payload) was just journalled in `txn`
        (`firmware_host.journal.Transaction`); journal a reset and publish the board (retained) in
        the same transaction when it changed."""
        resets = self.resets
        if not self.apply(kind, msgspec.json.decode(data)):
            return
        if self.resets != resets:
            txn.record(RESET_RECORD, self.reset_mark())
        self.publish(txn, topic)

    def publish(self, txn: Any, topic: str) -> None:
        """Queue the board, retained, in the journal's outbox (its `seq` is filled in there)."""
        txn.publish(topic, self.message(txn.utc), retain=True)

    def apply(self, kind: str, payload: Mapping[str, Any]) -> bool:
        """A journalled `result` or `event` payload; True when the board changed. A payload the board
        cannot use is logged and skipped (live and in a replay alike): a board never stops a round."""
        try:
            return self.on_result(payload) if kind == "result" else self.on_event(payload)
        except BoardInputError as exc:
            log.error("board: %s: skipped", exc)
            return False

    def message(self, utc: str) -> BoardMessage:
        return self.history.message(utc)

    def reset_mark(self) -> dict[str, Any]:
        """What a `board_reset` record holds: the reason, and a card game's shoe number."""
        h = self.history
        return {"reason": h.reset_reason, "shoe": h.shoe if isinstance(h, ShoeHistory) else None}

    def _reset(self, reason: str | None, shoe: int | None = None) -> None:
        self.history.reset(reason)
        if shoe is not None and isinstance(self.history, ShoeHistory):
            self.history.shoe = shoe
        self.resets += 1

    def on_event(self, event: Mapping[str, Any]) -> bool:
        """Apply an `event` payload; True when the board changed (or must be shown again)."""
        kind, h = event.get("kind"), self.history
        detail = event.get("detail") or {}
        if kind == "table_opened":
            if not isinstance(h, ShoeHistory):  # a card game's board follows the shoe, not the session
                self._reset("new_session")
            return True
        if kind == "new_shoe" and isinstance(h, ShoeHistory):
            shoe = detail.get("shoe")
            self._reset("new_shoe", shoe if isinstance(shoe, int) and not isinstance(shoe, bool) else h.shoe + 1)
            return True
        if kind == "last_coup" and isinstance(h, BaccaratHistory):
            h.announce_last_coup()
            return True
        if kind == "new_shooter" and isinstance(h, CrapsHistory):
            shooter = detail.get("shooter")
            h.new_shooter(int(shooter) if isinstance(shooter, int) else h.shooter + 1)
            return True
        return False

    def on_result(self, result: Mapping[str, Any]) -> bool:
        """Apply a `result` payload; True when the board changed (False for a void attempt)."""
        if result.get("void"):
            return False
        where = f"result of round {result.get('round_id') or result.get('round')}"
        ref = {"round": result.get("round"), "round_id": result.get("round_id")}
        outcome = result.get("outcome") or {}
        h = self.history
        try:
            if isinstance(h, RouletteHistory):
                h.add(Spin(result["number"], outcome.get("direction")), **ref)
            elif isinstance(h, BaccaratHistory):
                cards = result.get("cards") or {}
                winner = WINNER.get(outcome.get("winner"))
                if winner is None:
                    raise BoardInputError(f"{where}: outcome.winner is {outcome.get('winner')!r}, "
                                          f"not banker, player or tie")
                banker_pair = outcome.get("banker_pair", _pair(cards.get("banker")))
                player_pair = outcome.get("player_pair", _pair(cards.get("player")))
                h.add(Coup(winner, bool(banker_pair), bool(player_pair)), **ref,
                      last_coup=bool(outcome.get("last_coup", False)))
            elif isinstance(h, BlackjackHistory):
                dealer = outcome["dealer"]
                h.add(BlackjackCoup(tuple(map(str, dealer["cards"])), int(dealer["total"]), bool(dealer["bust"]),
                                    bool(dealer["blackjack"]), len(outcome["boxes"])), **ref)
            elif isinstance(h, CrapsHistory):
                faces = self._faces(result)
                # the service's own state, when it sends it, wins over the board's reckoning
                point_before = outcome.get("point_before", h.point) or 0
                shooter_before = outcome.get("shooter", h.shooter)
                point_after, shooter_after = craps_state_after(point_before, shooter_before, faces)
                if "point_after" in outcome:
                    point_after = outcome["point_after"] or 0
                shooter_after = outcome.get("shooter_after", shooter_after)
                h.add(faces, point_before, point_after, shooter_before, shooter_after, **ref)
            elif isinstance(h, PaiKaoHistory):
                h.add(self._faces(result), **ref, winning_seats=tuple(outcome.get("winning_seats", ())))
            else:
                h.add(self._faces(result), **ref)
        except (KeyError, TypeError) as exc:
            raise BoardInputError(f"{where}: missing or malformed field {exc}") from None
        except ValueError as exc:
            if isinstance(exc, BoardInputError):
                raise
            raise BoardInputError(f"{where}: {exc}") from None
        return True

    def _faces(self, result: Mapping[str, Any]) -> tuple[int, ...]:
        faces = tuple(result["faces"])
        outcome_index(faces, DICE[BOARD_OF_GAME[self.game]])  # refuses anything but n faces 1-6
        return faces
