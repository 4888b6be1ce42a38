"""The books' schema: migrations applied once, in order, recorded; edited or newer schemas refused. The ledger
consumes only the MQTT contract: it never loads the round engine, the rules or the journal."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading

import pytest

from firmware_host.ledger.database import Database, split_statements
from firmware_host.ledger.errors import MigrationError
from firmware_host.ledger.migrate import MIGRATIONS, available, current_version, migrate

from .rig import ROOT


def test_migrations_apply_once_and_are_recorded(books_url):
    database = Database.connect(books_url)
    try:
        assert migrate(database) == [m.name for m in available()]
        assert migrate(database) == []
        assert current_version(database) == len(available())
        rows = database.run(lambda s: s.all("SELECT version, name, sha256 FROM schema_version ORDER BY version"))
        assert [(v, n, h) for v, n, h in rows] == [(m.version, m.name, m.sha256) for m in available()]
    finally:
        database.close()


def test_two_instances_starting_together_migrate_once(books_url):
    errors, applied = [], []

    def start():
        database = Database.connect(books_url)
        try:
            applied.append(migrate(database))
        except Exception as exc:  # the test reports whatever went wrong in either thread
            errors.append(exc)
        finally:
            database.close()
    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == [] and sorted(len(a) for a in applied) == [0, len(available())]


def test_an_edited_migration_is_refused(books_url, tmp_path):
    database = Database.connect(books_url)
    try:
        migrate(database)
        edited = tmp_path / "migrations"
        shutil.copytree(MIGRATIONS, edited)
        first = sorted(edited.glob("*.sql"))[0]
        first.write_text(first.read_text() + "\n-- a quiet edit\n")
        with pytest.raises(MigrationError, match="a shipped migration was edited"):
            migrate(database, folder=edited)
    finally:
        database.close()


def test_books_newer_than_this_release_are_refused(books_url, tmp_path):
    database = Database.connect(books_url)
    try:
        migrate(database)
        newer = tmp_path / "migrations"
        shutil.copytree(MIGRATIONS, newer)
        (newer / f"{len(available()) + 1:04d}_later.sql").write_text("CREATE TABLE later (x INTEGER);\n")
        migrate(database, folder=newer)
        with pytest.raises(MigrationError, match="newer than this release knows"):
            migrate(database)
    finally:
        database.close()


def test_a_hole_in_the_migrations_is_refused(tmp_path):
    (tmp_path / "0002_second.sql").write_text("CREATE TABLE x (y INTEGER);\n")
    with pytest.raises(MigrationError, match="migration 1 is missing"):
        available(tmp_path)


def test_statements_are_split_where_sqlite_says_they_end():
    text = "-- comment\nCREATE TABLE a (x TEXT DEFAULT ';');\n\nCREATE INDEX b ON a (x);\n"
    assert split_statements(text) == ["CREATE TABLE a (x TEXT DEFAULT ';');", "CREATE INDEX b ON a (x);"]


def test_the_ledger_never_loads_the_round_engine_rules_or_journal():
    probe = ("import sys, firmware_host.ledger.intake, firmware_host.ledger.report, firmware_host.ledger.report_text;"
             "print(' '.join(m for m in sys.modules if m.startswith(('firmware_host.rounds', 'firmware_host.rules', "
             "'firmware_host.journal', 'firmware_host.service', 'firmware_host.outbox', 'firmware_host.simulation'))))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []
