"""A throw-away PostgreSQL cluster for tests: initdb + pg_ctl on a temp dir and a free loopback port.

The machines run as root and initdb/pg_ctl refuse root, so they run as the `postgres` user (the Debian
package creates it) on a directory it owns. `make test` installs the package when it is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from tests.service.broker import free_port


def pg_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian keeps them under /usr/lib/postgresql/N/bin)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class PostgresCluster:
    """One cluster; `database()` gives each test a fresh, empty database of its own."""

    def __init__(self) -> None:
        self.bin = pg_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed: `make test` installs the Debian package postgresql")
        self.directory = Path(tempfile.mkdtemp(prefix="tablehw-pg-"))  # not under pytest's root-only tmp dirs
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.directory, "postgres")
        self.admin_url = f"postgresql://tablehw@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout_s: float = 60) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")

    def start(self) -> PostgresCluster:
        self._run("initdb", "-D", str(self.directory / "data"), "-A", "trust", "-U", "tablehw", "--no-sync",
                  "-E", "UTF8")
        self.resume()
        return self

    def resume(self) -> None:
        """(Re)start the server on its data directory."""
        self._run("pg_ctl", "-D", str(self.directory / "data"), "-o", f"-p {self.port} -k {self.directory} "
                  "-c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=60",
                  "-l", str(self.directory / "log"), "-w", "-t", "60", "start")

    def halt(self) -> None:
        """Stop the server at once (as a crash would), keeping its data for `resume`."""
        self._run("pg_ctl", "-D", str(self.directory / "data"), "-m", "immediate", "-w", "stop")

    def database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"books_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql://tablehw@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self.halt()
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)
