"""The service's optional config sections: [table], [mqtt], [access], [storage], [metrics], [simulation] (msgspec).

They hang off `config.TableConfig` as optional fields, so a rules-only config (for `tablehw edge`
or `settle`) stays valid; `tablehw run` requires [table]. See docs/config.md and docs/deploy.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from msgspec import Meta, Struct

from .mqtt.admission import Limits
from .mqtt.identity import USER_PATTERN

Identifier = Annotated[str, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
                                 description="letters, digits, '_', '.', '-' (used in MQTT topics and file names)")]
TopicPrefix = Annotated[str, Meta(pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$",
                                  description="MQTT topic levels of letters, digits, '_', '.', '-' joined by '/'")]
Seconds = Annotated[float, Meta(ge=0, le=86_400)]


class TableSection(Struct, forbid_unknown_fields=True, frozen=True):
    """Who the table is and how its rounds run."""

    id: Identifier
    site: str = ""
    dealer_confirms: bool = False  # wait for the dealer's confirm before settling
    betting_seconds: Seconds = 20.0  # betting closes by itself after this; 0 = only the dealer closes it
    reading_timeout_s: Seconds = 30.0  # no reading this long after the throw/spin: void the attempt
    recovery: Literal["resume", "void"] = "resume"  # a round interrupted by a crash: resume it or return stakes
    max_attempts: Annotated[int, Meta(ge=1, le=100)] = 10  # void attempts in a row before the round is voided
    camera_calibration: str | None = None  # `tablehw vision calibrate` output: table mm, middle line, walls, dome
    # The felt is more neutral than any the pose network was trained on (vision/felt_check.py), and was checked since:
    # without this a dice table on such a felt refuses to start, and declines its reads if its felt turns so
    camera_unvalidated_felt: bool = False
    # The camera leans more off straight down than the pose network was trained for (vision/camera_check.py), and
    # was checked so since: without this a dice table whose calibration says so refuses to start
    camera_unvalidated_tilt: bool = False


class MqttSection(Struct, forbid_unknown_fields=True, frozen=True):
    """The broker and how to log in (docs/mqtt.md)."""

    url: str = "mqtt://127.0.0.1:1883"
    prefix: TopicPrefix = "tablehw"
    client_id: Identifier | None = None  # default "tablehw-<table id>"
    username: str | None = None
    password_file: str | None = None  # a file holding the password (kept out of the config)
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    keepalive_s: Annotated[int, Meta(ge=5, le=3600)] = 30
    session_expiry_s: Annotated[int, Meta(ge=0, le=4_294_967_295)] = 86_400
    reconnect_max_s: Annotated[float, Meta(ge=0.1, le=600)] = 30.0


UserName = Annotated[str, Meta(pattern=USER_PATTERN, description="a broker user name (one topic level)")]
Owner = Annotated[str, Meta(min_length=1, max_length=128)]


class RequestLimitsSection(Struct, forbid_unknown_fields=True, frozen=True):
    """Per broker user: the largest request read (bytes, checked before decoding) and the request rate."""

    max_request_bytes: Annotated[int, Meta(ge=256, le=1_048_576)] = 4096
    requests_per_second: Annotated[float, Meta(gt=0, le=10_000)] = 20.0
    request_burst: Annotated[int, Meta(ge=1, le=100_000)] = 40  # also the most requests of one user waiting

    def limits(self) -> Limits:
        return Limits(self.max_request_bytes, self.requests_per_second, self.request_burst)


class AccessSection(RequestLimitsSection, forbid_unknown_fields=True, frozen=True):
    """Who may do what over MQTT, by broker user name (docs/mqtt.md, "Identity"). Nobody by default."""

    terminals: dict[UserName, list[Owner]] = {}  # betting terminal -> the owners (players, seats) it bets for
    dealers: list[UserName] = []  # console actions but override
    supervisors: list[UserName] = []  # every console action, override included; recall
    back_office: list[UserName] = []  # recall (and the journal's messages requests)

    def may_send(self, kind: str, user: str) -> bool:
        """Whether `user` may send requests of `kind` (bets, console, recall) at all."""
        if kind == "bets":
            return user in self.terminals
        if kind == "console":
            return user in self.dealers or user in self.supervisors
        return user in self.back_office or user in self.supervisors

    def may_bet_for(self, user: str, owner: str) -> bool:
        return owner in self.terminals.get(user, ())


class StorageSection(Struct, forbid_unknown_fields=True, frozen=True):
    """Where the journal and the evidence live, how long they are kept, and the start-up and disk checks."""

    path: str | None = None  # default /var/lib/tablehw/<table id> ($STATE_DIRECTORY under systemd)
    evidence_retention_days: Annotated[int, Meta(ge=1, le=36_500)] = 365
    journal_key_file: str | None = None  # HMAC key for the record chain (recommended in production)
    anchor_wait_s: Annotated[float, Meta(ge=0.5, le=60)] = 5.0  # how long start-up waits for the broker's anchors
    disk_warning_mb: Annotated[int, Meta(ge=0, le=1_000_000)] = 1024  # `state.disk.warning` below this
    disk_minimum_mb: Annotated[int, Meta(ge=0, le=1_000_000)] = 128  # lock out below this (before the disk is full)
    journal_rotate_days: Annotated[int, Meta(ge=1, le=31)] = 1  # archive the live journal's older part this often
    journal_rotate_mb: Annotated[int, Meta(ge=4, le=4096)] = 64  # ... or when the live file grows past this
    journal_keep_rounds: Annotated[int, Meta(ge=10, le=100_000)] = 10  # rounds always left in the live file
    journal_archive_days: Annotated[int, Meta(ge=1, le=36_500)] = 3650  # archive files older than this are deleted


class MetricsSection(Struct, forbid_unknown_fields=True, frozen=True):
    """Prometheus metrics over HTTP (docs/metrics.md). No [metrics] section: no endpoint at all."""

    port: Annotated[int, Meta(ge=1, le=65_535)]  # one per table: several tables on one Pi need their own
    address: str = "127.0.0.1"  # loopback only unless set (the unit allows only private networks anyway)


class SimulationSection(Struct, forbid_unknown_fields=True, frozen=True):
    """What `tablehw run --simulate` plays: seeded terminals placing bets and a simulated table."""

    seed: int | None = None  # None: a new seed every run, printed so the run can be replayed (--seed)
    terminals: Annotated[int, Meta(ge=1, le=1000)] = 4  # how many of [access] terminals the simulation bets as
    bets_per_round: Annotated[int, Meta(ge=0, le=100_000)] = 12
    void_rate: Annotated[float, Meta(ge=0, le=0.9)] = 0.05  # share of throws / spins that are void
    action_seconds: Seconds = 0.02  # how long a throw, spin, dome step or card takes in the simulation
    betting_seconds: Seconds = 0.05  # the simulated dealer closes betting after this ([table] timer is the backstop)
    # "random": the camera reports random faces; "rendered": each throw is rendered and read by vision
    camera: Literal["random", "rendered"] = "random"
    crash_at: str | None = None  # "PHASE:ROUND": SIGKILL the process there (fault injection for tests)


def storage_path(table_id: str, storage: StorageSection | None, state_directory: str | None = None) -> Path:
    """The table's storage folder: the config's path, else systemd's StateDirectory, else /var/lib."""
    if storage and storage.path:
        return Path(storage.path)
    if state_directory:
        return Path(state_directory.split(":")[0])
    return Path("/var/lib/tablehw") / table_id
