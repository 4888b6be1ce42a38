"""Prometheus metrics of one ledger instance (`tablehw ledger --metrics-port N`, docs/ledger.md "Metrics").

Counters of what this instance booked, and, read from the books at each scrape, what the floor's books
hold that needs a person: open and unfillable gaps, anomalies not yet alarmed, whether this instance is
the warden. A value the books cannot give at a scrape is left out of it (logged); an endpoint that
cannot listen is logged and the ledger books on.
"""

from __future__ import annotations

import logging
from typing import Any, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .database import Database
from .errors import LedgerError

log = logging.getLogger(__name__)


class LedgerMetrics:
    """The instance's metrics, in a registry of its own."""

    def __init__(self, books_url: str, instance: str, warden: Any) -> None:
        self.registry = CollectorRegistry()
        self.messages = Counter("tablehw_ledger_messages", "Messages this instance took from the broker, by outcome",
                                ["outcome"], registry=self.registry)
        self.anomalies = Counter("tablehw_ledger_anomalies", "Anomalies this instance found, by kind", ["kind"],
                                 registry=self.registry)
        self.batch = Histogram("tablehw_ledger_batch_seconds", "Time to book one batch (one transaction)",
                               buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0), registry=self.registry)
        for outcome in ("booked", "duplicate", "refused", "other"):
            self.messages.labels(outcome)
        self.registry.register(BooksState(books_url, instance, warden))
        self._server: Any = None

    def booked(self, received: int, outcome: Any, seconds: float) -> None:
        refused = sum(1 for a in outcome.anomalies if a.kind in ("malformed", "oversized", "table_mismatch",
                                                                  "type_mismatch"))
        self.messages.labels("booked").inc(outcome.booked)
        self.messages.labels("duplicate").inc(outcome.duplicates)
        self.messages.labels("refused").inc(refused)
        self.messages.labels("other").inc(max(0, received - outcome.booked - outcome.duplicates - refused))
        for anomaly in outcome.anomalies:
            self.anomalies.labels(anomaly.kind).inc()
        self.batch.observe(seconds)

    def serve(self, port: int, address: str) -> bool:
        try:
            self._server, _ = start_http_server(port, address, registry=self.registry)
        except OSError as exc:
            log.error("metrics: cannot listen on %s:%d: %s; the ledger books on without metrics", address, port,
                      exc.strerror or exc)
            return False
        log.info("metrics on http://%s:%d/metrics", address, self._server.server_port)
        return True

    @property
    def port(self) -> int | None:
        return self._server.server_port if self._server else None

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server = None


class BooksState(Collector):
    """Read from the books at each scrape (its own short connection: scrapes come on the server's thread)."""

    def __init__(self, books_url: str, instance: str, warden: Any) -> None:
        self.books_url, self.instance, self.warden = books_url, instance, warden

    def collect(self) -> Iterator[GaugeMetricFamily]:
        warden = GaugeMetricFamily("tablehw_ledger_warden", "1 while this instance holds the warden's lease")
        warden.add_metric([], 1.0 if self.warden.holding else 0.0)
        yield warden
        try:
            database = Database.connect(self.books_url, name=f"{self.instance}-metrics")
        except LedgerError as exc:
            log.warning("metrics: the books cannot be read: %s", exc)
            return
        try:
            open_, unfillable, unalarmed, tables = database.run(lambda s: s.one(
                "SELECT (SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL AND unfillable_utc IS NULL), "
                "(SELECT COUNT(*) FROM gaps WHERE filled_utc IS NULL AND unfillable_utc IS NOT NULL), "
                "(SELECT COUNT(*) FROM anomalies WHERE alarmed_utc IS NULL), "
                "(SELECT COUNT(DISTINCT table_id) FROM epochs)"))
        except LedgerError as exc:
            log.warning("metrics: the books cannot be read: %s", exc)
            return
        finally:
            database.close()
        for name, help_text, value in (
                ("tablehw_ledger_gaps_open", "Gaps the ledger is filling", open_),
                ("tablehw_ledger_gaps_unfillable", "Gaps the controllers could not fill (a person must look)",
                 unfillable),
                ("tablehw_ledger_anomalies_unalarmed", "Anomalies not yet published as alarms", unalarmed),
                ("tablehw_ledger_tables", "Tables the books know", tables)):
            gauge = GaugeMetricFamily(name, help_text)
            gauge.add_metric([], float(value))
            yield gauge
