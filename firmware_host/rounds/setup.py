"""From a table config to the game's round family, its result board and the engine's settings."""

from __future__ import annotations

from typing import Any, Callable

from ..boards.keeper import BoardKeeper, history_for_config
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
                          max_attempts=table.max_attempts, access=config.access)


def game_name(config: TableConfig) -> str:
    return type(config.game).__struct_config__.tag


def board_keeper(config: TableConfig, source: str) -> BoardKeeper | None:
    """The table's result board (boards/keeper.py) with its `[board]` settings, limits and paytable;
    None for a game without one. The engine feeds it; the service replays the journal into it at start."""
    history = history_for_config(config, source)
    return None if history is None else BoardKeeper(game_name(config), config.table.id, history=history)


def family_factory(config: TableConfig, source: str) -> Callable[[Any], Any]:
    """`factory(engine) -> Family` for the configured game; a game the service cannot run is a config error."""
    from .families import CussecFamily, DiceFamily

    game = config.game
    if isinstance(game, (CrapsGame, BancaFrancesaGame)):
        rules = build_dice_game(config, source)
        return lambda engine: DiceFamily(engine, rules)
    if isinstance(game, CussecGame):
        rules = build_dice_game(config, source)
        return lambda engine: CussecFamily(engine, rules)
    name = game_name(config)
    if name in TABLE_FAMILIES:
        from importlib import import_module

        from ..games import build_table_game

        module, cls_name = TABLE_FAMILIES[name]
        cls = getattr(import_module(module, __package__), cls_name)
        rules = build_table_game(config, source)
        return lambda engine: cls(engine, rules)
    raise ConfigError(f"{source}: game.name: `tablehw run` does not run {name} tables yet "
                      f"(craps, banca_francesa, cussec and {', '.join(TABLE_FAMILIES)} are supported)")


# The card, wheel and tile games' round families: game -> (module, class), imported when the table starts.
TABLE_FAMILIES = {"roulette": (".table_families", "RouletteFamily"), "punto_banco": (".table_families", "BaccaratFamily"),
                  "blackjack": (".blackjack_table", "BlackjackFamily"),
                  "chemin_de_fer": (".chemin_de_fer_table", "ChemindeFerFamily"),
                  "paikao": (".paikao_family", "PaiKaoFamily")}
