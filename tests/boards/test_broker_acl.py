"""The Mosquitto access control of docs/deploy.md, as written there, against a real Mosquitto:
boards (anonymous, WebSockets) only read board/result/state/availability; only a table's controller
writes its topics; terminals write only bets; anonymous clients are refused on the main listener."""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
import threading
import time

import paho.mqtt.client as mqtt
import pytest

from tests.security.deployed_broker import deploy_files
from tests.service.broker import MOSQUITTO, free_port, port_open

PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
USERS = {"table-craps-1": "pw-table", "table-bac-1": "pw-bac", "terminal-07": "pw-term", "backoffice": "pw-bo"}
T = "tablehw/tables/craps-1"


@pytest.fixture
def acl_broker(tmp_path):
    files = deploy_files()
    assert {"/etc/mosquitto/conf.d/tablehw.conf", "/etc/mosquitto/tablehw.acl", "/etc/mosquitto/boards.acl"} <= set(files)
    port, ws_port = free_port(), free_port()
    for name, body in files.items():
        (tmp_path / os.path.basename(name)).write_text(body)
    conf = files["/etc/mosquitto/conf.d/tablehw.conf"]
    conf = "\n".join(line for line in conf.splitlines() if not line.startswith(("certfile", "keyfile", "cafile")))
    conf = conf.replace("listener 8883", f"listener {port} 127.0.0.1").replace("listener 9001", f"listener {ws_port}")
    conf = conf.replace("/etc/mosquitto/", f"{tmp_path}/")
    conf += f"\npersistence false\nlog_dest file {tmp_path}/mosquitto.log\n"
    if os.geteuid() == 0:
        conf += f"user {getpass.getuser()}\n"
    (tmp_path / "mosquitto.conf").write_text(conf)
    for i, (user, password) in enumerate(USERS.items()):
        subprocess.run([PASSWD, "-b"] + (["-c"] if i == 0 else []) + [str(tmp_path / "passwd"), user, password],
                       check=True, capture_output=True)
    process = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while not (port_open(port) and port_open(ws_port)):
        assert process.poll() is None, process.stderr.read().decode()
        assert time.monotonic() < deadline, "mosquitto did not start"
        time.sleep(0.05)
    yield port, ws_port
    process.terminate()
    process.wait(10)


class Client:
    """A paho client that records what it receives; `user` None connects anonymously."""

    def __init__(self, port: int, user: str | None = None, websockets: bool = False) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.connected = threading.Event()
        self.refused: list[str] = []
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  transport="websockets" if websockets else "tcp")
        if user:
            self.client.username_pw_set(user, USERS[user])
        self.client.on_connect = self._on_connect
        self.client.on_message = lambda c, u, m: self.got.append((m.topic, bytes(m.payload)))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self.refused.append(str(reason_code))
        else:
            self.connected.set()

    def subscribe(self, *topics: str) -> None:
        for topic in topics:
            self.client.subscribe(topic, qos=1)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def topics(self) -> set[str]:
        return {t for t, _ in self.got}

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def settle() -> None:
    time.sleep(0.5)  # let the broker route (or drop) what was just published; nothing is timed here


def test_boards_read_controllers_write_terminals_bet(acl_broker):
    port, ws_port = acl_broker
    controller, backoffice = Client(port, "table-craps-1"), Client(port, "backoffice")
    board, terminal, other = Client(ws_port, websockets=True), Client(port, "terminal-07"), Client(port, "table-bac-1")
    clients = [controller, backoffice, board, terminal, other]
    try:
        for c in clients:
            assert c.connected.wait(10), c.refused
        controller.subscribe(f"{T}/bets/+", f"{T}/console/+")
        backoffice.subscribe("tablehw/tables/#")
        board.subscribe("tablehw/tables/+/board", "tablehw/tables/+/result", "tablehw/tables/+/state",
                        "tablehw/tables/+/availability", f"{T}/settlement", f"{T}/events", f"{T}/bets/+")
        settle()
        # the controller writes its own topics; boards get board, result, state, availability only
        for kind in ("availability", "result", "state", "board"):
            controller.publish(f"{T}/{kind}", b'{"from": "controller"}', retain=True)
        controller.publish(f"{T}/settlement", b'{"from": "controller"}')
        controller.publish(f"{T}/events", b'{"from": "controller"}')  # supervisor notices: not for boards
        # a terminal may bet, under its own name only; the controller gets it
        terminal.publish(f"{T}/bets/terminal-07", b'{"from": "terminal"}')
        terminal.publish(f"{T}/bets/terminal-08", b'{"from": "terminal"}')
        # nobody else may write the table's topics
        board.publish(f"{T}/result", b'{"from": "board"}')
        terminal.publish(f"{T}/result", b'{"from": "terminal"}')
        terminal.publish(f"{T}/console/pit-console-1", b'{"from": "terminal"}')
        other.publish(f"{T}/board", b'{"from": "another table"}')
        settle()
        assert board.topics() == {f"{T}/availability", f"{T}/result", f"{T}/state", f"{T}/board"}
        assert all(payload == b'{"from": "controller"}' for _, payload in board.got)
        assert controller.got == [(f"{T}/bets/terminal-07", b'{"from": "terminal"}')]
        from_others = [(t, p) for t, p in backoffice.got
                       if b"controller" not in p and not t.endswith("/bets/terminal-07")]
        assert from_others == [], "a client other than the controller wrote the table's topics"
        assert (f"{T}/settlement", b'{"from": "controller"}') in backoffice.got
    finally:
        for c in clients:
            c.close()


def test_anonymous_clients_are_refused_on_the_main_listener(acl_broker):
    port, _ = acl_broker
    anonymous = Client(port)
    try:
        deadline = time.monotonic() + 10
        while not anonymous.refused and time.monotonic() < deadline:
            time.sleep(0.05)
        assert anonymous.refused and not anonymous.connected.is_set()
    finally:
        anonymous.close()
