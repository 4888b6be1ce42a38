"""A broker that cannot be reached, or not trusted, is said in one clear line with its cause, never a traceback;
and the documented client-certificate listener works with certificates alone."""

from __future__ import annotations

import re
import subprocess

from tests.service.broker import free_port
from tests.service.table_run import ROOT, TABLEHW, run_table, table_config

from .clients import BrokerUser, bet
from .deployed_broker import CERT_CONF, DeployedBroker
from .table import Table

QUIET = {"bets_per_round": 0, "action_seconds": 0.01, "betting_seconds": 0.05, "camera": "random"}


def broker_lines(stderr: str) -> list[str]:
    """The log lines about reaching the broker."""
    return [line for line in stderr.splitlines() if "broker" in line and ("unreachable" in line or "refused" in line)]


def test_run_against_no_broker_says_connection_refused_once(tmp_path):
    url = f"mqtt://127.0.0.1:{free_port()}"  # nothing listens there
    done = run_table(table_config(tmp_path, "craps", url, **QUIET), rounds=3, timeout_s=120)
    assert done.returncode == 0, done.stderr[-2000:]  # the table plays on; the journal keeps every message
    lines = broker_lines(done.stderr)
    assert len(lines) == 1 and "ERROR" in lines[0] and "connection refused" in lines[0], lines
    assert "Traceback" not in done.stderr


def test_run_with_a_certificate_for_another_host_says_tls_verification_failed(tmp_path, ca):
    wrong = ca.issue("wrong-host", "broker.floor.local", "DNS:broker.floor.local")
    broker = DeployedBroker(tmp_path / "broker", ca, server_cert=wrong).start()
    try:
        sections = {"mqtt": {"username": "table-craps-1", "password_file": str(broker.password_file("table-craps-1")),
                             "tls_ca": str(ca.cert), "reconnect_max_s": 1.0}}
        done = run_table(table_config(tmp_path, "craps", broker.url, sections=sections, **QUIET), rounds=3)
    finally:
        broker.kill()
    assert done.returncode == 0, done.stderr[-2000:]
    lines = broker_lines(done.stderr)
    assert len(lines) == 1 and "TLS verification failed" in lines[0] and "localhost" in lines[0], lines
    assert "Traceback" not in done.stderr


def test_run_with_a_wrong_password_says_the_broker_refused(tmp_path, broker):
    wrong = tmp_path / "wrong.password"
    wrong.write_text("not-the-password\n")
    sections = {"mqtt": {"username": "table-craps-1", "password_file": str(wrong), "tls_ca": str(broker.ca.cert),
                         "reconnect_max_s": 1.0}}
    done = run_table(table_config(tmp_path, "craps", broker.url, sections=sections, **QUIET), rounds=3)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = broker_lines(done.stderr)
    assert len(lines) == 1 and re.search(r"refused the connection: (not authorised|bad user name)", lines[0]), lines
    assert "Traceback" not in done.stderr


def board_publish(url: str) -> subprocess.CompletedProcess:
    return subprocess.run(TABLEHW + ["board", "--game", "roulette", "--publish", url, "--rounds", "1",
                                     "--interval", "0"], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_board_publish_to_no_broker_prints_one_line(tmp_path):
    done = board_publish(f"mqtt://127.0.0.1:{free_port()}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert "cannot reach the broker" in done.stderr and "connection refused" in done.stderr


def test_board_publish_with_tls_mismatch_prints_one_line(tmp_path, ca):
    wrong = ca.issue("wrong-host", "broker.floor.local", "DNS:broker.floor.local")
    broker = DeployedBroker(tmp_path / "broker", ca, server_cert=wrong).start()
    try:
        done = board_publish(broker.url)
    finally:
        broker.kill()
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "TLS verification failed" in done.stderr and "Traceback" not in done.stderr


def test_client_certificates_alone_identify_controller_and_terminal(tmp_path, ca):
    """The optional listener of docs/deploy.md: the user is the certificate's common name, no password;
    a client without a certificate does not get in."""
    broker = DeployedBroker(tmp_path / "broker", ca, conf=CERT_CONF).start()
    controller_cert = ca.issue("table-craps-1", "table-craps-1")
    certs = {user: ca.issue(user, user) for user in ("backoffice", "pit-console-1", "terminal-07")}
    table = Table(tmp_path / "table", broker, mqtt={"username": None, "password_file": None,
                                                     "tls_cert": str(controller_cert[0]),
                                                     "tls_key": str(controller_cert[1])}, certs=certs)
    try:
        table.start()
        terminal = BrokerUser(broker, "terminal-07", cert=certs["terminal-07"])
        assert terminal.ask("bets", bet("cert-1", "seat-1"))["accepted"]
        table.close_betting()
        assert table.settled_tickets()["cert-1"] == 1
        table.assert_accepted_once({"cert-1"})
        terminal.close()
        stranger = BrokerUser(broker, "terminal-07", connect=False)  # a password, no certificate
        assert not stranger.connected.wait(3)
        stranger.close()
    finally:
        table.close()
        broker.kill()
