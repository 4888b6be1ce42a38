"""Table limits and paytable for boards, read from the table's configuration and rule book.

Regulations require the limits and what each bet pays be visible before betting; boards show
them from the same rules objects that settle and limit the bets, so a board cannot disagree with
the table (banca francesa's per-bet maxima, for one, come from its rule book: 004 §IV.17).
"""

from __future__ import annotations

from ..config import PaiKaoGame, TableConfig
from ..games import build_dice_game
from .payload import PaytableRow, TableInfo


def table_info(config: TableConfig, source: str = "<config>") -> TableInfo:
    """Limits (minor units) and every bet the configuration allows with what it pays."""
    money = config.money
    if isinstance(config.game, PaiKaoGame):
        limits = config.limits
        rows = [PaytableRow("hand", "1:1", condition=f"{config.game.commission_pct}% commission on wins "
                                                     f"(002 Art. 4.2); copies win for the banker")]
    else:
        game = build_dice_game(config, source)
        limits = game.limits
        rows = [PaytableRow(r.bet, r.pays, r.number, r.condition) for r in game.edge_rows()]
    return TableInfo(
        rulebook=config.game.rulebook, currency=money.currency, minor_units_per_unit=money.minor_units_per_unit,
        minimum=limits.minimum, maximum=limits.maximum, per_bet_maximum=dict(limits.per_bet_maximum),
        paytable=rows)
