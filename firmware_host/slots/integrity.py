"""Meter integrity, with no I/O: deltas modulo each meter's BCD size, backwards meters, self-audits.

Portugal 1995 (004 §VIII) requires coins-in, prizes-paid and coins-collected meters that always work;
a machine whose meters fail may not be opened for play. A meter read as (game, name, digits): the 4-byte
polls give 8 digits, 0x6F/0xAF give what the machine reports. Between two readings a meter may only
go forward; it wraps at 10**digits, so a reading below the previous one is a rollover only when the
forward distance modulo 10**digits is within `rollover_window` of the modulus. Anything else - a RAM
clear, a swapped board, a corrupted meter - is a fault. The self-audit checks meters of one reply
against each other: games played = games won + games lost (modulo the size), and, against the last
reply of the same poll, games won <= games played and coin in per game between one credit and the
machine's maximum bet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

ROLLOVER_WINDOW = Fraction(1, 100)


@dataclass(frozen=True, slots=True)
class MeterFault:
    """Why the meters of a machine can no longer be trusted."""

    kind: str  # "went_backwards", "self_audit" or "memory_error"
    meter: str | None
    detail: str


@dataclass(frozen=True, slots=True)
class MeterReading:
    """Meters from one reply: name -> value, all of the same game and digit count."""

    game: int
    digits: int
    values: dict[str, int]

    def key(self, name: str) -> str:
        return f"{self.game}/{name}/{self.digits}"


@dataclass(frozen=True, slots=True)
class MeterCheck:
    deltas: dict[str, int] = field(default_factory=dict)  # name -> forward movement since the baseline
    rollovers: tuple[str, ...] = ()
    faults: tuple[MeterFault, ...] = ()


def meter_delta(previous: int, current: int, digits: int, window: Fraction = ROLLOVER_WINDOW) -> int | None:
    """Forward movement from `previous` to `current` on a meter of `digits` digits, or None if it went back."""
    modulus = 10 ** digits
    if current >= previous:
        return current - previous
    forward = current + modulus - previous
    return forward if forward <= window * modulus else None


def check_reading(baseline: dict[str, int], reading: MeterReading, *, previous: dict[str, int] | None = None,
                  max_bet: int | None = None, window: Fraction = ROLLOVER_WINDOW) -> MeterCheck:
    """Compare a reading with the baseline (key -> value, whichever reply gave it last): the deltas to
    account and any meter that went back. `previous` is the last reading *of the same poll*: the
    self-audit compares meters that moved together in one consistent snapshot."""
    deltas: dict[str, int] = {}
    rollovers: list[str] = []
    faults: list[MeterFault] = []
    for name, value in reading.values.items():
        key = reading.key(name)
        if key not in baseline:
            continue
        delta = meter_delta(baseline[key], value, reading.digits, window)
        if delta is None:
            faults.append(MeterFault("went_backwards", name, f"{name} (game {reading.game}) went from "
                                     f"{baseline[key]} to {value}, beyond any rollover of {reading.digits} digits"))
        else:
            deltas[name] = delta
            if value < baseline[key]:
                rollovers.append(name)
    if not faults:
        faults += identity_audit(reading)
    if not faults and previous:
        moved = {n: meter_delta(previous[n], v, reading.digits, window) for n, v in reading.values.items()
                 if n in previous}
        faults += self_audit({n: d for n, d in moved.items() if d is not None}, max_bet)
    return MeterCheck(deltas, tuple(rollovers), tuple(faults))


def identity_audit(reading: MeterReading) -> list[MeterFault]:
    """Games played = games won + games lost, modulo the meters' size (every game is won or lost)."""
    v = reading.values
    if not {"games_played", "games_won", "games_lost"} <= v.keys():
        return []
    if (v["games_won"] + v["games_lost"] - v["games_played"]) % 10 ** reading.digits:
        return [MeterFault("self_audit", "games_played", f"games played {v['games_played']} is not games won "
                           f"{v['games_won']} + games lost {v['games_lost']} (game {reading.game})")]
    return []


def self_audit(deltas: dict[str, int], max_bet: int | None = None) -> list[MeterFault]:
    """Cross-checks of the meters that moved in one reply (a consistent snapshot of the machine)."""
    faults = []
    played, won, lost = deltas.get("games_played"), deltas.get("games_won"), deltas.get("games_lost")
    if None not in (played, won, lost) and played != won + lost:
        faults.append(MeterFault("self_audit", "games_played",
                                 f"games played moved {played} but games won + lost moved {won} + {lost}"))
    if played is not None and won is not None and won > played:
        faults.append(MeterFault("self_audit", "games_won", f"games won moved {won}, more than games played {played}"))
    coin_in = deltas.get("coin_in")
    if played is not None and coin_in is not None:
        if coin_in < played:
            faults.append(MeterFault("self_audit", "coin_in",
                                     f"coin in moved {coin_in} credits for {played} games (less than one credit a game)"))
        elif max_bet and coin_in > played * max_bet:
            faults.append(MeterFault("self_audit", "coin_in", f"coin in moved {coin_in} credits for {played} "
                                     f"games, above the maximum bet of {max_bet}"))
    return faults


def apply_reading(baseline: dict[str, int], reading: MeterReading) -> dict[str, int]:
    """The baseline after accepting `reading` (a new dict)."""
    return baseline | {reading.key(name): value for name, value in reading.values.items()}
