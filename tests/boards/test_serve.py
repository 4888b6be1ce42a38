"""`make board` (firmware_host/boards/serve.py) as a real subprocess: a busy port ends it with one clear
line and nothing left running; SIGINT and SIGTERM stop it within a bound every time, at any moment
of its life, with its Mosquitto and simulated table gone."""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .page_fixtures import ROOT

pytestmark = pytest.mark.slow
STOP_BOUND_S = 30.0  # generous on a loaded machine: a clean stop takes well under a second here
START_BOUND_S = 60.0


def start_serve(*args: str) -> subprocess.Popen:
    """`make board`'s command in a session of its own, so every process it starts can be found by it."""
    command = [sys.executable, "-m", "firmware_host.boards.serve", "--source", "replay", "--interval", "0.3",
               "--http-port", "0", "--ws-port", "0", *args]
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def wait_for_board_line(serve: subprocess.Popen) -> str:
    """The line with the page's address (serve is up: broker, page server and table started)."""
    selector = selectors.DefaultSelector()
    selector.register(serve.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + START_BOUND_S
    try:
        while time.monotonic() < deadline:
            if selector.select(timeout=0.5):
                line = serve.stdout.readline()
                if line.startswith("board: "):
                    return line
                assert line, f"make board ended before it was up: {serve.wait(10)} {serve.stderr.read()}"
    finally:
        selector.close()
    raise AssertionError(f"make board did not print the page's address within {START_BOUND_S:.0f} s")


def session_processes(session: int) -> list[tuple[int, str]]:
    """Live (not zombie) processes of a session: (pid, command name)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        state, sid = fields[0], int(fields[3])
        if sid == session and state != "Z":
            found.append((int(entry.name), name))
    return found


def assert_nothing_left(session: int) -> None:
    deadline = time.monotonic() + 10  # reparented children are reaped by init a moment later
    while session_processes(session) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = session_processes(session)
    for pid, _ in left:
        os.kill(pid, signal.SIGKILL)  # clean up for the next test; the assertion below still fails
    assert not left, f"processes left running by make board: {left}"


def finish(serve: subprocess.Popen) -> tuple[int, str, str]:
    try:
        out, err = serve.communicate(timeout=STOP_BOUND_S)
    except subprocess.TimeoutExpired:
        os.killpg(serve.pid, signal.SIGKILL)
        serve.communicate(timeout=10)
        raise AssertionError(f"make board did not stop within {STOP_BOUND_S:.0f} s") from None
    return serve.returncode, out, err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_it_within_a_bound_every_time(sig):
    """Repeated at several moments after start-up (the old deadlock hit about one stop in five)."""
    for delay in (0.0, 0.05, 0.2, 0.5, 1.0):
        serve = start_serve()
        try:
            wait_for_board_line(serve)
            time.sleep(delay)
            assert serve.poll() is None, serve.stderr.read()
            serve.send_signal(sig)
            code, out, err = finish(serve)
        finally:
            if serve.poll() is None:
                os.killpg(serve.pid, signal.SIGKILL)
                serve.wait(10)
        assert code == 0, err
        assert "Traceback" not in err, err
        assert_nothing_left(serve.pid)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_start_up_stops_what_was_started(sig):
    for delay in (0.0, 0.1, 0.3, 0.8):
        serve = start_serve()
        wait_for_handlers(serve)
        time.sleep(delay)
        serve.send_signal(sig)
        code, out, err = finish(serve)
        assert code == 0, err
        assert "Traceback" not in err, err
        assert_nothing_left(serve.pid)


def wait_for_handlers(serve: subprocess.Popen) -> None:
    """Until serve catches SIGTERM (its handlers are installed); a signal before that, while Python
    itself starts, gets the default action, which no program can change."""
    deadline = time.monotonic() + START_BOUND_S
    while time.monotonic() < deadline:
        assert serve.poll() is None, serve.stderr.read()
        caught = 0
        for line in Path(f"/proc/{serve.pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                caught = int(line.split()[1], 16)
        if caught & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.01)
    raise AssertionError("make board did not install its signal handlers")


def listening_socket(host: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((host, 0))
    sock.listen()
    return sock


@pytest.mark.parametrize("option, host, what", [
    ("--http-port", "127.0.0.1", "the page's web server"),
    ("--ws-port", "127.0.0.1", "the broker's websockets listener"),
    ("--ws-port", "0.0.0.0", "the broker's websockets listener"),  # mosquitto binds it on every interface
    ("--mqtt-port", "127.0.0.1", "the broker's MQTT listener"),
])
def test_a_busy_port_gives_one_clear_line_and_leaves_nothing_running(option, host, what):
    with listening_socket(host) as busy:
        port = busy.getsockname()[1]
        serve = start_serve(option, str(port))
        code, out, err = finish(serve)
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"make board: port {port} ({what}) is in use"), lines[0]
    assert option in lines[0]
    assert_nothing_left(serve.pid)
