"""The device commands end to end: `tablehw wheel decode`, `tablehw sim ...` on a pty, `tablehw devices check`."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware_host.cli import main
from firmware_host.config import load_config

TABLEHW = [sys.executable, "-c", "import sys; from firmware_host.cli import main; sys.exit(main(sys.argv[1:]))"]
ROOT = Path(__file__).resolve().parents[2]

BASE = """version = 1
[game]
name = "cussec"
rulebook = "portugal-1995"
[limits]
minimum = 200
maximum = 200000
"""


def run_cli(args, stdin="", timeout=30):
    return subprocess.run(TABLEHW + args, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def start_sim(args, port: Path) -> subprocess.Popen:
    proc = subprocess.Popen(TABLEHW + ["sim", *args, "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    end = time.monotonic() + 10
    while not port.is_symlink() and time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read())
        time.sleep(0.02)
    assert port.is_symlink(), "simulator did not publish its port"
    return proc


def stop(proc: subprocess.Popen) -> str:
    proc.terminate()
    out, _ = proc.communicate(timeout=10)
    return out


def test_wheel_decode_prints_one_object_per_state_change():
    lines = []
    for state, repeat in ((2, 6), (3, 6), (4, 6), (5, 6)):
        number = 17 if state == 5 else 31
        lines += [f"*X;{state};002;{number:02d};0;{146 + i % 2:03d};1\r\n" for i in range(repeat)]
    result = run_cli(["wheel", "decode", "--protocol", "cammegh"], "".join(lines))
    assert result.returncode == 0, result.stderr
    objects = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["type"] for o in objects] == ["wheel_phase"] * 3 + ["wheel_result"]
    assert objects[-1]["number"] == 17 and objects[-1]["faults"] == []
    assert all("mono" in o and o["utc"].endswith("Z") for o in objects)


def test_wheel_decode_reports_bad_lines_by_number_and_keeps_going():
    result = run_cli(["wheel", "decode", "--protocol", "cammegh"],
                     "*X;3;001;00;0;146;1\nnonsense\n*X;5;001;07;1;146;1\n")
    assert result.returncode == 1
    assert "line 2: not a line of the wheel's read protocol" in result.stderr
    objects = [json.loads(line) for line in result.stdout.splitlines()]
    assert objects[-1]["number"] is None and objects[-1]["faults"] == ["ball_not_detected"]


def test_devices_config_section_is_strict(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BASE + '[devices.wheel]\nprotocol = "sensor_board"\nport = "loop://"\nspeed = 3\n')
    with pytest.raises(Exception, match=r"devices\.wheel\.speed: unknown key"):
        load_config(path)


def test_devices_check_against_simulators(tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), np.zeros((8, 8, 3), np.uint8))
    wheel = start_sim(["wheel", "--serial", "WSB-7", "--interval", "60"], tmp_path / "wheel0")
    shoe = start_sim(["shoe", "--interval", "60"], tmp_path / "shoe0")
    try:
        config = tmp_path / "table.toml"
        config.write_text(BASE + f"""
[devices.wheel]
protocol = "sensor_board"
port = "{tmp_path / 'wheel0'}"
serial = "WSB-7"
[devices.shoe]
port = "{tmp_path / 'shoe0'}"
[devices.dome]
lever = 17
clasp_left = 27
clasp_right = 22
dome = 23
bell = 24
bets_open_light = 5
[devices.console]
no_more_bets = 4
confirm = 14
void = 15
new_shooter = 18
supervisor_key = 25
[devices.camera]
kind = "replay"
path = "{frames}"
""")
        result = run_cli(["devices", "check", "--config", str(config), "--mock-gpio", "--json", "--timeout", "10"])
        assert result.returncode == 0, result.stdout + result.stderr
        rows = {row["device"]: row for row in json.loads(result.stdout)["devices"]}
        assert {name: row["health"] for name, row in rows.items()} == {
            "wheel": "connected", "shoe": "connected", "dome": "connected", "console": "connected",
            "camera": "connected"}
        assert rows["wheel"]["serial"] == "WSB-7" and rows["wheel"]["protocol"] == 1
        assert rows["shoe"]["device_type"] == "shoe_scanner"
    finally:
        stop(wheel)
        stop(shoe)


def test_devices_check_reports_a_refused_board(tmp_path):
    wheel = start_sim(["wheel", "--serial", "WSB-8", "--interval", "60"], tmp_path / "wheel0")
    try:
        config = tmp_path / "table.toml"
        config.write_text(BASE + f'[devices.wheel]\nprotocol = "sensor_board"\nport = "{tmp_path / "wheel0"}"\n'
                          'serial = "WSB-7"\n')
        result = run_cli(["devices", "check", "--config", str(config), "--timeout", "5"])
        assert result.returncode == 1
        assert "lost" in result.stdout and "refused: serial number 'WSB-8', configured 'WSB-7'" in result.stdout
    finally:
        stop(wheel)


def test_devices_check_without_a_devices_section(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text(BASE)
    assert main(["devices", "check", "--config", str(config)]) == 2
    assert "no [devices] section" in capsys.readouterr().err


def test_sim_cammegh_standalone_feeds_the_decoder(tmp_path):
    import serial

    port = tmp_path / "cammegh0"
    proc = start_sim(["cammegh", "--period", "0.02", "--interval", "0.3", "--numbers", "17,4"], port)
    try:
        link = serial.serial_for_url(str(port), baudrate=9600, rtscts=True, timeout=0.1)
        data = b""
        end = time.monotonic() + 10
        while b"*X;5;002; 4" not in data and time.monotonic() < end:  # the wheel pads numbers with a space
            data += link.read(4096)
        link.close()
    finally:
        out = stop(proc)
    result = run_cli(["wheel", "decode", "--protocol", "cammegh"], data.decode())
    results = [json.loads(line) for line in result.stdout.splitlines() if '"wheel_result"' in line]
    assert [(r["spin"], r["number"]) for r in results][-2:] == [(1, 17), (2, 4)]
    assert "spin 1: 17" in out and "spin 2: 4" in out


def test_sim_rejects_a_bad_fault_name(tmp_path):
    result = run_cli(["sim", "wheel", "--port", str(tmp_path / "w"), "--fault", "explode=3"])
    assert result.returncode == 2 and "unknown fault 'explode'" in result.stderr
