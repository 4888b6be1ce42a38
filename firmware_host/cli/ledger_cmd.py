"""`tablehw ledger --db URL --mqtt URL` (book every round) and `tablehw ledger report` (the books per shift)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path

from ..ledger.database import Database
from ..ledger.errors import LedgerError
from ..ledger.intake import LedgerService, LedgerSettings
from ..ledger.migrate import migrate
from ..ledger.report import ReportRequest, build_report, parse_shift_starts, parse_when
from ..ledger.report_text import render_csv, render_text

ERRORS = (LedgerError,)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "ledger", help="the back office: book every round of every table (docs/ledger.md)",
        description="Book every table's rounds exactly once (PostgreSQL or SQLite), fill gaps from the controllers, "
                    "publish the journal anchors. `tablehw ledger report` prints the books.")
    parser.add_argument("--db", metavar="URL", help="the books: postgresql://user@host/db or sqlite:///path")
    parser.add_argument("--mqtt", metavar="URL", help="broker URL, mqtt://host:port or mqtts://host:port")
    parser.add_argument("--user", default="backoffice", help="this instance's broker user name, also its client id "
                        "(one per instance; default backoffice)")
    parser.add_argument("--password-file", metavar="FILE", help="the broker password, in a file")
    parser.add_argument("--group", default="ledger", help="the shared subscription group (default ledger)")
    parser.add_argument("--prefix", default="tablehw", help="topic prefix (default tablehw)")
    parser.add_argument("--tls-ca", metavar="FILE")
    parser.add_argument("--tls-cert", metavar="FILE")
    parser.add_argument("--tls-key", metavar="FILE")
    parser.add_argument("--gap-grace", type=float, default=2.0, metavar="S",
                        help="seconds a gap may wait for the other instances before it is asked for (default 2)")
    parser.add_argument("--audit-every", type=float, default=600.0, metavar="S",
                        help="seconds between tail audits of every table (default 600)")
    parser.add_argument("--metrics-port", type=int, metavar="PORT", help="serve Prometheus metrics on this port "
                        "(docs/ledger.md; none by default)")
    parser.add_argument("--metrics-address", default="127.0.0.1", metavar="ADDRESS",
                        help="the metrics endpoint's address (default 127.0.0.1: loopback only)")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.set_defaults(func=run)
    sub = parser.add_subparsers(dest="ledger_command", metavar="report")
    report = sub.add_parser("report", help="the books per table and shift, slot payback, the floor total",
                            description="Per table and shift: rounds, voids by reason, bets, staked, paid, kept, "
                                        "returned, breakage, hold %%, overrides; slot meters and payback per "
                                        "machine; the floor total. Money in integer minor units.")
    report.add_argument("--db", metavar="URL", required=True, help="the books")
    report.add_argument("--table", action="append", metavar="T", help="only this table (repeatable; default all)")
    report.add_argument("--from", dest="start", metavar="WHEN", help="UTC date or time, e.g. 2026-03-02 or "
                        "2026-03-02T06:00 (default: the first round booked)")
    report.add_argument("--to", dest="end", metavar="WHEN", help="UTC, exclusive (default: now)")
    report.add_argument("--shifts", default="06,14,22", metavar="H,H,..",
                        help="the hours shifts start, UTC unless --tz (default 06,14,22)")
    report.add_argument("--tz", default="UTC", help="time zone of the shift hours (default UTC)")
    report.add_argument("--csv", action="store_true", help="CSV, one row per table and shift, machine, floor total")
    report.set_defaults(func=run_report)


def run(args: argparse.Namespace) -> int:
    if not args.db or not args.mqtt:
        raise LedgerError("tablehw ledger needs --db URL and --mqtt URL (or the report subcommand)")
    if args.metrics_port is not None and not 0 <= args.metrics_port <= 65535:
        raise LedgerError(f"--metrics-port {args.metrics_port}: a TCP port is 0..65535")
    logging.basicConfig(level=getattr(logging, args.log_level), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = LedgerSettings(
        books_url=args.db, mqtt_url=args.mqtt, user=args.user, group=args.group, prefix=args.prefix,
        password=broker_password(args.password_file), tls_ca=args.tls_ca, tls_cert=args.tls_cert,
        tls_key=args.tls_key, gap_grace_s=args.gap_grace, audit_every_s=args.audit_every,
        metrics_port=args.metrics_port, metrics_address=args.metrics_address)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    return LedgerService(settings).run(stop)


def broker_password(path: str | None) -> str | None:
    """The password file's first line (the ledger does not load the table service, which has its own reader)."""
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"--password-file: cannot read {path}: {exc}") from None


def run_report(args: argparse.Namespace) -> int:
    request = ReportRequest(tables=tuple(args.table or ()), start=parse_when(args.start, "--from"),
                            end=parse_when(args.end, "--to"), shift_starts=parse_shift_starts(args.shifts),
                            timezone=args.tz)
    database = Database.connect(args.db, name="tablehw-ledger-report")
    try:
        migrate(database)
        report = build_report(database, request)
    finally:
        database.close()
    print(render_csv(report) if args.csv else render_text(report), end="")
    return 0
