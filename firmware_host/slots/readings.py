"""Meter replies turned into readings for the integrity check and the accounting, with no I/O."""

from __future__ import annotations

from drivers.sas.meters import meter_name, meter_size
from drivers.sas.replies import ExtendedMetersReply, MeterReply, Reply, SelectedMetersReply

from .integrity import MeterReading

# Meters that legitimately go down (a balance, counters reset by a door or power cycle): published,
# never checked for going backwards nor accounted.
NOT_CUMULATIVE = frozenset({"current_credits", "current_restricted_credits", "games_since_power_reset",
                            "games_since_slot_door_closure", "weighted_average_theoretical_payback_pct"})


def readings_of(reply: Reply) -> list[MeterReading]:
    """The cumulative meters in a reply, grouped by game and digit count (empty for other replies)."""
    groups: dict[tuple[int, int], dict[str, int]] = {}
    match reply:
        case MeterReply(_, command, meters) if command != 0x18:
            for name, value in meters.items():
                groups.setdefault((0, 8), {})[name] = value
        case SelectedMetersReply(_, game, meters):
            for code, value in meters.items():
                groups.setdefault((game, 2 * meter_size(code)), {})[meter_name(code)] = value
        case ExtendedMetersReply(_, _, game, meters):
            for code, (size, value) in meters.items():
                if size:
                    groups.setdefault((game, 2 * size), {})[meter_name(code)] = value
    readings = []
    for (game, digits), values in groups.items():
        values = {n: v for n, v in values.items() if n not in NOT_CUMULATIVE}
        if values:
            readings.append(MeterReading(game, digits, values))
    return readings


def accounted(deltas: dict[str, int]) -> dict[str, int]:
    """What a reading adds to the payback totals: coin in, paid (coin out + jackpot), games (credits)."""
    return {"coin_in": deltas.get("coin_in", 0),
            "paid": deltas.get("coin_out", 0) + deltas.get("jackpot", 0),
            "games": deltas.get("games_played", 0)}


def poll_name(command: int | None) -> str:
    return "general" if command is None else f"0x{command:02X}"
