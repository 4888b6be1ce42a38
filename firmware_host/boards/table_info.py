"""Table limits and paytable for boards, read from the table's configuration and rule book.

Regulations require the limits and what each bet pays be visible before betting; boards show
them from the same rules objects that settle and limit the bets, so a board cannot disagree with
the table (banca francesa's per-bet maxima come from its rule book, 004 §IV.17; roulette's from
the X.27 ratios; punto banco's from II.20).
"""

from __future__ import annotations

from ..config import BlackjackGame, ChemindeFerGame, PaiKaoGame, PuntoBancoGame, RouletteGame, TableConfig
from ..games import build_dice_game, build_table_game
from ..rules.money import format_ratio
from ..rules.roulette import CHANCES, PAYMENT_ORDER
from .payload import PaytableRow, TableInfo


def _rows_and_maxima(config: TableConfig, source: str) -> tuple[list[PaytableRow], dict[str, int]]:
    game = config.game
    if isinstance(game, PaiKaoGame):
        rows = [PaytableRow("hand", "1:1", condition=f"{game.commission_pct}% commission on wins (002 Art. 4.2); "
                                                     "copies win for the banker")]
        return rows, dict(config.limits.per_bet_maximum)
    if isinstance(game, RouletteGame):
        rules = build_table_game(config, source)
        rows = [PaytableRow(bet, format_ratio(CHANCES[bet].pays)) for bet in PAYMENT_ORDER]
        return rows, {bet: rules.maximum_for(bet) for bet in PAYMENT_ORDER}
    if isinstance(game, PuntoBancoGame):
        rules = build_table_game(config, source)
        rows = [PaytableRow("player", "1:1"),
                PaytableRow("banker", format_ratio(rules.banker_pays),
                            condition=f"{game.commission_pct}% commission on banker wins"),
                PaytableRow("tie", format_ratio(rules.tie_pays), condition="player and banker push on a tie")]
        maxima = {bet: rules.maximum_for(bet) for bet in ("player", "banker", "tie")}
        return rows, {bet: m for bet, m in maxima.items() if m is not None}
    if isinstance(game, BlackjackGame):
        rows = [PaytableRow("box", "1:1", condition="a push on equal totals (V.21)"),
                PaytableRow("blackjack", "3:2", condition="V.21"),
                PaytableRow("even money", "1:1", condition="a blackjack against the dealer's ace (V.34)"),
                PaytableRow("insurance", "2:1", condition="up to half the box's stake (V.33)"),
                PaytableRow("surrender", "1:2", condition="half the stake returned (V.36)")]
        return rows, dict(config.limits.per_bet_maximum)
    if isinstance(game, ChemindeFerGame):
        rules = build_table_game(config, source)
        rows = [PaytableRow("player", "1:1", condition="a punter against the bank"),
                PaytableRow("banker", format_ratio(rules.bank_pays),
                            condition=f"the bank's wins less {game.commission_pct}% (I.47)"),
                PaytableRow("tie", "0:1", condition="equal points: the coup is void, stakes returned (I.76)")]
        return rows, dict(config.limits.per_bet_maximum)
    rules = build_dice_game(config, source)
    rows = [PaytableRow(r.bet, r.pays, r.number, r.condition) for r in rules.edge_rows()]
    return rows, dict(rules.limits.per_bet_maximum)


def table_info(config: TableConfig, source: str = "<config>") -> TableInfo:
    """Limits (minor units) and every bet the configuration allows with what it pays."""
    rows, maxima = _rows_and_maxima(config, source)
    return TableInfo(
        rulebook=config.game.rulebook, currency=config.money.currency,
        minor_units_per_unit=config.money.minor_units_per_unit, minimum=config.limits.minimum,
        maximum=config.limits.maximum, per_bet_maximum=maxima, paytable=rows)
