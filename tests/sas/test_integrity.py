"""Meter integrity (004 §VIII: meters that always work, or the machine may not be opened for play)."""

from __future__ import annotations

from fractions import Fraction

from firmware_host.slots.integrity import (MeterReading, apply_reading, check_reading, identity_audit, meter_delta,
                                           self_audit)
from firmware_host.slots.readings import readings_of
from drivers.sas.replies import ExtendedMetersReply, MeterReply, SelectedMetersReply


def test_delta_modulo_the_bcd_size():
    # PUBLISHED.md: 4-byte BCD meters, deltas taken modulo 10^8
    assert meter_delta(99_999_990, 15, 8) == 25
    assert meter_delta(100, 250, 8) == 150
    assert meter_delta(9_990, 10, 4) == 20


def test_going_back_beyond_a_rollover_is_not_a_delta():
    assert meter_delta(5_000_000, 0, 8) is None  # a RAM clear
    assert meter_delta(50_000_000, 49_999_999, 8) is None  # one credit back
    assert meter_delta(99_000_100, 10, 8, window=Fraction(1, 100)) == 999_910  # within 1 % of 10^8
    assert meter_delta(99_000_000, 10, 8, window=Fraction(1, 100)) is None  # 1,000,010: just beyond
    assert meter_delta(99_999_000, 500, 8, window=Fraction(1, 10 ** 6)) is None  # 1500 > 100: too far


def _reading(**values) -> MeterReading:
    return MeterReading(0, 8, values)


def test_check_reading_accepts_a_rollover_and_names_it():
    baseline = apply_reading({}, _reading(coin_in=99_999_995, coin_out=10, games_played=7, games_won=3))
    check = check_reading(baseline, _reading(coin_in=5, coin_out=12, games_played=8, games_won=4))
    assert check.deltas == {"coin_in": 10, "coin_out": 2, "games_played": 1, "games_won": 1}
    assert check.rollovers == ("coin_in",) and not check.faults


def test_check_reading_flags_a_ram_clear():
    baseline = apply_reading({}, _reading(coin_in=123_456, coin_out=100_000, games_played=5_000))
    check = check_reading(baseline, _reading(coin_in=0, coin_out=0, games_played=0))
    assert {f.meter for f in check.faults} == {"coin_in", "coin_out", "games_played"}
    assert all(f.kind == "went_backwards" for f in check.faults)
    assert "went from 123456 to 0" in check.faults[0].detail


def test_self_audit_games_played_equals_won_plus_lost():
    assert self_audit({"games_played": 10, "games_won": 4, "games_lost": 6}) == []
    faults = self_audit({"games_played": 10, "games_won": 5, "games_lost": 6})
    assert [f.kind for f in faults] == ["self_audit"] and "won + lost" in faults[0].detail


def test_self_audit_coin_in_per_game_within_one_credit_and_max_bet():
    assert self_audit({"games_played": 3, "coin_in": 30}, max_bet=10) == []
    assert self_audit({"games_played": 3, "coin_in": 31}, max_bet=10)[0].meter == "coin_in"
    assert self_audit({"games_played": 3, "coin_in": 2})[0].meter == "coin_in"
    assert self_audit({"games_played": 2, "games_won": 3})[0].meter == "games_won"


def test_first_reading_sets_the_baseline_without_deltas():
    check = check_reading({}, _reading(coin_in=5))
    assert check.deltas == {} and not check.faults


def test_readings_group_by_game_and_digits_and_skip_balances():
    assert readings_of(MeterReply(1, 0x1A, {"current_credits": 5})) == []
    assert readings_of(MeterReply(1, 0x18, {"games_since_power_reset": 1, "games_since_slot_door_closure": 1})) == []
    selected = readings_of(SelectedMetersReply(1, 2, {0x00: 10, 0x0D: 500, 0x0C: 3}))
    assert {(r.game, r.digits): r.values for r in selected} == {(2, 8): {"coin_in": 10},
                                                                (2, 10): {"sas_cashable_ticket_in_cents": 500}}
    extended = readings_of(ExtendedMetersReply(1, 0x6F, 0, {0x00: (5, 7), 0x01: (0, 0)}))
    assert extended == [MeterReading(0, 10, {"coin_in": 7})]


def test_identity_audit_modulo_the_meter_size():
    assert identity_audit(_reading(games_played=5, games_won=99_999_999, games_lost=6)) == []  # won rolled over
    assert identity_audit(_reading(games_played=10, games_won=4, games_lost=7))[0].kind == "self_audit"


def test_self_audit_uses_the_last_reply_of_the_same_poll():
    # another poll moved the shared baseline for played/won; only lost is new in this reply: no false alarm
    baseline = apply_reading({}, _reading(games_played=100, games_won=58, games_lost=0, coin_in=555))
    previous = {"games_played": 0, "games_won": 0, "games_lost": 0, "coin_in": 0}
    check = check_reading(baseline, _reading(games_played=100, games_won=58, games_lost=42, coin_in=555),
                          previous=previous, max_bet=10)
    assert not check.faults and check.deltas["games_lost"] == 42
    bad = check_reading(baseline, _reading(games_played=100, games_won=58, games_lost=42, coin_in=5_555),
                        previous=previous, max_bet=10)
    assert bad.faults[0].meter == "coin_in"
