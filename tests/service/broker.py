"""A real Mosquitto on a free loopback port, for tests: start, stop (graceful), kill, restart.

Other test folders may use it: `from tests.service.broker import MosquittoBroker`.
"""

from __future__ import annotations

import getpass
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


class MosquittoBroker:
    """One broker process with persistence in `directory` (sessions and queues survive a graceful restart)."""

    def __init__(self, directory: Path, port: int | None = None, persistence: bool = True) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.config = self.directory / "mosquitto.conf"
        self.log = self.directory / "mosquitto.log"
        lines = [f"listener {self.port} 127.0.0.1", "allow_anonymous true", f"log_dest file {self.log}",
                 "log_type error", "log_type warning", "log_type notice", "max_queued_messages 0",
                 "max_inflight_messages 0", "persistent_client_expiration 1h",
                 f"user {getpass.getuser()}"]  # as root, mosquitto would switch to a user that cannot write here
        if persistence:
            lines += ["persistence true", f"persistence_location {self.directory}/", "autosave_interval 1"]
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen | None = None

    def start(self, timeout_s: float = 10.0) -> MosquittoBroker:
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.process.stderr.read().decode()} "
                                   f"{self.log.read_text() if self.log.exists() else ''}")
            if port_open(self.port):
                return self
            time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port} within {timeout_s} s")

    def stop(self, timeout_s: float = 10.0) -> None:
        """Graceful stop (SIGTERM): persistence is written."""
        self._signal(signal.SIGTERM, timeout_s)

    def kill(self) -> None:
        self._signal(signal.SIGKILL, 10.0)

    def _signal(self, sig: int, timeout_s: float) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None
        deadline = time.monotonic() + timeout_s
        while port_open(self.port) and time.monotonic() < deadline:
            time.sleep(0.05)
