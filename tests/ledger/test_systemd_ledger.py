"""The ledger's systemd unit: it verifies, and its hardening scores at most 2.0 (as the table's unit)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.service.test_systemd import ANALYZE, needs_analyze

from .rig import ROOT

UNIT = ROOT / "systemd" / "tablehw-ledger.service"


def installed_unit(tmp_path: Path) -> Path:
    tablehw = Path(sys.executable).parent / "tablehw"
    if not tablehw.exists():
        pytest.skip("the tablehw console script is not installed in this environment")
    (tmp_path / "ledger.env").write_text("LEDGER_DB=sqlite:////var/lib/tablehw-ledger/books.sqlite\n"
                                         "LEDGER_MQTT=mqtt://127.0.0.1:1883\nLEDGER_USER=ledger-1\n")
    unit = tmp_path / "tablehw-ledger.service"
    unit.write_text(UNIT.read_text().replace("/opt/tablehw/.venv/bin/tablehw", str(tablehw))
                    .replace("/etc/tablehw/ledger.env", str(tmp_path / "ledger.env")))
    return unit


def test_unit_declares_a_supervised_hardened_service():
    text = UNIT.read_text()
    for directive in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "ProtectSystem=strict",
                      "NoNewPrivileges=true", "PrivateDevices=true", "StateDirectory=tablehw-ledger",
                      "LoadCredential=mqtt-password:", "tablehw ledger --db ${LEDGER_DB} --mqtt ${LEDGER_MQTT}"):
        assert directive in text, directive


@needs_analyze
def test_systemd_analyze_verify_passes(tmp_path):
    unit = installed_unit(tmp_path)
    done = subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tablehw-ledger.service" not in done.stderr


@needs_analyze
def test_security_exposure_is_at_most_2(tmp_path):
    unit = installed_unit(tmp_path)
    done = subprocess.run([ANALYZE, "security", "--offline=true", str(unit)], capture_output=True, text=True,
                          timeout=60)
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout + done.stderr)
    assert match, done.stdout[-2000:]
    print(f"\nsystemd-analyze security --offline=true (ledger): {match.group(1)}")
    assert float(match.group(1)) <= 2.0
