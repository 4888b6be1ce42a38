"""The ledger report printed: text for a person, CSV for a spreadsheet (money always in minor units)."""

from __future__ import annotations

import csv
import io
from fractions import Fraction

from .report import Money, Report
from .report_calibrations import CalibrationChange, CalibrationTold, TableCalibrations, is_sha256

CSV_COLUMNS = ["section", "table", "machine", "shift_start", "shift_end", "currency", "rounds", "voided_rounds",
               "voids", "bets", "staked", "paid", "kept", "returned", "breakage", "hold_pct", "overrides",
               "snapshots", "first_utc", "last_utc", "coin_in", "coin_out", "jackpot", "games_played", "payback_pct",
               "calibration", "epoch", "seq", "calibration_sha256", "empty_table_sha256", "previous_calibration_sha256",
               "previous_empty_table_sha256", "alarmed_utc"]
SHORT = 16  # hex digits of a digest in the text (as the evidence images are stamped); the CSV has all 64


def percent(value: Fraction | None) -> str:
    """An exact ratio as a percentage rounded half away from zero to 2 decimals ("-" when undefined)."""
    if value is None:
        return "-"
    hundredths = value * 10_000
    rounded = int(abs(hundredths) + Fraction(1, 2)) * (1 if hundredths >= 0 else -1)
    sign = "-" if rounded < 0 else ""
    return f"{sign}{abs(rounded) // 100}.{abs(rounded) % 100:02d}%"


def fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def voids_text(voids: dict[str, int]) -> str:
    return ", ".join(f"{reason} {count}" for reason, count in sorted(voids.items())) or "none"


def money_line(money: Money, currency: str) -> str:
    return (f"bets {money.bets}  staked {money.staked}  paid {money.paid}  kept {money.kept}  returned "
            f"{money.returned}  {currency}  breakage {fraction_text(money.breakage)}  hold {percent(money.hold)}")


def render_text(report: Report) -> str:
    out = [f"tablehw ledger report  {report.start} .. {report.end} (UTC)  shifts start at "
           f"{', '.join(f'{h:02d}:00' for h in report.request.shift_starts)} {report.request.timezone}",
           "money in minor units of each table's currency; hold = (kept - paid) / staked", ""]
    if not report.shifts:
        out.append("no rounds booked in this period")
    for books in report.shifts:
        m = books.money
        out.append(f"{books.table} ({books.game or '?'})  shift {books.shift_start} .. {books.shift_end}")
        out.append(f"  rounds {m.rounds}  voided rounds {m.voided_rounds}  voids by reason: {voids_text(books.voids)}")
        out.append(f"  {money_line(m, books.currency)}")
        for o in books.overrides:
            out.append(f"  override {o.utc} round {o.round} {o.kind} by {o.who}: {o.why}")
    if report.machines:
        out += ["", "slot machines (meters in credits, game 0)"]
    for machine in report.machines:
        played = machine.played
        out.append(f"  {machine.machine}: {machine.snapshots} snapshots {machine.first_utc} .. {machine.last_utc}  "
                   f"coin in {played.get('coin_in', 0)}  coin out {played.get('coin_out', 0)}  jackpot "
                   f"{played.get('jackpot', 0)}  games {played.get('games_played', 0)}  payback "
                   f"{percent(machine.payback)}")
        out.append(f"    first {_meters(machine.first)}")
        out.append(f"    last  {_meters(machine.last)}")
    if report.calibrations:
        out += ["", f"dice tables' camera calibrations (SHA-256, first {SHORT} hex digits; compare them with the "
                    "digests approved at installation, printed by `tablehw vision calibrate`)"]
    for table in report.calibrations:
        out += calibration_lines(table)
    out += ["", "floor total"]
    if not report.floor:
        out.append("  nothing booked")
    for currency, money in report.floor.items():
        out.append(f"  {currency}: {report.floor_tables[currency]} tables  rounds {money.rounds}  voided rounds "
                   f"{money.voided_rounds}  {money_line(money, currency)}")
    health = ", ".join(f"{kind} {count}" for kind, count in sorted(report.anomalies.items())) or "none"
    out += ["", f"books: anomalies in this period: {health}; gaps open {report.open_gaps}, "
                f"gaps the controllers could not fill {report.unfillable_gaps}"]
    return "\n".join(out) + "\n"


def calibration_lines(table: TableCalibrations) -> list[str]:
    told = table.in_use
    out = [f"  {table.table}: in use {_where(told)}: calibration {_short(told.sha256)}  empty table "
           f"{_short(told.empty_table_sha256)}"]
    if not table.changes:
        out.append("    no change told in this period")
    for change in table.changes:
        new = change.told
        parts = [f"calibration {_short(change.previous_sha256)} -> {_short(new.sha256)}"
                 if change.previous_sha256 != new.sha256 else "calibration unchanged",
                 f"empty table {_short(change.previous_empty_table_sha256)} -> {_short(new.empty_table_sha256)}"
                 if change.previous_empty_table_sha256 != new.empty_table_sha256 else "empty table unchanged"]
        alarm = f"alarm sent {change.alarmed_utc}" if change.alarmed_utc else "alarm not yet sent"
        out.append(f"    changed {_where(new)}: {'; '.join(parts)}; {alarm}")
    return out


def _where(told: CalibrationTold) -> str:
    return f"{told.utc} (epoch {told.epoch} seq {told.seq})"


def _short(digest: str | None) -> str:
    """A SHA-256 by its first SHORT hex digits; what report_calibrations.digest says of anything else, whole ("?" when
    none was told)."""
    if not digest:
        return "?"
    return digest[:SHORT] if is_sha256(digest) else digest


def _meters(meters: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(meters.items()))


def render_csv(report: Report) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for books in report.shifts:
        writer.writerow({"section": "table", "table": books.table, "shift_start": books.shift_start,
                         "shift_end": books.shift_end, "currency": books.currency,
                         "voids": ";".join(f"{r}={n}" for r, n in sorted(books.voids.items())),
                         "overrides": ";".join(f"{o.utc} {o.kind} {o.who}: {o.why}" for o in books.overrides),
                         **_money_columns(books.money)})
    for machine in report.machines:
        played = machine.played
        writer.writerow({"section": "machine", "machine": machine.machine, "snapshots": machine.snapshots,
                         "first_utc": machine.first_utc, "last_utc": machine.last_utc,
                         "coin_in": played.get("coin_in", 0), "coin_out": played.get("coin_out", 0),
                         "jackpot": played.get("jackpot", 0), "games_played": played.get("games_played", 0),
                         "payback_pct": percent(machine.payback).rstrip("%")})
    for table in report.calibrations:
        rows = [("in_use", table.in_use, None)] + [("changed", c.told, c) for c in table.changes]
        for what, told, change in rows:
            before = change or CalibrationChange(told, None, None, None)  # in use: no digests before, no alarm
            writer.writerow({"section": "calibration", "table": table.table, "calibration": what,
                             "first_utc": told.utc, "epoch": told.epoch, "seq": told.seq,
                             "calibration_sha256": told.sha256 or "",
                             "empty_table_sha256": told.empty_table_sha256 or "",
                             "previous_calibration_sha256": before.previous_sha256 or "",
                             "previous_empty_table_sha256": before.previous_empty_table_sha256 or "",
                             "alarmed_utc": before.alarmed_utc or ""})
    for currency, money in report.floor.items():
        writer.writerow({"section": "floor", "shift_start": report.start, "shift_end": report.end,
                         "currency": currency, **_money_columns(money)})
    return buffer.getvalue()


def _money_columns(money: Money) -> dict:
    return {"rounds": money.rounds, "voided_rounds": money.voided_rounds, "bets": money.bets, "staked": money.staked,
            "paid": money.paid, "kept": money.kept, "returned": money.returned,
            "breakage": fraction_text(money.breakage), "hold_pct": percent(money.hold).rstrip("%")}
