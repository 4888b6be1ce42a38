"""Stopping on SIGTERM/SIGINT never deadlocks (issue 19: `make board` hung on one stop of five because its
handler called `threading.Event.set()` while the main thread was inside that event's `wait()`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from firmware_host.stop_signal import StopSignal


@pytest.fixture
def restored_handlers():
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def test_a_signal_ends_a_wait_in_the_main_thread(restored_handlers):
    stop = StopSignal().install((signal.SIGUSR1,))
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGUSR1)).start()
    assert stop.wait(30) and stop.signal == signal.SIGUSR1


def test_another_thread_can_stop_it_and_a_wait_without_stop_times_out():
    stop = StopSignal()
    assert stop.wait(0.1) is False and not stop.is_set()
    threading.Timer(0.1, stop.set).start()
    assert stop.wait(30) and stop.signal is None


def test_signals_landing_inside_wait_never_deadlock(restored_handlers):
    """Hundreds of signals while the main thread waits in short turns, as the CLI loops do: every one is
    handled. (A handler calling Event.set() here can land while wait() holds the event's lock.)"""
    stop = StopSignal().install((signal.SIGUSR1,))
    sent = 0

    def pester():
        nonlocal sent
        for _ in range(300):
            os.kill(os.getpid(), signal.SIGUSR1)
            sent += 1
            time.sleep(0.001)

    sender = threading.Thread(target=pester)
    sender.start()
    deadline = time.monotonic() + 60
    while sender.is_alive() and time.monotonic() < deadline:
        stop.wait(0.002)
    sender.join(5)
    assert sent == 300 and stop.is_set()


def test_sigterm_stops_the_device_simulator_cleanly(tmp_path):
    """`tablehw sim` stops on SIGTERM with status 0 (its loop waits on the stop between plays)."""
    command = "import sys; from firmware_host.cli import main; sys.exit(main(sys.argv[1:]))"
    sim = subprocess.Popen([sys.executable, "-c", command, "sim", "wheel", "--port", str(tmp_path / "wheel"),
                            "--interval", "0.05"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        first = sim.stdout.readline()
        assert "listening at" in first, sim.stderr.read() if sim.poll() is not None else first
        sim.send_signal(signal.SIGTERM)
        assert sim.wait(30) == 0
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait(10)
