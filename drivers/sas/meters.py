"""SAS meter codes (Table C-7) with their 0x2F sizes, and the fixed layouts of 0x0F-0x1C.

Long poll 0x2F reports each meter in the number of BCD bytes this table gives (the "meter-size
table"): 4 bytes for credit and count meters, 5 bytes for the ticket and AFT amounts kept in cents.
Long polls 0x6F/0xAF carry the size in the reply, up to 9 bytes (18 digits). The 4-byte polls
(0x10-0x1C) report the low 8 digits, so the host takes deltas modulo 10**8 (see `bcd_modulus`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import SasFrameError


@dataclass(frozen=True, slots=True)
class MeterCode:
    code: int
    name: str
    size: int  # BCD bytes in a 0x2F reply
    unit: str  # "credits", "cents" or "count"


_CREDITS, _CENTS, _COUNT = "credits", "cents", "count"

_TABLE = [
    MeterCode(0x00, "coin_in", 4, _CREDITS),
    MeterCode(0x01, "coin_out", 4, _CREDITS),
    MeterCode(0x02, "jackpot", 4, _CREDITS),
    MeterCode(0x03, "handpaid_cancelled_credits", 4, _CREDITS),
    MeterCode(0x04, "cancelled_credits", 4, _CREDITS),
    MeterCode(0x05, "games_played", 4, _COUNT),
    MeterCode(0x06, "games_won", 4, _COUNT),
    MeterCode(0x07, "games_lost", 4, _COUNT),
    MeterCode(0x08, "credits_from_coin_acceptor", 4, _CREDITS),
    MeterCode(0x09, "credits_paid_from_hopper", 4, _CREDITS),
    MeterCode(0x0A, "credits_from_coins_to_drop", 4, _CREDITS),
    MeterCode(0x0B, "credits_from_bills_accepted", 4, _CREDITS),
    MeterCode(0x0C, "current_credits", 4, _CREDITS),
    MeterCode(0x0D, "sas_cashable_ticket_in_cents", 5, _CENTS),
    MeterCode(0x0E, "sas_cashable_ticket_out_cents", 5, _CENTS),
    MeterCode(0x0F, "sas_restricted_ticket_in_cents", 5, _CENTS),
    MeterCode(0x10, "sas_restricted_ticket_out_cents", 5, _CENTS),
    MeterCode(0x11, "sas_cashable_ticket_in_count", 4, _COUNT),
    MeterCode(0x12, "sas_cashable_ticket_out_count", 4, _COUNT),
    MeterCode(0x13, "sas_restricted_ticket_in_count", 4, _COUNT),
    MeterCode(0x14, "sas_restricted_ticket_out_count", 4, _COUNT),
    MeterCode(0x15, "ticket_in_credits", 4, _CREDITS),
    MeterCode(0x16, "ticket_out_credits", 4, _CREDITS),
    MeterCode(0x17, "electronic_transfers_to_machine", 4, _CREDITS),
    MeterCode(0x18, "electronic_transfers_to_host", 4, _CREDITS),
    MeterCode(0x19, "restricted_amount_played", 4, _CREDITS),
    MeterCode(0x1A, "nonrestricted_amount_played", 4, _CREDITS),
    MeterCode(0x1B, "current_restricted_credits", 4, _CREDITS),
    MeterCode(0x1C, "machine_paid_paytable_win", 4, _CREDITS),
    MeterCode(0x1D, "machine_paid_progressive_win", 4, _CREDITS),
    MeterCode(0x1E, "machine_paid_external_bonus_win", 4, _CREDITS),
    MeterCode(0x1F, "attendant_paid_paytable_win", 4, _CREDITS),
    MeterCode(0x20, "attendant_paid_progressive_win", 4, _CREDITS),
    MeterCode(0x21, "attendant_paid_external_bonus_win", 4, _CREDITS),
    MeterCode(0x22, "won_credits", 4, _CREDITS),
    MeterCode(0x23, "hand_paid_credits", 4, _CREDITS),
    MeterCode(0x24, "total_drop", 4, _CREDITS),
    MeterCode(0x25, "games_since_power_reset", 4, _COUNT),
    MeterCode(0x26, "games_since_slot_door_closure", 4, _COUNT),
    MeterCode(0x7F, "weighted_average_theoretical_payback_pct", 4, _COUNT),
    MeterCode(0x80, "cashable_ticket_in_cents", 5, _CENTS),
    MeterCode(0x81, "cashable_ticket_in_count", 4, _COUNT),
    MeterCode(0x82, "restricted_ticket_in_cents", 5, _CENTS),
    MeterCode(0x83, "restricted_ticket_in_count", 4, _COUNT),
    MeterCode(0x84, "nonrestricted_ticket_in_cents", 5, _CENTS),
    MeterCode(0x85, "nonrestricted_ticket_in_count", 4, _COUNT),
    MeterCode(0x86, "cashable_ticket_out_cents", 5, _CENTS),
    MeterCode(0x87, "cashable_ticket_out_count", 4, _COUNT),
    MeterCode(0x88, "restricted_ticket_out_cents", 5, _CENTS),
    MeterCode(0x89, "restricted_ticket_out_count", 4, _COUNT),
    MeterCode(0xA0, "aft_cashable_in_cents", 5, _CENTS),
    MeterCode(0xA1, "aft_cashable_in_count", 4, _COUNT),
    MeterCode(0xB8, "aft_cashable_out_cents", 5, _CENTS),
    MeterCode(0xB9, "aft_cashable_out_count", 4, _COUNT),
]

METER_CODES: dict[int, MeterCode] = {m.code: m for m in _TABLE}
METER_BY_NAME: dict[str, MeterCode] = {m.name: m for m in _TABLE}


def meter_size(code: int) -> int:
    """BCD bytes of meter `code` in a 0x2F reply; a code outside the table cannot be framed."""
    try:
        return METER_CODES[code].size
    except KeyError:
        raise SasFrameError(f"meter code 0x{code:02X} is not in the 0x2F meter-size table") from None


def meter_name(code: int) -> str:
    """The name used in snapshots; codes outside the table are named by number."""
    meter = METER_CODES.get(code)
    return meter.name if meter else f"meter_0x{code:04X}"


def meter_code(name: str) -> int:
    try:
        return METER_BY_NAME[name].code
    except KeyError:
        raise SasFrameError(f"unknown meter name {name!r}") from None


# Fixed layouts: every field is a 4-byte BCD meter unless the poll says otherwise.
SINGLE_METER_POLLS: dict[int, str] = {
    0x10: "cancelled_credits",
    0x11: "coin_in",
    0x12: "coin_out",
    0x13: "total_drop",
    0x14: "jackpot",
    0x15: "games_played",
    0x16: "games_won",
    0x17: "games_lost",
    0x1A: "current_credits",
}
MULTI_METER_POLLS: dict[int, tuple[str, ...]] = {
    0x0F: ("cancelled_credits", "coin_in", "coin_out", "total_drop", "jackpot", "games_played"),
    0x19: ("coin_in", "coin_out", "total_drop", "jackpot", "games_played"),
    0x1C: ("coin_in", "coin_out", "total_drop", "jackpot", "games_played", "games_won",
           "slot_door_opened", "power_resets"),
}
# 0x18: two 2-byte BCD counters.
GAMES_SINCE_FIELDS = ("games_since_power_reset", "games_since_slot_door_closure")
