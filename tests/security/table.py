"""A controller (`tablehw run --simulate`, a real process) on the documented broker, and what the back office sees.

The table is `craps-1` (the ACL's controller user `table-craps-1`, TLS, password file); its simulated
devices throw the dice, its simulated terminals are off (the tests' broker users bet), betting
closes only when the pit console says "no more bets" (`close_betting`).
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from pathlib import Path

from firmware_host.service_config import AccessSection
from tests.service.table_run import check_bets_settled_once, finish, journal_rows, start_table, table_config

from .clients import TABLE, T, BrokerUser
from .deployed_broker import DeployedBroker

ACCESS = {
    "terminals": {"terminal-07": ["seat-1", "seat-2"], "terminal-08": ["seat-3"]},
    "dealers": ["pit-console-1"],
    "supervisors": ["pit-supervisor-1"],
    "back_office": ["backoffice"],
    # the defaults (the example configs raise them for their fast simulated terminals)
    "requests_per_second": AccessSection().requests_per_second,
    "request_burst": AccessSection().request_burst,
}


class Table:
    """The controller process and a back-office observer subscribed to everything the table publishes."""

    def __init__(self, directory: Path, broker: DeployedBroker, *, access: dict | None = None,
                 mqtt: dict | None = None, certs: dict | None = None, table: dict | None = None) -> None:
        """`mqtt`, `table`: keys of those sections to change (None removes an [mqtt] key); `certs`: user ->
        (certificate, key) for the observer and the pit console when the broker takes identities from
        certificates."""
        self.directory, self.broker = Path(directory), broker
        self.directory.mkdir(parents=True, exist_ok=True)
        self.storage = self.directory / "storage"
        settings = {"username": "table-craps-1", "password_file": str(broker.password_file("table-craps-1")),
                    "tls_ca": str(broker.ca.cert), "reconnect_max_s": 1.0, **(mqtt or {})}
        sections = {
            "table": {"id": TABLE, "betting_seconds": 0, **(table or {})},
            "mqtt": {key: value for key, value in settings.items() if value is not None},
            "access": {**ACCESS, **(access or {})},
        }
        self.config = table_config(self.directory, "craps", broker.url, sections=sections, bets_per_round=0,
                                   betting_seconds=3600, action_seconds=0.05, camera="random", void_rate=0.0)
        certs = certs or {}
        leaves = ("state", "result", "settlement", "events", "availability", "board")
        published = tuple(f"{T}/{leaf}" for leaf in leaves)
        self.observer = BrokerUser(broker, "backoffice", topics=published, cert=certs.get("backoffice"))
        self.pit = BrokerUser(broker, "pit-console-1", cert=certs.get("pit-console-1"))
        self.process = None

    def start(self, timeout_s: float = 60.0) -> Table:
        self.process = start_table(self.config)
        assert self.wait_state(lambda s: s["phase"] == "betting", timeout_s), self.output()
        return self

    # --- what the back office sees -------------------------------------------------------------
    def states(self) -> list[dict]:
        return [g.json() for g in self.observer.snapshot("/state")]

    def wait_state(self, accept, timeout_s: float = 60.0) -> bool:
        return self.observer.wait_for(lambda got: any(accept(g.json()) for g in got if g.topic == f"{T}/state"),
                                      timeout_s)

    def betting_round(self, timeout_s: float = 60.0) -> int:
        """The round now taking bets (waits for one)."""
        assert self.wait_state(lambda s: s["phase"] == "betting", timeout_s)
        return [s for s in self.states() if s["phase"] == "betting"][-1]["round"]

    def close_betting(self, timeout_s: float = 60.0) -> int:
        """The dealer's "no more bets" from the pit console; returns once the next round takes bets and the
        observer has the settled round's settlement (every round settled publishes one, void or not, bets or
        none: `RoundEngine._settlement`; it may arrive after the state that opens the next round); the settled
        round's number."""
        round_no = self.betting_round(timeout_s)
        answer = self.pit.ask("console", {"schema": 1, "type": "console", "action": "no_more_bets"})
        assert answer["accepted"], answer
        assert self.wait_state(lambda s: s["phase"] == "betting" and s["round"] > round_no, timeout_s)
        assert wait_until(lambda: any(s["round"] == round_no for s in self.settlements()), timeout_s), \
            f"round {round_no} settled (the next takes bets) but its settlement never reached the observer"
        return round_no

    def settlements(self) -> list[dict]:
        return [g.json() for g in self.observer.snapshot("/settlement")]

    def settled_tickets(self) -> Counter:
        return Counter(line["ticket"] for s in self.settlements() for line in s["bets"] if line["result"] != "stay")

    def settled_once(self, tickets: set[str], timeout_s: float = 30.0) -> bool:
        """Every ticket settled exactly once, as seen by the observer, waiting for it (bounded) in case a ticket's
        round is not one `close_betting` waited for (the flood test once read too early in CI, 2026-11-25, before
        `close_betting` waited for the settlement). A ticket settled twice or never fails."""
        return wait_until(lambda: all(self.settled_tickets()[t] == 1 for t in tickets), timeout_s)

    # --- the process ---------------------------------------------------------------------------
    def kill(self) -> None:
        """SIGKILL: the crash the journal must survive."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> str:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            finish(self.process, 60)
        return self.output()

    def output(self) -> str:
        paths = [self.directory / "table.stdout", self.directory / "table.stderr"]
        return "\n".join(p.read_text(errors="replace") for p in paths if p.exists())[-4000:]

    def close(self) -> str:
        out = self.stop()
        self.observer.close()
        self.pit.close()
        return out

    # --- nothing accepted lost or doubled ------------------------------------------------------
    def journal(self, kind: str) -> list[dict]:
        return [body for _, _, body in journal_rows(self.storage, kind)]

    def assert_accepted_once(self, accepted: set[str]) -> None:
        """Every ticket answered "accepted" is journalled once and settled at most once (exactly once when
        its round is over); no bet was accepted that nobody was told about."""
        journalled = Counter(b["ticket"] for b in self.journal("bet_accepted"))
        doubled = [t for t, n in journalled.items() if n > 1]
        assert not doubled, f"accepted twice: {doubled[:5]}"
        missing = accepted - set(journalled)
        assert not missing, f"answered accepted but not journalled: {sorted(missing)[:5]}"
        check_bets_settled_once(self.storage)


def wait_until(predicate, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False
