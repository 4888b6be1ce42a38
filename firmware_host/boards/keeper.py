"""A table's board kept from the service's own payloads (docs/mqtt.md): every `result` and `event`
goes through `BoardKeeper`, which says whether the retained `board` must be published again.

Working from the published payloads (as plain JSON data) keeps boards out of the round engine:
the service calls `on_result` / `on_event` in the journal transaction that publishes them, and
after a restart replays the current session's results and events from the journal to rebuild
the same board. Void attempts change nothing (they have no result). The board is reset when the
table opens (`table_opened`: a new session) and, at baccarat, at a new shoe (`new_shoe`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .baccarat_roads import BANKER, PLAYER, TIE, Coup
from ..config import TableConfig
from ..errors import TableError
from ..rules.dice import outcome_index
from .dice_history import craps_state_after
from .history import (BaccaratHistory, BoardSettings, CrapsHistory, History, PaiKaoHistory, RouletteHistory,
                      ThreeDiceHistory)
from .payload import BoardMessage, TableInfo
from .results_text import DICE
from .table_info import table_info
from .roulette_stats import Spin

# The service's game names (config [game] name) and the board each gets.
BOARD_OF_GAME = {"roulette": "roulette", "punto_banco": "baccarat", "baccarat": "baccarat", "craps": "craps",
                 "cussec": "cussec", "banca_francesa": "banca_francesa", "paikao": "paikao"}
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
           "paikao": PaiKaoHistory}[board]
    return cls(table_id, settings, table)


def history_for_config(config: TableConfig, source: str = "<config>") -> History | None:
    """The board history a table configuration gets, with its `[board]` settings and its limits and
    paytable; None for a game that has no result board (blackjack, chemin de fer)."""
    game = type(config.game).__struct_config__.tag
    if game not in BOARD_OF_GAME:
        return None
    b = config.board
    table_id = config.table.id if config.table is not None else game
    return history_for(game, table_id, BoardSettings(b.last_n, b.window, b.hot_cold), table_info(config, source))


def _pair(cards: Any) -> bool:
    """The first two cards of a hand have the same rank ("9h", "9s"; rank is all but the suit)."""
    return isinstance(cards, list) and len(cards) >= 2 and str(cards[0])[:-1] == str(cards[1])[:-1]


class BoardKeeper:
    """The board of one table, fed with the table's result and event payloads."""

    def __init__(self, game: str, table_id: str, settings: BoardSettings = BoardSettings(),
                 table: TableInfo | None = None, history: History | None = None) -> None:
        self.game = game
        self.history = history if history is not None else history_for(game, table_id, settings, table)

    def replay(self, journal: Any) -> int:
        """Rebuild the board from a journal (`firmware_host.journal.Journal`) after a restart: its
        `result` and `event` records, in order (a `table_opened` event starts the session again).
        Returns how many results the board holds afterwards."""
        for record in journal.records(kinds=("result", "event")):
            data = record.data()
            if record.kind == "event":
                self.on_event(data)
            else:
                self.on_result(data)
        return self.history.size()

    def message(self, utc: str) -> BoardMessage:
        return self.history.message(utc)

    def on_event(self, event: Mapping[str, Any]) -> bool:
        """Apply an `event` payload; True when the board changed."""
        kind, h = event.get("kind"), self.history
        if kind == "table_opened":
            h.reset("new_session")
            return True
        if kind == "new_shoe" and isinstance(h, BaccaratHistory):
            h.reset("new_shoe")
            return True
        if kind == "last_coup" and isinstance(h, BaccaratHistory):
            h.announce_last_coup()
            return True
        if kind == "new_shooter" and isinstance(h, CrapsHistory):
            shooter = (event.get("detail") or {}).get("shooter")
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
            elif isinstance(h, CrapsHistory):
                faces = self._faces(result)
                # the service's own state, when it sends it, wins over the board's reckoning
                point_before = outcome.get("point_before", h.point) or 0
                shooter_before = outcome.get("shooter", h.shooter)
                point_after, shooter_after = craps_state_after(point_before, shooter_before, faces)
                if "point_after" in outcome:
                    point_after = outcome["point_after"] or 0
                h.add(faces, point_before, point_after, shooter_before, shooter_after, **ref)
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
