"""General poll exception codes (SAS Appendix A) and the groups the slot service acts on."""

from __future__ import annotations

NAMES: dict[int, str] = {
    0x00: "no_activity",
    0x11: "slot_door_opened", 0x12: "slot_door_closed",
    0x13: "drop_door_opened", 0x14: "drop_door_closed",
    0x15: "card_cage_opened", 0x16: "card_cage_closed",
    0x17: "ac_power_applied", 0x18: "ac_power_lost",
    0x19: "cashbox_door_opened", 0x1A: "cashbox_door_closed",
    0x1B: "cashbox_removed", 0x1C: "cashbox_installed",
    0x1D: "belly_door_opened", 0x1E: "belly_door_closed",
    0x1F: "no_activity_waiting_for_player",
    0x20: "general_tilt", 0x21: "coin_in_tilt", 0x22: "coin_out_tilt", 0x23: "hopper_empty",
    0x24: "extra_coin_paid", 0x25: "diverter_malfunction", 0x27: "cashbox_full", 0x28: "bill_jam",
    0x29: "bill_acceptor_hardware_failure", 0x2A: "reverse_bill", 0x2B: "bill_rejected",
    0x2C: "counterfeit_bill", 0x2D: "reverse_coin_in", 0x2E: "cashbox_near_full",
    0x31: "cmos_ram_error_data_recovered", 0x32: "cmos_ram_error_no_data_recovered",
    0x33: "cmos_ram_error_bad_device", 0x34: "eeprom_error_data", 0x35: "eeprom_error_bad_device",
    0x36: "eprom_error_version_changed", 0x37: "eprom_error_bad_checksum",
    0x38: "partitioned_eprom_error_version_changed", 0x39: "partitioned_eprom_error_bad_checksum",
    0x3A: "memory_error_reset", 0x3B: "low_backup_battery", 0x3C: "operator_changed_options",
    0x3D: "cash_out_ticket_printed", 0x3E: "handpay_validated",
    0x4F: "bill_accepted",
    0x51: "handpay_pending", 0x52: "handpay_reset", 0x53: "no_progressive_info_5s",
    0x54: "progressive_win", 0x55: "player_cancelled_handpay", 0x56: "sas_progressive_level_hit",
    0x57: "system_validation_request",
    0x66: "cash_out_button_pressed", 0x6F: "game_locked", 0x70: "exception_buffer_overflow",
    0x7A: "soft_meters_reset", 0x7B: "bill_validator_totals_reset",
    0x7E: "game_started", 0x7F: "game_ended",
    0x82: "display_meters_entered", 0x83: "display_meters_exited",
    0x84: "self_test_entered", 0x85: "self_test_exited", 0x86: "out_of_service",
    0x98: "power_off_card_cage_access", 0x99: "power_off_slot_door_access",
    0x9A: "power_off_cashbox_door_access", 0x9B: "power_off_drop_door_access",
}

DOORS = frozenset({0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E,
                   0x98, 0x99, 0x9A, 0x9B})
POWER = frozenset({0x17, 0x18})
HANDPAY = frozenset({0x51, 0x52, 0x55})
PROGRESSIVE = frozenset({0x53, 0x54, 0x56})
# Memory faults and meter resets: the meters can no longer be trusted (004 VIII: meters that
# always work and are reliable, or the machine may not be opened for play).
METER_FAULTS = frozenset({0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x7A})
PRIORITY = frozenset({0x51, 0x52, 0x56, 0x57, 0x67, 0x68, 0x69, 0x6A, 0x6B})


def exception_name(code: int) -> str:
    return NAMES.get(code, f"exception_0x{code:02X}")


def exception_kind(code: int) -> str:
    """A coarse family for the floor system: door, power, handpay, progressive, meter_fault, other."""
    for family, codes in (("door", DOORS), ("power", POWER), ("handpay", HANDPAY),
                          ("progressive", PROGRESSIVE), ("meter_fault", METER_FAULTS)):
        if code in codes:
            return family
    return "other"
