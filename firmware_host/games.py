"""From a validated configuration to the rules core's game objects."""

from __future__ import annotations

from .config import BancaFrancesaGame, CrapsGame, CussecGame, TableConfig
from .errors import ConfigError
from .rules.banca_francesa import BancaFrancesa
from .rules.craps import Craps
from .rules.cussec import Cussec
from .rules.dice_game import DiceGame, Limits
from .rules.errors import RulebookError
from .rules.money import RoundingMode, RoundingRule, parse_ratio


def build_dice_game(config: TableConfig, source: str = "<config>") -> DiceGame:
    """The rule book a config describes; rule book errors are reported as config errors."""
    game = config.game
    money = config.money
    rounding = RoundingRule(money.payout_unit, RoundingMode(money.rounding))
    limits = Limits(config.limits.minimum, config.limits.maximum, dict(config.limits.per_bet_maximum))
    common = {"minor_units_per_unit": money.minor_units_per_unit}
    try:
        if isinstance(game, CrapsGame):
            field_12 = parse_ratio(game.field_12_pays) if game.field_12_pays else None
            return Craps(game.rulebook, limits, rounding, field_12_pays=field_12, bar=game.bar,
                         odds_multiple=game.odds_multiple, **common)
        if isinstance(game, CussecGame):
            paytable = {bet: parse_ratio(r) for bet, r in game.paytable.items()}
            return Cussec(game.rulebook, limits, rounding, paytable=paytable, **common)
        if isinstance(game, BancaFrancesaGame):
            return BancaFrancesa(game.rulebook, limits, rounding, **common)
    except RulebookError as exc:
        raise ConfigError(f"{source}: game: {exc}") from None
    raise ConfigError(f"{source}: game.name: {type(game).__name__} has no bets settled by dice")
