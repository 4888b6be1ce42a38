"""`tablehw ledger report`: per table and shift, voids, overrides, slot payback, the floor total; bad arguments."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from fractions import Fraction

import pytest

from firmware_host.cli import main
from firmware_host.ledger import inbound
from firmware_host.ledger.booking import Booker
from firmware_host.ledger.report import ReportRequest, ShiftCalendar, build_report, parse_when
from firmware_host.ledger.report_text import percent

from .feed import TableFeed

UTC = "2026-03-02T09:00:00.000Z"


def book_all(books, messages):
    items = [x for x in (inbound.read("tablehw", t, p) for t, p in messages) if x is not None]
    books.run(lambda s: Booker("test").book(s, items, UTC))


def expected_by_shift(feed: TableFeed, calendar: ShiftCalendar) -> dict:
    """The report's sums worked out from the settlements as published, independently of the books."""
    out: dict = {}
    for payload in feed.settlements.values():
        shift = calendar.shift_of(payload["utc"])
        sums = out.setdefault(shift, Counter())
        sums["voided_rounds" if payload["void"] else "rounds"] += 1
        for line in payload["bets"]:
            if line["result"] != "stay":
                sums["bets"] += 1
                sums["staked"] += line["stake"]
            for name in ("paid", "kept", "returned"):
                sums[name] += line[name]
            sums["breakage"] += Fraction(line["breakage"])
    return out


def slot_meters(machine: str, seq: int, utc: str, meters: dict, deltas: dict) -> tuple[str, bytes]:
    payload = {"type": "slot_meters", "site": "floor-1", "seq": seq, "utc": utc, "schema": 1, "machine": machine,
               "game": 0, "digits": 8, "poll": "0x1C", "meters": meters, "deltas": deltas, "rollovers": [],
               "disabled": False}
    return f"tablehw/slots/{machine}/meters", json.dumps(payload).encode()


def test_each_table_and_shift_adds_up_to_the_settlements_and_the_floor_total(books):
    craps = TableFeed("craps-1", seed=21, seconds_per_message=60, void_rate=0.3)
    roulette = TableFeed("roul-1", seed=22, seconds_per_message=45, currency="MOP", game="roulette")
    book_all(books, craps.rounds(25) + roulette.rounds(25))
    calendar = ShiftCalendar((6, 14, 22), "UTC")
    report = build_report(books, ReportRequest())
    for feed in (craps, roulette):
        expected = expected_by_shift(feed, calendar)
        got = {(b.shift_start, b.shift_end): b for b in report.shifts if b.table == feed.table}
        assert set(got) == set(expected) and len(got) == 2  # the feed crosses 06:00 UTC
        for shift, sums in expected.items():
            money = got[shift].money
            assert (money.rounds, money.voided_rounds, money.bets, money.staked, money.paid, money.kept,
                    money.returned, money.breakage) == (sums["rounds"], sums["voided_rounds"], sums["bets"],
                                                        sums["staked"], sums["paid"], sums["kept"], sums["returned"],
                                                        sums["breakage"])
            assert money.hold == Fraction(sums["kept"] - sums["paid"], sums["staked"])
    floor = report.floor["MOP"]
    assert floor.staked == sum(b.money.staked for b in report.shifts)
    assert floor.rounds + floor.voided_rounds == 50 and report.floor_tables["MOP"] == 2
    voids = Counter()
    for b in report.shifts:
        if b.table == "craps-1":
            voids.update(b.voids)
    assert sum(voids.values()) > 0 and set(voids) <= {"cocked", "off_table", "overlapping", "dealer_void"}
    overrides = [o for b in report.shifts for o in b.overrides]
    assert all(o.who == "sup-2" and o.why == "camera fogged" for o in overrides)


def test_a_period_and_a_table_narrow_the_report(books):
    feed = TableFeed("bac-1", seed=23, seconds_per_message=60)
    book_all(books, feed.rounds(25) + TableFeed("bac-2", seed=24).rounds(3))
    report = build_report(books, ReportRequest(tables=("bac-1",), start=parse_when("2026-03-02T06:00", "--from"),
                                               end=parse_when("2026-03-02T14:00", "--to")))
    assert {b.table for b in report.shifts} == {"bac-1"}
    assert [(b.shift_start, b.shift_end) for b in report.shifts] == [("2026-03-02T06:00:00.000Z",
                                                                       "2026-03-02T14:00:00.000Z")]
    in_period = [p for p in feed.settlements.values() if "2026-03-02T06:00" <= p["utc"] < "2026-03-02T14:00"]
    assert report.shifts[0].money.rounds + report.shifts[0].money.voided_rounds == len(in_period)


def test_slot_meters_give_snapshots_and_payback_per_machine(books):
    book_all(books, [
        slot_meters("egm-1", 1, "2026-03-02T06:10:00.000Z", {"coin_in": 1000, "coin_out": 800, "jackpot": 0,
                                                              "games_played": 100}, {}),
        slot_meters("egm-1", 2, "2026-03-02T07:10:00.000Z", {"coin_in": 3000, "coin_out": 2400, "jackpot": 200,
                                                              "games_played": 300},
                    {"coin_in": 2000, "coin_out": 1600, "jackpot": 200, "games_played": 200}),
        slot_meters("egm-1", 2, "2026-03-02T07:10:00.000Z", {"coin_in": 3000, "coin_out": 2400, "jackpot": 200,
                                                              "games_played": 300},
                    {"coin_in": 2000, "coin_out": 1600, "jackpot": 200, "games_played": 200}),  # redelivered
    ])
    (machine,) = build_report(books, ReportRequest(start=parse_when("2026-03-02", "--from"))).machines
    assert (machine.machine, machine.snapshots, machine.first["coin_in"], machine.last["coin_in"]) == \
        ("egm-1", 2, 1000, 3000)
    assert machine.payback == Fraction(1800, 2000) and percent(machine.payback) == "90.00%"


def test_the_command_prints_text_and_csv(books, books_url, capsys):
    feed = TableFeed("craps-9", seed=25, seconds_per_message=60)
    book_all(books, feed.rounds(10))
    assert main(["ledger", "report", "--db", books_url, "--table", "craps-9", "--from", "2026-03-02"]) == 0
    text = capsys.readouterr().out
    assert "craps-9 (craps)  shift 2026-03-01T22:00:00.000Z .. 2026-03-02T06:00:00.000Z" in text
    assert "floor total" in text and "MOP: 1 tables" in text
    assert main(["ledger", "report", "--db", books_url, "--csv", "--shifts", "0", "--tz", "Asia/Macau"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    tables = [r for r in rows if r["section"] == "table"]
    assert tables[0]["shift_start"] == "2026-03-01T16:00:00.000Z"  # midnight in Macau, UTC+8
    assert sum(int(r["staked"]) for r in tables) == int(next(r for r in rows if r["section"] == "floor")["staked"])


@pytest.mark.parametrize("args, named", [
    (["--from", "yesterday"], "--from 'yesterday'"),
    (["--shifts", "6,25"], "--shifts '6,25'"),
    (["--tz", "Mars/Olympus"], "--tz 'Mars/Olympus'"),
    (["--from", "2026-03-02", "--to", "2026-03-01"], "--from must be before --to"),
])
def test_bad_arguments_are_refused_naming_them(tmp_path, capsys, args, named):
    assert main(["ledger", "report", "--db", f"sqlite:///{tmp_path / 'b.sqlite'}", *args]) == 2
    assert named in capsys.readouterr().err


def test_a_books_url_that_is_neither_engine_is_refused(capsys):
    assert main(["ledger", "report", "--db", "mysql://x"]) == 2
    assert "expected sqlite:///path or postgresql://" in capsys.readouterr().err


def test_percent_rounds_exactly():
    assert percent(Fraction(1, 8)) == "12.50%" and percent(Fraction(-1, 3)) == "-33.33%" and percent(None) == "-"
    assert percent(Fraction(2, 3)) == "66.67%"
