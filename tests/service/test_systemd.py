"""The systemd unit (verify, hardening score) and the notify protocol spoken over a real NOTIFY_SOCKET."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.sd_notify import Notifier

from .table_run import ROOT, TABLEHW, table_config

UNIT = ROOT / "systemd" / "tablehw@.service"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def installed_unit(tmp_path: Path) -> Path:
    """The unit as installed for table craps-1, its ExecStart pointing at this checkout's tablehw."""
    tablehw = Path(sys.executable).parent / "tablehw"
    if not tablehw.exists():
        pytest.skip("the tablehw console script is not installed in this environment")
    unit = tmp_path / "tablehw@craps-1.service"
    unit.write_text(UNIT.read_text().replace("/opt/tablehw/.venv/bin/tablehw", str(tablehw)))
    return unit


def unit_directives() -> list[str]:
    return [line.strip() for line in UNIT.read_text().splitlines() if line.strip() and not line.startswith("#")]


def test_unit_declares_what_the_issue_asks():
    directives = unit_directives()
    for directive in ("Type=notify", "WatchdogSec=10", "Restart=on-failure", "RestartPreventExitStatus=74 78",
                      "ProtectSystem=strict", "NoNewPrivileges=true", "DevicePolicy=closed",
                      "StateDirectory=tablehw/%i", "DeviceAllow=char-ttyUSB rw", "DeviceAllow=char-video4linux rw",
                      "SupplementaryGroups=dialout video gpio"):
        assert directive in directives, directive


def test_unit_lets_gpio_work():
    """lgpio opens /dev/gpiochip*, other factories /dev/gpiomem; gpiozero reads the board revision from
    /proc/device-tree or /proc/cpuinfo, which ProcSubset=pid would hide."""
    directives = unit_directives()
    assert {"DeviceAllow=char-gpiochip rw", "DeviceAllow=/dev/gpiomem rw"} <= set(directives)
    assert not any(d.startswith("ProcSubset=") for d in directives)
    assert "WorkingDirectory=/var/lib/tablehw/%i" in directives  # in the StateDirectory: lgpio writes its pipes there


def test_the_venv_has_the_real_gpio_pin_factory(tmp_path):
    """gpiozero's lgpio pin factory and lgpio itself (from the lock, not Debian's python3-lgpio) import in
    this environment, and the factory gets as far as opening the GPIO chip. Only that open needs a
    /dev/gpiochip0, so on a machine without one (this x86 CI) it must fail there and nowhere else."""
    probe = (
        "import lgpio\n"
        "from gpiozero.pins.lgpio import LGPIOFactory\n"
        "try:\n"
        "    LGPIOFactory(chip=0).close()\n"
        "    print('opened')\n"
        "except lgpio.error as exc:\n"
        "    print('no chip:', exc)\n"
        "print(lgpio.__file__)\n")
    # in a scratch folder: lgpio makes its notification pipe (.lgd-nfy0) in the working directory
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    said, where = done.stdout.splitlines()
    assert where.startswith(str(Path(sys.prefix))), f"lgpio from outside the venv: {where}"
    if Path("/dev/gpiochip0").exists():
        assert said == "opened"
    else:
        assert said == "no chip: 'can not open gpiochip'"
        pytest.skip("no /dev/gpiochip0 here: the factory imported and failed only at opening the chip")


@needs_analyze
def test_systemd_analyze_verify_passes(tmp_path):
    unit = installed_unit(tmp_path)
    done = subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tablehw@craps-1.service" not in done.stderr  # no warning about the unit itself


@needs_analyze
def test_security_exposure_is_at_most_2(tmp_path):
    unit = installed_unit(tmp_path)
    done = subprocess.run([ANALYZE, "security", "--offline=true", str(unit)], capture_output=True, text=True,
                          timeout=60)
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout + done.stderr)
    assert match, done.stdout[-2000:]
    score = float(match.group(1))
    print(f"\nsystemd-analyze security --offline=true: {score}")
    assert score <= 2.0


def test_notifier_is_silent_outside_systemd():
    notifier = Notifier({})
    assert not notifier.enabled and notifier.send("READY=1") is False


def test_ready_watchdog_and_stopping_over_a_real_notify_socket(broker, tmp_path):
    """READY=1 comes once the devices answered their handshake; WATCHDOG=1 keeps coming from the main loop."""
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(30)
    config = table_config(tmp_path, "craps", broker.url, action_seconds=0.05, betting_seconds=0.05)
    env = {"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "400000", "PATH": "/usr/bin:/bin"}
    process = subprocess.Popen([*TABLEHW, "run", "--config", str(config), "--simulate", "--rounds", "6"], cwd=ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got = []
    try:
        while True:
            got.append(sock.recv(4096).decode())
            if "STOPPING=1" in got[-1]:
                break
    finally:
        out, err = process.communicate(timeout=60)
        sock.close()
    assert process.returncode == 0, err[-2000:]
    ready = [i for i, m in enumerate(got) if "READY=1" in m]
    assert len(ready) == 1 and "STATUS=table sim-craps" in got[ready[0]]
    pings = [i for i, m in enumerate(got) if m == "WATCHDOG=1"]
    assert len(pings) >= 3 and min(pings) > ready[0]
