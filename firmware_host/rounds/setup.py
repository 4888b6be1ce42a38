"""From a table config to the game's round family, its result-board history and the engine's settings."""

from __future__ import annotations

from typing import Any, Callable

from ..config import BancaFrancesaGame, CrapsGame, CussecGame, TableConfig
from ..errors import ConfigError
from ..games import build_dice_game
from .engine import EngineSettings


def engine_settings(config: TableConfig, *, betting_seconds: float | None = None) -> EngineSettings:
    table = config.table
    if table is None:
        raise ConfigError("the config has no [table] section (id, ...): `tablehw run` needs one")
    limits = {"minimum": config.limits.minimum, "maximum": config.limits.maximum, **config.limits.per_bet_maximum}
    return EngineSettings(table_id=table.id, game=game_name(config), rulebook=config.game.rulebook,
                          currency=config.money.currency, limits=limits, dealer_confirms=table.dealer_confirms,
                          betting_seconds=table.betting_seconds if betting_seconds is None else betting_seconds,
                          reading_timeout_s=table.reading_timeout_s, recovery=table.recovery,
                          max_attempts=table.max_attempts)


def game_name(config: TableConfig) -> str:
    return type(config.game).__struct_config__.tag


def board_history(config: TableConfig, source: str) -> Any:
    """The boards history for this game (issue 8's firmware_host.boards), or None if it has none."""
    from ..boards import history as h
    from ..boards.table_info import table_info

    name, table_id = game_name(config), config.table.id
    info = table_info(config, source)
    board = config.board
    settings = h.BoardSettings(board.last_n, board.window, board.hot_cold)
    if name == "craps":
        return h.CrapsHistory(table_id, settings, info)
    if name in ("cussec", "banca_francesa"):
        return h.ThreeDiceHistory(name, table_id, settings, info)
    if name == "roulette":
        return h.RouletteHistory(table_id, settings, info)
    if name == "punto_banco":
        return h.BaccaratHistory(table_id, settings, info)
    return None


def family_factory(config: TableConfig, source: str) -> Callable[[Any], Any]:
    """`factory(engine) -> Family` for the configured game; a game the service cannot run is a config error."""
    from .families import CussecFamily, DiceFamily

    game = config.game
    history = board_history(config, source)
    if isinstance(game, (CrapsGame, BancaFrancesaGame)):
        rules = build_dice_game(config, source)
        return lambda engine: DiceFamily(engine, rules, history)
    if isinstance(game, CussecGame):
        rules = build_dice_game(config, source)
        return lambda engine: CussecFamily(engine, rules, history)
    name = game_name(config)
    if name in ("roulette", "punto_banco"):
        from ..games import build_table_game
        from .table_families import BaccaratFamily, RouletteFamily

        rules = build_table_game(config, source)
        cls = RouletteFamily if name == "roulette" else BaccaratFamily
        return lambda engine: cls(engine, rules, history)
    raise ConfigError(f"{source}: game.name: `tablehw run` does not run {name} tables yet "
                      "(craps, banca_francesa, cussec, roulette and punto_banco are supported)")
