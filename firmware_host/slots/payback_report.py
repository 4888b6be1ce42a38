"""The payback payload of one machine: every game and window assessed against base % and the minimum."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .floor import PaybackPayload, PaybackWindow
from .payback import PaybackTotals, assess

if TYPE_CHECKING:
    from ..journal import Transaction
    from .service import SlotService


def payback_payload(service: SlotService, txn: Transaction, machine_id: str) -> PaybackPayload:
    m = service.state.machines[machine_id]
    base = service.base_return(machine_id)
    minimum = service.rules.minimum
    windows = []
    for slot, totals in sorted(m.payback.items()):
        game, window = slot.split("/")
        result = assess(window, PaybackTotals(totals.coin_in, totals.paid, totals.games), base,
                        service.sigma(machine_id), service.max_bet(machine_id), service.rules)
        actual = result.actual
        windows.append(PaybackWindow(
            game=int(game), window=window, key=totals.key, coin_in=totals.coin_in, paid=totals.paid,
            games=totals.games, actual=f"{actual.numerator}/{actual.denominator}" if actual is not None else None,
            actual_pct=round(float(actual) * 100, 4) if actual is not None else None,
            base_pct=float(base * 100) if base is not None else None, minimum_pct=float(minimum * 100),
            standard_error=result.standard_error, z_vs_base=result.z_vs_base, z_vs_minimum=result.z_vs_minimum,
            shortfall_vs_base=result.shortfall_vs_base, below_minimum=result.below_minimum))
    alarm = any(w.shortfall_vs_base or w.below_minimum for w in windows)
    return PaybackPayload(service.site, 0, txn.utc, machine=machine_id, windows=windows, alarm=alarm)
