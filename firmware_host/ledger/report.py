"""The books as a report: per table and shift, slot meters and payback per machine, the floor total.

    report = build_report(database, ReportRequest(tables=("craps-1",), start=..., end=...))

A round belongs to the shift its settlement's `utc` falls in; a void attempt and an override to the
shift of their own `utc`. Shifts start at the configured hours (default 06, 14, 22) in a time zone
(default UTC); their bounds are printed in UTC. Money is integer minor units of the round's currency;
totals are never added across currencies.

- `bets`, `staked`: the bet lines decided in the shift (a multi-roll bet that stays is counted once, in
  the round that decides it; `stay` lines are not a stake again);
- `paid`, `kept`, `returned`: summed over every bet line; `breakage` exactly (a fraction of a minor unit);
- `hold` = (kept - paid) / staked, exact, shown as a percentage (breakage apart);
- voids by reason: every void result (void attempts and voided rounds) by its `reason`;
- overrides: supervisor overrides (events) and results entered by hand, with who and why;
- slots: per machine, the first and last meter snapshot (game 0) in the period, the summed deltas, and
  payback = (coin out + jackpot) / coin in, in credits as the meters count them;
- camera calibrations: per dice table, the calibration told at its last start before the period's end and the
  changes told in the period (report_calibrations.py).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta, timezone
from fractions import Fraction
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..clock import utc_text
from .booking import fraction
from .database import Database, Session
from .errors import ReportError
from .report_calibrations import TableCalibrations, calibrations_of


@dataclass(frozen=True)
class ReportRequest:
    tables: tuple[str, ...] = ()
    start: datetime | None = None
    end: datetime | None = None
    shift_starts: tuple[int, ...] = (6, 14, 22)
    timezone: str = "UTC"


@dataclass
class Money:
    """The sums one table-shift (or the floor, per currency) adds up."""

    rounds: int = 0
    voided_rounds: int = 0
    bets: int = 0
    staked: int = 0
    paid: int = 0
    kept: int = 0
    returned: int = 0
    breakage: Fraction = Fraction(0)

    def add(self, other: Money) -> None:
        for name in ("rounds", "voided_rounds", "bets", "staked", "paid", "kept", "returned", "breakage"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def hold(self) -> Fraction | None:
        return Fraction(self.kept - self.paid, self.staked) if self.staked else None


@dataclass
class Override:
    utc: str
    round: int | None
    kind: str
    who: str | None
    why: str | None


@dataclass
class ShiftBooks:
    table: str
    shift_start: str
    shift_end: str
    game: str
    currency: str
    money: Money = field(default_factory=Money)
    voids: dict[str, int] = field(default_factory=dict)
    overrides: list[Override] = field(default_factory=list)


@dataclass
class MachineBooks:
    machine: str
    snapshots: int
    first_utc: str
    first: dict[str, int]
    last_utc: str
    last: dict[str, int]
    played: dict[str, int]  # summed deltas: coin_in, coin_out, jackpot, games_played ...

    @property
    def payback(self) -> Fraction | None:
        coin_in = self.played.get("coin_in", 0)
        return Fraction(self.played.get("coin_out", 0) + self.played.get("jackpot", 0), coin_in) if coin_in else None


@dataclass
class Report:
    request: ReportRequest
    start: str
    end: str
    shifts: list[ShiftBooks]
    machines: list[MachineBooks]
    floor: dict[str, Money]  # currency -> totals
    floor_tables: dict[str, int]
    anomalies: dict[str, int]
    open_gaps: int
    unfillable_gaps: int
    calibrations: list[TableCalibrations] = field(default_factory=list)  # dice tables' cameras (report_calibrations)


def parse_when(text: str | None, what: str) -> datetime | None:
    """A UTC date or date-time from the command line (an explicit offset is honoured)."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ReportError(f"{what} {text!r}: expected a date (2026-03-02) or a time (2026-03-02T06:00)") from None
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def parse_shift_starts(text: str) -> tuple[int, ...]:
    try:
        hours = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise ReportError(f"--shifts {text!r}: expected hours like 06,14,22") from None
    if not hours or any(not 0 <= h <= 23 for h in hours):
        raise ReportError(f"--shifts {text!r}: hours from 0 to 23, at least one")
    return hours


class ShiftCalendar:
    """Which shift a UTC instant falls in: its start and end, in UTC text."""

    def __init__(self, starts: tuple[int, ...], zone: str) -> None:
        try:
            self.zone = ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ReportError(f"--tz {zone!r}: not a time zone (e.g. UTC, Europe/Lisbon, Asia/Macau)") from None
        self.starts = starts

    def shift_of(self, utc: str) -> tuple[str, str]:
        local = datetime.fromisoformat(utc.replace("Z", "+00:00")).astimezone(self.zone)
        day = local.date()
        candidates = [datetime.combine(day + timedelta(days=d), time(h), self.zone)
                      for d in (-1, 0, 1) for h in self.starts]
        start = max(c for c in candidates if c <= local)
        end = min(c for c in candidates if c > start)
        return _text(start), _text(end)


def _text(moment: datetime) -> str:
    return utc_text(moment.timestamp())


def build_report(database: Database, request: ReportRequest) -> Report:
    calendar = ShiftCalendar(request.shift_starts, request.timezone)
    if request.start and request.end and request.start >= request.end:
        raise ReportError("--from must be before --to")
    return database.run(lambda session: _build(session, request, calendar))


def _build(session: Session, request: ReportRequest, calendar: ShiftCalendar) -> Report:
    # From the first round or event booked (a table may start, and tell its calibration, before its first round).
    first = min((t for t in (session.value("SELECT MIN(utc) FROM rounds"), session.value("SELECT MIN(utc) FROM events"))
                 if t), default=None) or utc_text(datetime.now(timezone.utc).timestamp())
    start = _text(request.start) if request.start else first
    end = _text(request.end) if request.end else utc_text(datetime.now(timezone.utc).timestamp() + 0.001)
    only, params = "", ()
    if request.tables:
        only = " AND table_id IN (" + ", ".join("?" * len(request.tables)) + ")"
        params = request.tables
    shifts: dict[tuple[str, str], ShiftBooks] = {}
    games = dict(session.all("SELECT table_id, MAX(game) FROM results WHERE utc >= ? AND utc < ?" + only +
                             " GROUP BY table_id", (start, end, *params)))

    def books_of(table: str, utc: str, currency: str) -> ShiftBooks:
        begin, finish = calendar.shift_of(utc)
        key = (table, begin, currency)
        if key not in shifts:
            shifts[key] = ShiftBooks(table, begin, finish, games.get(table, ""), currency)
        return shifts[key]

    currency_of: dict[str, str] = {}
    for table, round_no, utc, void, currency in session.all(
            "SELECT table_id, round, utc, void, currency FROM rounds WHERE utc >= ? AND utc < ?" + only +
            " ORDER BY table_id, round", (start, end, *params)):
        books = books_of(table, utc, currency)
        currency_of[table] = currency
        if void:
            books.money.voided_rounds += 1
        else:
            books.money.rounds += 1
    for table, utc, currency, result, stake, paid, kept, returned, breakage in session.all(
            "SELECT b.table_id, r.utc, r.currency, b.result, b.stake, b.paid, b.kept, b.returned, b.breakage "
            "FROM bets b JOIN rounds r ON r.table_id = b.table_id AND r.round = b.round "
            "WHERE r.utc >= ? AND r.utc < ?" + only.replace("table_id", "r.table_id"), (start, end, *params)):
        money = books_of(table, utc, currency).money
        if result != "stay":
            money.bets += 1
            money.staked += stake
        money.paid += paid
        money.kept += kept
        money.returned += returned
        if breakage != "0/1":
            money.breakage += fraction(breakage)
    for table, utc, reason in session.all("SELECT table_id, utc, reason FROM results WHERE void AND utc >= ? AND "
                                          "utc < ?" + only, (start, end, *params)):
        voids = books_of(table, utc, currency_of.get(table, "")).voids
        voids[reason or "unknown"] = voids.get(reason or "unknown", 0) + 1
    for table, utc, round_no, who, why in session.all(
            "SELECT table_id, utc, round, manual_who, manual_why FROM results WHERE manual_who IS NOT NULL AND "
            "utc >= ? AND utc < ?" + only, (start, end, *params)):
        books_of(table, utc, currency_of.get(table, "")).overrides.append(
            Override(utc, round_no, "manual_result", who, why))
    for table, utc, round_no, kind, who, why in session.all(
            "SELECT table_id, utc, round, kind, who, why FROM events WHERE kind = 'supervisor_override' AND "
            "utc >= ? AND utc < ?" + only, (start, end, *params)):
        books_of(table, utc, currency_of.get(table, "")).overrides.append(Override(utc, round_no, kind, who, why))
    for books in shifts.values():
        books.overrides.sort(key=lambda o: o.utc)
    floor: dict[str, Money] = defaultdict(Money)
    floor_tables: dict[str, set[str]] = defaultdict(set)
    for books in shifts.values():
        if books.currency:
            floor[books.currency].add(books.money)
            floor_tables[books.currency].add(books.table)
    anomalies = dict(session.all("SELECT kind, COUNT(*) FROM anomalies WHERE detected_utc >= ? AND detected_utc < ?" +
                                 only + " GROUP BY kind", (start, end, *params)))
    open_gaps = session.value("SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL AND unfillable_utc IS NULL" + only,
                              params)
    unfillable = session.value("SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL AND unfillable_utc IS NOT NULL" +
                               only, params)
    return Report(request, start, end, sorted(shifts.values(), key=lambda b: (b.table, b.shift_start, b.currency)),
                  _machines(session, start, end), dict(sorted(floor.items())),
                  {c: len(t) for c, t in floor_tables.items()}, anomalies, open_gaps, unfillable,
                  calibrations_of(session, start, end, request.tables))


def _machines(session: Session, start: str, end: str) -> list[MachineBooks]:
    machines: dict[str, MachineBooks] = {}
    for machine, utc, meters, deltas in session.all(
            "SELECT machine, utc, meters, deltas FROM slot_meters WHERE game = 0 AND utc >= ? AND utc < ? "
            "ORDER BY machine, utc, seq", (start, end)):
        meters, deltas = json.loads(meters), json.loads(deltas)
        books = machines.get(machine)
        if books is None:
            books = machines[machine] = MachineBooks(machine, 0, utc, meters, utc, meters, {})
        books.snapshots += 1
        books.last_utc, books.last = utc, meters
        for name, value in deltas.items():
            books.played[name] = books.played.get(name, 0) + value
    return list(machines.values())
