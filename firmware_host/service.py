"""The table service: one process per table, wiring journal, MQTT, devices and the round engine.

    TableService(config, "config/craps.toml", simulate=True, rounds=10).run()  -> exit status

Start-up order: verify the journal (corrupt → lock out: publish `locked`, exit 78, which systemd
does not restart) → rebuild the result board from the journal's current session and queue it
(retained) → connect MQTT in the background (the table plays while the broker is away; the
outbox keeps everything) → start the devices and wait for their handshake → READY=1 to systemd →
recover the round from the journal → run the engine's loop (it pings the systemd watchdog each
turn). SIGTERM finishes the current step, waits (bounded) for the outbox and says "offline".
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from pathlib import Path
from typing import Any, Callable

import msgspec

from .config import TableConfig
from .errors import ConfigError, TableError
from .evidence import EvidenceStore
from .journal import Journal, JournalCorrupt
from .mqtt.contract import Availability, Topics
from .mqtt.link import Connected, LinkSettings, MqttLink, Will
from .outbox import OutboxSender
from .rounds import recovery
from .rounds.engine import RoundEngine, RoundSummary, no_checkpoint
from .rounds.gate import RequestGate
from .rounds.setup import board_keeper, engine_settings, family_factory, game_name
from .sd_notify import Notifier
from .service_config import MqttSection, SimulationSection, StorageSection, storage_path

log = logging.getLogger(__name__)

EXIT_LOCKED = 78  # EX_CONFIG: systemd's RestartPreventExitStatus keeps a locked-out table down


class DeviceStartError(TableError):
    """A device did not complete its handshake: the table cannot open."""


def read_secret(path: str | None, what: str) -> str | None:
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"{what}: cannot read {path}: {exc.strerror or exc}") from None


def link_settings(config: TableConfig, url: str | None) -> LinkSettings:
    section = config.mqtt or MqttSection()
    return LinkSettings(url=url or section.url, client_id=section.client_id or f"tablehw-{config.table.id}",
                        username=section.username, password=read_secret(section.password_file, "mqtt.password_file"),
                        tls_ca=section.tls_ca, tls_cert=section.tls_cert, tls_key=section.tls_key,
                        keepalive_s=section.keepalive_s, session_expiry_s=section.session_expiry_s,
                        reconnect_min_s=0.5, reconnect_max_s=section.reconnect_max_s)


def availability(table_id: str, state: str, reason: str | None = None) -> bytes:
    return msgspec.json.encode(Availability(table=table_id, state=state, reason=reason))


class TableService:
    """Runs one table until stopped, `rounds` rounds are done, or it must lock out."""

    def __init__(self, config: TableConfig, source: str, *, mqtt_url: str | None = None, simulate: bool = False,
                 rounds: int | None = None, on_round: Callable[[RoundSummary], None] | None = None,
                 environ: dict[str, str] | None = None) -> None:
        if config.table is None:
            raise ConfigError(f"{source}: no [table] section: `tablehw run` needs at least [table] id")
        self.config, self.source = config, source
        self.simulate, self.rounds, self.on_round = simulate, rounds, on_round
        self.environ = dict(os.environ if environ is None else environ)
        self.sim = config.simulation or SimulationSection()
        self.table_id = config.table.id
        self.topics = Topics((config.mqtt or MqttSection()).prefix, self.table_id)
        self.link_settings = link_settings(config, mqtt_url)
        storage = config.storage or StorageSection()
        self.storage = storage_path(self.table_id, storage, self.environ.get("STATE_DIRECTORY"))
        self.key = read_secret(storage.journal_key_file, "storage.journal_key_file")
        self.notifier = Notifier(self.environ)
        self.stop_event = threading.Event()
        self.engine: RoundEngine | None = None

    # --- running ---------------------------------------------------------------------------------
    def run(self) -> int:
        self.storage.mkdir(parents=True, exist_ok=True)
        try:
            journal = Journal.open(self.storage / "journal.sqlite", key=self.key.encode() if self.key else None)
        except JournalCorrupt as exc:
            return self.lock_out(str(exc))
        evidence = EvidenceStore(self.storage, (self.config.storage or StorageSection()).evidence_retention_days)
        evidence.prune()
        devices, terminals = self.devices(evidence)
        settings = engine_settings(self.config)
        checkpoint = no_checkpoint
        if self.simulate and self.sim.crash_at:
            from .simulation.faults import CrashAt
            checkpoint = CrashAt(self.sim.crash_at)
        factory = family_factory(self.config, self.source)  # a game the service cannot run stops here
        engine = RoundEngine(settings, journal, self.topics, factory, devices, checkpoint=checkpoint,
                             on_round=self.on_round, board=self.rebuild_board(journal))
        engine.evidence = evidence
        self.engine = engine
        access = self.config.access
        self.gate = RequestGate(self.topics, access, engine.inbox)
        if not (access.terminals or access.dealers or access.supervisors or access.back_office):
            log.warning("table %s: [access] names nobody: no bet, console or recall request will be accepted "
                        "over MQTT (docs/mqtt.md, \"Identity\")", self.table_id)
        link = MqttLink(self.link_settings, Will(self.topics.availability, availability(self.table_id, "offline"),
                                                 availability(self.table_id, "online")),
                        subscriptions=self.topics.inbound(), on_message=self.gate, on_status=engine.inbox.put)
        sender = OutboxSender(journal, link, replies_prefix=self.topics.replies)
        link.on_delivery = sender.deliver
        sender.start()
        link.start()
        self._signals()
        try:
            devices.start(engine.inbox.put)
            health = devices.handshake(10.0)
            engine.health.update(health)
            lost = [name for name, state in health.items() if state != "connected"]
            if lost:
                raise DeviceStartError(f"devices did not complete their handshake: {', '.join(lost)}")
            if terminals is not None:
                terminals.wait_ready(10.0)
            self.notifier.ready(f"table {self.table_id} ({game_name(self.config)}) open")
            what = recovery.start(engine)
            log.info("table %s: %s", self.table_id, what)
            engine.run(self.stop_event, self.rounds, heartbeat=self.notifier.watchdog)
        finally:
            self.notifier.stopping()
            devices.stop()
            if terminals is not None:
                terminals.stop()
            if not link.connected:
                log.warning("stopping without a broker: %d messages not sent stay in the journal and leave at the "
                            "next start", len(journal.messages(pending_only=True)))
            elif not sender.wait_sent(10.0):
                log.warning("stopping with messages still in the outbox: they leave at the next start")
            link.stop(availability(self.table_id, "offline"))
            sender.stop()
            journal.close()
        return 0

    def rebuild_board(self, journal: Journal) -> Any:
        """The result board as it was before this start: the current session's results and events
        replayed from the journal; published (retained) at once, so a board joining sees it."""
        board = board_keeper(self.config, self.source)
        if board is None:
            return None
        results = board.replay(journal)
        log.info("table %s: result board rebuilt from the journal: %d results this %s", self.table_id, results,
                 "shoe" if board.history.reset_on == "new_shoe" else "session")
        with journal.transaction() as txn:
            board.publish(txn, self.topics.board)
        return board

    def devices(self, evidence: EvidenceStore) -> tuple[Any, Any]:
        """The table's devices: [devices] through issue 5's drivers, or with --simulate the simulated
        table (and betting terminals)."""
        if not self.simulate:
            if self.config.devices is None:
                raise ConfigError(f"{self.source}: no [devices] section: configure the table's devices "
                                  "(docs/devices.md) or run with --simulate")
            from .hardware import HardwareTable
            return HardwareTable(self.config.devices, game_name(self.config), evidence,
                                 calibration=self.config.table.camera_calibration), None
        from .simulation.wiring import simulated_devices
        return simulated_devices(self.config, self.source, self.sim, evidence, self.link_settings.url, self.topics)

    def _signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.stop_event.set())

    # --- lock-out ----------------------------------------------------------------------------------
    def lock_out(self, reason: str) -> int:
        """The journal failed its check: do not play; say so on `availability` (retained) and exit 78."""
        log.critical("LOCKED OUT: %s", reason)
        self.notifier.status(f"locked out: {reason}")
        locked = availability(self.table_id, "locked", reason)
        link = MqttLink(self.link_settings, Will(self.topics.availability, locked, locked))
        connected = threading.Event()
        link.on_status = lambda event: isinstance(event, Connected) and connected.set()
        link.start()
        if not connected.wait(5.0):
            log.error("could not reach the broker to publish the lock-out")
        link.stop(locked)
        return EXIT_LOCKED
