"""Prometheus metrics of one table on a local HTTP port ([metrics], docs/metrics.md).

`TableMetrics` observes the round engine (rounds, voids by reason, read latency: counted as they
happen) and reads the rest at each scrape: outbox depth, broker connection, device health, journal
and storage sizes. It only watches: a metric that cannot be read is left out of that scrape, and an
endpoint that cannot listen is logged while the table plays on.

    metrics = TableMetrics(info, journal, storage)      # then engine.observer includes it
    metrics.serve(MetricsSection(port=9101))            # http://127.0.0.1:9101/metrics
    metrics.attach(engine); ...; metrics.stop()
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from pathlib import Path
from typing import Any, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily
from prometheus_client.registry import Collector

from vision.reading import DECLINED

from .rounds.engine import RoundSummary
from .rounds.observer import RoundObserver
from .service_config import MetricsSection

log = logging.getLogger(__name__)

HEALTH_STATES = ("connected", "degraded", "lost")
# From a reading in a fraction of a second (cussec after the lift) to a dice throw that takes its time.
READING_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0)


class TableMetrics(RoundObserver):
    """The table's metrics, in a registry of its own (no process-wide state)."""

    def __init__(self, info: dict[str, str], journal: Any, storage: Path) -> None:
        self.registry = CollectorRegistry()
        self.rounds = Counter("tablehw_rounds", "Rounds finished, by outcome (settled, or voided with stakes returned)",
                              ["outcome"], registry=self.registry)
        self.void_attempts = Counter("tablehw_void_attempts", "Void attempts (void throw, no-spin ...), by reason",
                                     ["reason"], registry=self.registry)
        self.voided_rounds = Counter("tablehw_voided_rounds", "Rounds voided (every stake returned), by reason",
                                     ["reason"], registry=self.registry)
        self.declined = Counter("tablehw_dice_declined", "Throws void because the camera declined a die, by why",
                                ["why"], registry=self.registry)
        self.reading = Histogram("tablehw_reading_seconds", "From the throw, spin, deal or dome lift to its reading "
                                 "reaching the round engine", buckets=READING_BUCKETS, registry=self.registry)
        for outcome in ("settled", "voided"):
            self.rounds.labels(outcome)
        self.live = LiveState(info, journal, storage)
        self.registry.register(self.live)
        self._server: Any = None

    def attach(self, engine: Any) -> None:
        """Read the broker connection and device health from this engine at each scrape."""
        self.live.engine = engine

    # --- the observer ----------------------------------------------------------------------------
    def reading_taken(self, seconds: float) -> None:
        self.reading.observe(seconds)

    def attempt_voided(self, reason: str) -> None:
        self.void_attempts.labels(reason).inc()

    def die_declined(self, why: str) -> None:
        self.declined.labels(why if why in DECLINED else "other").inc()  # bounded: the reader's reasons only

    def round_finished(self, summary: RoundSummary) -> None:
        self.rounds.labels("voided" if summary.void else "settled").inc()
        if summary.void:
            self.voided_rounds.labels(summary.reason or "unknown").inc()

    # --- the endpoint ----------------------------------------------------------------------------
    def serve(self, section: MetricsSection) -> bool:
        """Listen on the section's address and port; False (logged) when it cannot."""
        try:
            self._server, _ = start_http_server(section.port, section.address, registry=self.registry)
        except OSError as exc:
            log.error("metrics: cannot listen on %s:%d: %s; the table plays on without metrics", section.address,
                      section.port, exc.strerror or exc)
            return False
        log.info("metrics on http://%s:%d/metrics", section.address, self._server.server_port)
        return True

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class LiveState(Collector):
    """What is read at scrape time (on the HTTP server's thread; it reads, never writes)."""

    def __init__(self, info: dict[str, str], journal: Any, storage: Path) -> None:
        self.info, self.journal, self.storage = info, journal, storage
        self.engine: Any = None

    def collect(self) -> Iterator[Any]:
        info = InfoMetricFamily("tablehw_table", "The table this controller runs")
        info.add_metric([], self.info)
        yield info
        for read in (self.storage_metrics, self.engine_metrics):
            try:
                yield from list(read())
            except (OSError, sqlite3.Error, RuntimeError) as exc:  # RuntimeError: a dict changed while copied
                log.warning("metrics: %s left out of this scrape: %s", read.__name__, exc)

    def storage_metrics(self) -> Iterator[GaugeMetricFamily]:
        yield gauge("tablehw_outbox_pending", "Messages journalled but not yet acknowledged by the broker",
                    self.journal.pending_messages())
        yield gauge("tablehw_journal_bytes", "Size of the journal (SQLite file and its write-ahead log)",
                    sum(p.stat().st_size for p in self.journal_files()))
        usage = shutil.disk_usage(self.storage)
        yield gauge("tablehw_storage_free_bytes", "Free space where the journal and the evidence are kept", usage.free)
        yield gauge("tablehw_storage_size_bytes", "Size of the file system holding the journal and the evidence",
                    usage.total)

    def engine_metrics(self) -> Iterator[GaugeMetricFamily]:
        engine = self.engine
        if engine is None:
            return
        yield gauge("tablehw_broker_connected", "1 while the MQTT broker connection is up",
                    int(engine.broker["reachable"]))
        health = GaugeMetricFamily("tablehw_device_health", "1 for each device's current health (connected, "
                                   "degraded, lost)", labels=["device", "state"])
        for device, state in sorted(dict(engine.health).items()):
            for known in HEALTH_STATES:
                health.add_metric([device, known], 1.0 if state == known else 0.0)
        yield health
        yield gauge("tablehw_round", "The table's current round number", engine.round)

    def journal_files(self) -> list[Path]:
        base = Path(self.journal.path)
        return [p for p in (base, base.with_name(base.name + "-wal")) if p.exists()]


def gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)
