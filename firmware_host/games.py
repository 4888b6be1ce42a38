"""From a validated configuration to the rules core's game objects."""

from __future__ import annotations

from fractions import Fraction

from .config import (BancaFrancesaGame, BlackjackGame, ChemindeFerGame, CrapsGame, CussecGame, PaiKaoGame,
                     PuntoBancoGame, RouletteGame, TableConfig)
from .errors import ConfigError
from .rules.banca_francesa import BancaFrancesa
from .rules.craps import Craps
from .rules.cussec import Cussec
from .rules.dice_game import DiceGame
from .rules.stakes import Limits
from .rules.errors import RulebookError
from .rules.blackjack import Blackjack
from .rules.chemin_de_fer import ChemindeFer
from .rules.money import RoundingMode, RoundingRule, parse_ratio
from .rules.paikao_game import PaiKao
from .rules.punto_banco import PuntoBanco
from .rules.roulette import Roulette

# The card and wheel games (issue 3): `build_table_game` makes their rule books, and P'ai Kao's hands.
TABLE_GAMES = (PuntoBancoGame, RouletteGame, ChemindeFerGame, BlackjackGame)


def limits_of(config: TableConfig) -> Limits:
    """The rules core's `Limits` from the `[limits]` section."""
    section = config.limits
    return Limits(section.minimum, section.maximum, dict(section.per_bet_maximum), dict(section.stake_step),
                  section.all_multiples_of_minimum)


def build_dice_game(config: TableConfig, source: str = "<config>") -> DiceGame:
    """The rule book a config describes; rule book errors are reported as config errors."""
    game = config.game
    money = config.money
    rounding = RoundingRule(money.payout_unit, RoundingMode(money.rounding))
    common = {"minor_units_per_unit": money.minor_units_per_unit}
    try:
        limits = limits_of(config)
        if isinstance(game, CrapsGame):
            field_12 = parse_ratio(game.field_12_pays) if game.field_12_pays else None
            return Craps(game.rulebook, limits, rounding, field_12_pays=field_12, bar=game.bar,
                         odds_multiple=game.odds_multiple, odds_withdrawal=game.odds_withdrawal, **common)
        if isinstance(game, CussecGame):
            paytable = {bet: parse_ratio(r) for bet, r in game.paytable.items()}
            return Cussec(game.rulebook, limits, rounding, paytable=paytable, **common)
        if isinstance(game, BancaFrancesaGame):
            return BancaFrancesa(game.rulebook, limits, rounding, touched_dice_losers=game.touched_dice_losers, **common)
    except RulebookError as exc:
        raise ConfigError(f"{source}: {exc.key or 'game'}: {exc.message}") from None
    raise ConfigError(f"{source}: game.name: {type(game).__name__} has no bets settled by dice")


def build_table_game(config: TableConfig, source: str = "<config>"):
    """The rule book of a card, wheel or tile game; rule book errors are reported as config errors."""
    game, money = config.game, config.money
    rounding = RoundingRule(money.payout_unit, RoundingMode(money.rounding))
    common = {"minor_units_per_unit": money.minor_units_per_unit}
    try:
        limits = limits_of(config)
        if isinstance(game, PuntoBancoGame):
            return PuntoBanco(game.rulebook, limits, rounding, decks=game.decks, tie_pays=parse_ratio(game.tie_pays),
                              commission=Fraction(game.commission_pct, 100), max_difference=game.max_difference, **common)
        if isinstance(game, ChemindeFerGame):
            return ChemindeFer(game.rulebook, limits, rounding, commission=Fraction(game.commission_pct, 100),
                               bank_minimum=game.bank_minimum, **common)
        if isinstance(game, BlackjackGame):
            return Blackjack(game.rulebook, limits, rounding, decks=game.decks, boxes=game.boxes,
                             dealer_blackjack_takes=game.dealer_blackjack_takes, resplit_aces=game.resplit_aces, **common)
        if isinstance(game, PaiKaoGame):
            return PaiKao(game.rulebook, limits, rounding, commission=Fraction(game.commission_pct, 100),
                          banker_capital_caps=game.banker_capital_caps, **common)
        if isinstance(game, RouletteGame):
            return Roulette(game.rulebook, game.wheel, limits, rounding, corner_max_ratio=game.corner_max_ratio, **common)
    except RulebookError as exc:
        raise ConfigError(f"{source}: {exc.key or 'game'}: {exc.message}") from None
    raise ConfigError(f"{source}: game.name: {type(game).__name__} is not a card, wheel or tile game")
