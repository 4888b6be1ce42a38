"""A dice table started on another camera calibration than the start before: a `calibration_changed` anomaly in the
books, whatever order the notices are booked in (firmware_host/ledger/calibrations.py; the notice is the camera's
`camera_calibration`, docs/mqtt.md). Real engines: a SQLite file and a PostgreSQL cluster."""

from __future__ import annotations

import csv
import io
import json

from firmware_host.cli import main
from firmware_host.ledger.report import ReportRequest, build_report, parse_when

from .feed import TableFeed
from .test_booking import book, followed, kinds, rows

APPROVED = {"sha256": "a" * 64, "empty_table_sha256": "b" * 64}
EDITED = {"sha256": "c" * 64, "empty_table_sha256": "b" * 64}  # the file edited, the photo as it was


def started(feed: TableFeed, digests: dict) -> tuple[str, bytes]:
    """The notice a dice table's camera publishes at a start (firmware_host/camera_validation.py)."""
    return feed.event("device", detail={"device": "camera", "notice": "camera_calibration", "message": "...",
                                        "layout": "craps", **digests})


def test_starts_on_the_approved_calibration_book_no_anomaly(books):
    feed = TableFeed("craps-1", seed=1)
    messages = [started(feed, APPROVED)] + followed(feed.rounds(3)) + [started(feed, APPROVED)]
    assert book(books, messages).anomalies == []
    assert kinds(books) == []


def test_a_start_on_another_calibration_is_an_anomaly_naming_both(books):
    feed = TableFeed("craps-2", seed=2)
    first = started(feed, APPROVED)
    rounds = followed(feed.rounds(2))
    second = started(feed, EDITED)
    book(books, [first] + rounds)
    outcome = book(books, [second])
    assert [a.kind for a in outcome.anomalies] == ["calibration_changed"]
    anomaly = outcome.anomalies[0]
    assert (anomaly.table, anomaly.epoch, anomaly.seq) == ("craps-2", feed.epoch, feed.seq)  # the start that changed
    assert anomaly.detail == {"previous_epoch": feed.epoch, "previous_seq": 1, "previous_sha256": "a" * 64,
                              "sha256": "c" * 64, "previous_empty_table_sha256": "b" * 64,
                              "empty_table_sha256": "b" * 64}
    assert kinds(books) == ["calibration_changed"]


def test_both_starts_of_a_change_booked_in_one_batch_find_it_once(books):
    feed = TableFeed("craps-6", seed=7)
    outcome = book(books, [started(feed, APPROVED), started(feed, EDITED)])
    assert [(a.kind, a.seq) for a in outcome.anomalies] == [("calibration_changed", 2)]


def test_notices_booked_out_of_order_or_again_find_the_change_once(books):
    """The later start booked first (a gap filled afterwards, another instance): the earlier one, booked later,
    finds it as its neighbour; booking everything again finds nothing new."""
    feed = TableFeed("craps-3", seed=3)
    first = started(feed, APPROVED)
    middle = followed(feed.rounds(2))
    second = started(feed, EDITED)
    third = started(feed, EDITED)  # a restart on the same (edited) calibration: no change from the one before
    at = json.loads(second[1])["seq"]
    assert book(books, [third, second]).anomalies == []  # nothing before them in the books yet
    outcome = book(books, [first] + middle)
    assert [(a.kind, a.seq) for a in outcome.anomalies] == [("calibration_changed", at)]  # at the second start
    assert book(books, [first, second, third] + middle).anomalies == []
    assert rows(books, "SELECT kind, seq FROM anomalies") == [("calibration_changed", at)]


def test_a_new_journal_epoch_started_on_another_calibration_is_both_anomalies(books):
    old = TableFeed("craps-4", seed=4)
    book(books, [started(old, APPROVED)] + followed(old.rounds(2)))
    new = TableFeed("craps-4", seed=5, first_round=old.round_no + 1)
    outcome = book(books, [started(new, EDITED)] + followed(new.rounds(1)))
    assert sorted(a.kind for a in outcome.anomalies) == ["calibration_changed", "epoch_change"]
    changed = next(a for a in outcome.anomalies if a.kind == "calibration_changed")
    assert (changed.detail["previous_epoch"], changed.epoch) == (old.epoch, new.epoch)


def test_a_notice_that_is_not_the_camera_s_is_not_compared(books):
    """Only `device` events carry the camera's notice: a dealer action whose detail says camera_calibration, or a
    notice whose digests are not text, is booked as sent and compared with nothing it is not."""
    feed = TableFeed("craps-5", seed=6)
    approved = started(feed, APPROVED)
    forged = feed.event("dealer_action", detail={"notice": "camera_calibration", "sha256": "f" * 64})
    odd = started(feed, {"sha256": ["not", "text"], "empty_table_sha256": None})
    outcome = book(books, [approved, forged])
    assert outcome.anomalies == []
    outcome = book(books, [odd])
    assert [a.kind for a in outcome.anomalies] == ["calibration_changed"]
    assert outcome.anomalies[0].detail["sha256"] == ["not", "text"]


def utc_of(message: tuple[str, bytes]) -> str:
    return json.loads(message[1])["utc"]


def test_the_report_lists_the_calibration_in_use_and_the_changes_told_in_the_period(books, books_url, capsys):
    """`tablehw ledger report`: per dice table, the calibration told at its last start before the period's end, for
    the back office to compare with the digests approved at installation, and each change told in the period, with
    when its alarm went out."""
    feed = TableFeed("craps-7", seed=8, seconds_per_message=60)
    first = started(feed, APPROVED)
    rounds = followed(feed.rounds(2))
    second = started(feed, EDITED)
    book(books, [first] + rounds + [second])
    before, at = parse_when(utc_of(second), "--to"), json.loads(second[1])["seq"]

    (earlier,) = build_report(books, ReportRequest(end=before)).calibrations
    assert (earlier.table, earlier.in_use.sha256, earlier.in_use.seq, earlier.changes) == ("craps-7", "a" * 64, 1, ())
    (now,) = build_report(books, ReportRequest(start=before)).calibrations
    assert (now.in_use.sha256, now.in_use.empty_table_sha256, now.in_use.seq) == ("c" * 64, "b" * 64, at)
    (change,) = now.changes
    assert (change.told.seq, change.previous_sha256, change.alarmed_utc) == (at, "a" * 64, None)

    books.run(lambda s: s.execute("UPDATE anomalies SET alarmed_utc = ? WHERE kind = 'calibration_changed'",
                                  ("2026-03-02T09:30:00.000Z",)))  # as the warden marks it on the broker's PUBACK
    assert main(["ledger", "report", "--db", books_url, "--table", "craps-7", "--from", utc_of(first)]) == 0
    text = capsys.readouterr().out
    assert f"craps-7: in use {utc_of(second)} (epoch {feed.epoch} seq {at}): calibration {'c' * 16}  empty table " \
           f"{'b' * 16}" in text
    assert f"changed {utc_of(second)} (epoch {feed.epoch} seq {at}): calibration {'a' * 16} -> {'c' * 16}; empty " \
           "table unchanged; alarm sent 2026-03-02T09:30:00.000Z" in text
    assert main(["ledger", "report", "--db", books_url, "--csv", "--from", utc_of(first)]) == 0
    rows_ = [r for r in csv.DictReader(io.StringIO(capsys.readouterr().out)) if r["section"] == "calibration"]
    assert [(r["calibration"], r["calibration_sha256"], r["previous_calibration_sha256"], r["alarmed_utc"])
            for r in rows_] == [("in_use", "c" * 64, "", ""), ("changed", "c" * 64, "a" * 64, "2026-03-02T09:30:00.000Z")]


def test_the_report_of_another_table_or_of_no_dice_table_lists_no_calibration(books):
    feed = TableFeed("craps-8", seed=9)
    book(books, [started(feed, APPROVED)] + followed(feed.rounds(1)))
    assert build_report(books, ReportRequest(tables=("craps-9",))).calibrations == []
    (table,) = build_report(books, ReportRequest(tables=("craps-8",))).calibrations
    assert table.changes == () and table.in_use.sha256 == "a" * 64


def test_a_notice_whose_digest_is_not_a_sha256_is_reported_as_not_a_digest_cut_short(books, books_url, capsys):
    feed = TableFeed("craps-10", seed=10)
    long = "z" * 5000  # text, but no SHA-256: shown cut short
    book(books, [started(feed, APPROVED), started(feed, {"sha256": ["not", "text"], "empty_table_sha256": None}),
                 started(feed, {"sha256": long, "empty_table_sha256": "B" * 64})])
    (table,) = build_report(books, ReportRequest()).calibrations
    first, second = table.changes
    assert first.told.sha256 == 'not a digest: ["not", "text"]' and first.told.empty_table_sha256 is None
    assert first.previous_sha256 == "a" * 64
    assert second.told.sha256 == 'not a digest: "' + "z" * 63 and second.told.empty_table_sha256 == \
        'not a digest: "' + "B" * 63  # upper case: not the hex a SHA-256 is told in
    assert main(["ledger", "report", "--db", books_url]) == 0
    text = capsys.readouterr().out
    assert f"calibration not a digest: \"{'z' * 63}  empty table not a digest: \"{'B' * 63}\n" in text  # in use
    assert f"calibration {'a' * 16} -> not a digest: [\"not\", \"text\"]; empty table {'b' * 16} -> ?;" in text
