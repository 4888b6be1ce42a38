"""The table service: one process per table, wiring journal, MQTT, devices and the round engine.

    TableService(config, "config/craps.toml", simulate=True, rounds=10).run()  -> exit status

Start-up order: hold the storage folder's lock → load the journal key → no journal file: refused if
the broker holds an anchor for the table (it published before), else a new one (startup.py) → verify the journal
(journal/verify.py) → compare it with the broker's retained `state` and the ledger's anchor → check
the disk → archive the live journal's older part when due → rebuild the result board and queue it →
connect MQTT in the background (after the anchor check: with the broker unreachable the table plays,
the link waits for the check) → start the devices and wait for their handshake → READY=1 → recover
the round → run the engine's loop (each turn: systemd watchdog, disk watch). SIGTERM finishes the
current step, waits (bounded) for the outbox and says "offline".

Lock-outs (availability `locked` with the reason, docs/deploy.md §4): a journal that fails its check,
a wrong or unreadable key, a journal behind its anchor → exit 78; the disk full, read-only or
failing (at start or while playing) → exit 74. systemd restarts neither (RestartPreventExitStatus).
No journal and no broker to ask: a new journal plays unchecked, and the check that it never published
before runs, before anything leaves, once the broker answers.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from pathlib import Path
from typing import Any, Callable

import msgspec

from .config import TableConfig
from .errors import ConfigError, TableError
from .disk_watch import DiskWatch
from .evidence import EvidenceStore
from .journal import Journal, JournalError, StorageFailure, load_key
from .journal.archive import RotationPolicy, rotate
from .journal.folder import holding, journal_path
from .mqtt.contract import Availability, Topics
from .mqtt.link import Connected, LinkSettings, MqttLink, Will
from .outbox import OutboxSender
from .rounds import recovery
from .rounds.engine import RoundEngine, no_checkpoint
from .rounds.gate import RequestGate
from .rounds.observer import RoundObserver, RoundObservers
from .rounds.setup import board_keeper, engine_settings, family_factory, game_name
from .sd_notify import Notifier
from .service_config import MqttSection, SimulationSection, StorageSection, storage_path
from .startup import AnchorCheck
from .stop_signal import StopSignal

log = logging.getLogger(__name__)

EXIT_LOCKED = 78  # EX_CONFIG: journal, key or anchor check failed; RestartPreventExitStatus keeps it down
EXIT_STORAGE = 74  # EX_IOERR: the disk is full, read-only or failing; RestartPreventExitStatus keeps it down


class DeviceStartError(TableError):
    """A device did not complete its handshake: the table cannot open."""


class Rotation:
    """Archives the live journal when due (journal/archive.py), every `every_s`, on a thread of its own."""

    def __init__(self, journal: Journal, storage: Path, policy: RotationPolicy, on_failure, every_s: float = 60.0):
        self.journal, self.storage, self.policy, self.on_failure = journal, storage, policy, on_failure
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="journal-rotation", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(30)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                rotate(self.journal, self.storage, self.policy)
            except JournalError as exc:
                log.error("journal rotation: %s", exc)
                if isinstance(exc, StorageFailure):
                    self.on_failure(exc)
                    return


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
                 rounds: int | None = None, observer: RoundObserver | None = None, seed: int | None = None,
                 environ: dict[str, str] | None = None, capture_factory: Callable | None = None) -> None:
        if config.table is None:
            raise ConfigError(f"{source}: no [table] section: `tablehw run` needs at least [table] id")
        self.config, self.source = config, source
        self.simulate, self.rounds, self.observer = simulate, rounds, observer
        self.environ = dict(os.environ if environ is None else environ)
        self.capture_factory = capture_factory  # the camera's VideoCapture (injected: a stand-in in tests)
        self.sim = config.simulation or SimulationSection()
        if simulate:  # without a seed (option or config) every run plays differently; the seed is logged
            seed = self.sim.seed if seed is None else seed
            self.sim = msgspec.structs.replace(self.sim, seed=secrets.randbelow(999_999) + 1 if seed is None else seed)
        self.table_id = config.table.id
        self.topics = Topics((config.mqtt or MqttSection()).prefix, self.table_id)
        self.link_settings = link_settings(config, mqtt_url)
        storage = config.storage or StorageSection()
        self.storage = storage_path(self.table_id, storage, self.environ.get("STATE_DIRECTORY"))
        self.rotation = RotationPolicy(storage.journal_rotate_days, storage.journal_rotate_mb,
                                       storage.journal_keep_rounds, storage.journal_archive_days)
        self.failure: JournalError | None = None  # why the running table must lock out
        self.notifier = Notifier(self.environ)
        self.stop_event = StopSignal()
        self.engine: RoundEngine | None = None

    # --- running ---------------------------------------------------------------------------------
    def run(self) -> int:
        """Check, then play until stopped; the exit status (0, or EXIT_LOCKED / EXIT_STORAGE)."""
        try:
            with holding(self.storage, "starting this table"):
                return self._checked_run()
        except StorageFailure as exc:  # the folder itself cannot be used (read-only, gone)
            return self.lock_out(str(exc), EXIT_STORAGE)

    def _checked_run(self) -> int:
        storage = self.config.storage or StorageSection()
        try:
            key = load_key(storage.journal_key_file)
        except ConfigError as exc:
            return self.lock_out(str(exc))
        path = journal_path(self.storage)
        check = AnchorCheck(path, self.topics, storage.anchor_wait_s, created=not path.exists())
        try:
            journal = Journal.open(path, key=key)
        except StorageFailure as exc:
            return self.lock_out(str(exc), EXIT_STORAGE)
        except JournalError as exc:
            return self.lock_out(str(exc))
        try:
            disk = DiskWatch(self.storage, warning_mb=storage.disk_warning_mb, minimum_mb=storage.disk_minimum_mb)
            disk.check()
            rotate(journal, self.storage, self.rotation)
            return self.play(journal, disk, check)
        except StorageFailure as exc:
            return self.lock_out(str(exc), EXIT_STORAGE)
        except JournalError as exc:
            return self.lock_out(str(exc))
        finally:
            check.stop()
            journal.close()

    def play(self, journal: Journal, disk: DiskWatch, check: AnchorCheck) -> int:
        """Run the table on a verified journal; the outbox sends nothing until `check` has passed."""
        storage = self.config.storage or StorageSection()
        evidence = EvidenceStore(self.storage, storage.evidence_retention_days, on_failure=disk.report,
                                 table=self.table_id, clock=journal.clock)
        evidence.prune()
        devices, terminals = self.devices(evidence)
        settings = engine_settings(self.config)
        checkpoint = no_checkpoint
        if self.simulate and self.sim.crash_at:
            from .simulation.faults import CrashAt
            checkpoint = CrashAt(self.sim.crash_at)
        factory = family_factory(self.config, self.source)  # a game the service cannot run stops here
        metrics = self.metrics(journal)
        observers = [o for o in (metrics, self.observer) if o is not None]
        engine = RoundEngine(settings, journal, self.topics, factory, devices, checkpoint=checkpoint,
                             observer=RoundObservers(observers), board=self.rebuild_board(journal))
        engine.evidence = evidence
        engine.disk_space = disk.space
        self.engine = engine
        if metrics is not None:
            metrics.attach(engine)
        access = self.config.access
        self.gate = RequestGate(self.topics, access, engine.inbox)
        if not (access.terminals or access.dealers or access.supervisors or access.back_office):
            log.warning("table %s: [access] names nobody: no bet, console or recall request will be accepted "
                        "over MQTT (docs/mqtt.md, \"Identity\")", self.table_id)
        link = MqttLink(self.link_settings, Will(self.topics.availability, availability(self.table_id, "offline"),
                                                 availability(self.table_id, "online")),
                        subscriptions=self.topics.inbound(), on_message=self.gate, on_status=engine.inbox.put)
        sender = OutboxSender(journal, link, replies_prefix=self.topics.replies)
        checked = threading.Event()

        def release() -> None:  # the anchor check passed: from now on the outbox delivers
            link.on_delivery = sender.deliver
            if link.connected:
                sender.deliver(Connected(False))
            checked.set()

        sender.start()
        check.start(journal, link, release, self._failed)
        link.start()
        if not checked.wait(check.wait_s) and self.failure is None:
            log.error("table %s: the broker did not answer within %.1f s: the journal's anchor is unchecked; the "
                      "table plays and publishes nothing until the check has run", self.table_id, check.wait_s)
        rotation = Rotation(journal, self.storage, self.rotation, self._failed)
        self._signals()
        try:
            if self.failure is not None:
                raise self.failure
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
            rotation.start()
            engine.run(self.stop_event, self.rounds, heartbeat=lambda: self._turn(disk))
        except StorageFailure as exc:
            self._failed(exc)
        finally:
            rotation.stop()
            self.notifier.stopping()
            devices.stop()
            if terminals is not None:
                terminals.stop()
            if not link.connected or not checked.is_set():
                log.warning("stopping without a broker (or before the anchor check): %d messages not sent stay in "
                            "the journal and leave at the next start", len(journal.messages(pending_only=True)))
            elif not sender.wait_sent(10.0):
                log.warning("stopping with messages still in the outbox: they leave at the next start")
            link.stop(availability(self.table_id, "offline"))
            sender.stop()
            if metrics is not None:
                metrics.stop()
        if self.failure is not None:
            return self.lock_out(str(self.failure), EXIT_STORAGE if isinstance(self.failure, StorageFailure)
                                 else EXIT_LOCKED)
        return 0

    def _turn(self, disk: DiskWatch) -> None:
        """Each turn of the engine's loop: the systemd watchdog and the disk watch."""
        self.notifier.watchdog()
        disk.check()

    def _failed(self, error: JournalError) -> None:
        """Lock out at the engine's next turn (called from the anchor check's or the rotation's thread too)."""
        if self.failure is None:
            self.failure = error
            self.stop_event.set()

    def metrics(self, journal: Journal) -> Any:
        """The Prometheus endpoint when [metrics] is configured (metrics.py), else None."""
        if self.config.metrics is None:
            return None
        from importlib.metadata import version

        from .metrics import TableMetrics
        metrics = TableMetrics({"table": self.table_id, "game": game_name(self.config),
                                "rulebook": self.config.game.rulebook, "version": version("tablehw")},
                               journal, self.storage)
        metrics.serve(self.config.metrics)
        return metrics

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
                                 calibration=self.config.table.camera_calibration,
                                 unvalidated_felt_ok=self.config.table.camera_unvalidated_felt,
                                 unvalidated_tilt_ok=self.config.table.camera_unvalidated_tilt,
                                 capture_factory=self.capture_factory), None
        from .simulation.wiring import simulated_devices
        log.info("table %s: simulation seed %d (replay with --seed %d)", self.table_id, self.sim.seed, self.sim.seed)
        return simulated_devices(self.config, self.source, self.sim, evidence, self.link_settings.url, self.topics)

    def _signals(self) -> None:
        self.stop_event.install()

    # --- lock-out ----------------------------------------------------------------------------------
    def lock_out(self, reason: str, status: int = EXIT_LOCKED) -> int:
        """Do not play: say so on `availability` (retained, `locked` with the reason), exit with a status
        systemd does not restart (RestartPreventExitStatus=74 78)."""
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
        return status
