"""Mosquitto configured exactly as docs/deploy.md §6 says: its fenced blocks, with only ports and paths changed.

    ca = FloorCA(tmp / "ca")
    broker = DeployedBroker(tmp / "broker", ca).start()     # TLS + passwords + tablehw.acl, boards listener
    broker.url                                              # mqtts://localhost:<port>
    broker.password("terminal-07")                          # every user of tablehw.acl has one

Every `user` of `tablehw.acl` gets the password `pw-<user>` (and `extra_users` too: users with no
block of their own, who may still bet and read their replies through the `%u` patterns).
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from tests.service.broker import MOSQUITTO, free_port, port_open

from .certs import FloorCA

ROOT = Path(__file__).resolve().parents[2]
PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
MAIN_CONF = "/etc/mosquitto/conf.d/tablehw.conf"
CERT_CONF = "/etc/mosquitto/conf.d/tablehw-certificates.conf"


def deploy_files() -> dict[str, str]:
    """The fenced blocks of docs/deploy.md that start with '# /etc/mosquitto/<file>'."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    files = {}
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        first = block.splitlines()[0]
        if first.startswith("# /etc/mosquitto/"):
            files[first[2:].strip()] = block
    return files


def acl_users(acl: str) -> list[str]:
    return re.findall(r"^user (\S+)$", acl, re.M)


class DeployedBroker:
    """One Mosquitto from the documented blocks (`conf`: the main one, or the client-certificate one).
    `acl_edit` changes the ACL text (only for tests of what a differently configured broker does)."""

    def __init__(self, directory: Path, ca: FloorCA, *, conf: str = MAIN_CONF,
                 server_cert: tuple[Path, Path] | None = None, extra_users: tuple[str, ...] = (),
                 acl_edit=None) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.ca = ca
        files = deploy_files()
        assert {MAIN_CONF, CERT_CONF, "/etc/mosquitto/tablehw.acl", "/etc/mosquitto/boards.acl"} <= set(files)
        acl = files["/etc/mosquitto/tablehw.acl"]
        if acl_edit:
            acl = acl_edit(acl)
        (self.directory / "tablehw.acl").write_text(acl)
        (self.directory / "boards.acl").write_text(files["/etc/mosquitto/boards.acl"])
        self.users = acl_users(acl) + list(extra_users)
        for i, user in enumerate(self.users):
            subprocess.run([PASSWD, "-b"] + (["-c"] if i == 0 else []) + [str(self.directory / "passwd"), user,
                                                                         self.password(user)],
                           check=True, capture_output=True)
        cert, key = server_cert or ca.issue("broker", "localhost", "DNS:localhost,IP:127.0.0.1")
        self.port, self.ws_port = free_port(), free_port()
        text = files[conf]
        text = re.sub(r"^listener 888[34]$", f"listener {self.port} 127.0.0.1", text, flags=re.M)
        text = text.replace("listener 9001", f"listener {self.ws_port}")
        text = (text.replace("/etc/mosquitto/certs/broker.crt", str(cert))
                .replace("/etc/mosquitto/certs/broker.key", str(key))
                .replace("/etc/mosquitto/certs/ca.crt", str(ca.cert))
                .replace("/etc/mosquitto/", f"{self.directory}/"))
        text += (f"\npersistence true\npersistence_location {self.directory}/\nautosave_interval 1\n"
                 f"log_dest file {self.directory}/mosquitto.log\nlog_type error\nlog_type warning\n"
                 "log_type notice\nlog_type information\n")
        if os.geteuid() == 0:
            text += f"user {getpass.getuser()}\n"
        self.config = self.directory / "mosquitto.conf"
        self.config.write_text(text)
        self.url = f"mqtts://localhost:{self.port}"
        self.process: subprocess.Popen | None = None

    @staticmethod
    def password(user: str) -> str:
        return f"pw-{user}"

    def password_file(self, user: str) -> Path:
        path = self.directory / f"{user}.password"
        path.write_text(self.password(user) + "\n")
        return path

    def start(self, timeout_s: float = 20.0) -> DeployedBroker:
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout_s
        while not port_open(self.port):
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.process.stderr.read().decode()} {self.log()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"mosquitto did not listen on {self.port} within {timeout_s} s")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        """Graceful (its persistence is written): sessions and queued messages survive a restart."""
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None
        deadline = time.monotonic() + 20
        while port_open(self.port) and time.monotonic() < deadline:
            time.sleep(0.05)

    def log(self) -> str:
        path = self.directory / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""
