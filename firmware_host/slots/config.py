"""The slot service's configuration: a strict TOML schema (msgspec), errors naming the file and key path.

    version = 1
    [service]   site, journal path, gaming-day zone and start, checkpoint interval
    [mqtt]      broker URL, topic prefix, client id
    [access]    broker users of the floor system (polls) and supervisors (fault clears, transfers); limits
    [sas]       timing limits, retries, poll cycle, broadcast period, rollover window
    [payback]   regulatory minimum, alarm threshold, minimum games
    [paytables.<id>]  sigma: standard deviation of one game's return per unit bet
    [[ports]]   url, framing, and [[ports.machines]] id, address, model, paytable, max_bet
    [[pools]]   id, machines, rate_pct, seed_cents, SAS group and level

See config/slots/example.toml and docs/sas.md.
"""

from __future__ import annotations

import tomllib
from datetime import time
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from drivers.sas.errors import SasFrameError
from drivers.sas.poller import PollStep

from ..schema_check import key_path_of
from ..errors import ConfigError
from ..service_config import RequestLimitsSection, UserName

Identifier = Annotated[str, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]
Percent = Annotated[str, Meta(pattern=r"^\d{1,3}(\.\d{1,6})?$", description='a percentage like "1.5"')]
Ratio = Annotated[str, Meta(pattern=r"^\d+/[1-9]\d*$", description='a fraction like "1/100"')]


# General polls between meter polls; the 0x2F reply holds coin in/out, jackpot and games played/won/lost
# in one snapshot (for the self-audit), plus cancelled credits.
DEFAULT_CYCLE = ("general", "0x1C", "general", "0x2F:00,01,02,05,06,07,04", "general", "0x1A")


class ServiceSection(Struct, forbid_unknown_fields=True, frozen=True):
    site: Identifier
    journal: str  # the slot service's journal file (SQLite)
    timezone: str = "UTC"
    gaming_day_starts: Annotated[str, Meta(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")] = "00:00"
    checkpoint_every: Annotated[int, Meta(ge=1, le=1_000_000)] = 500  # journal records between checkpoints


class MqttSection(Struct, forbid_unknown_fields=True, frozen=True):
    url: str = "mqtt://127.0.0.1:1883"
    prefix: Annotated[str, Meta(pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")] = "tablehw"
    client_id: Identifier | None = None  # default "tablehw-slots-<site>"
    username: str | None = None
    password_file: str | None = None  # a file holding the password (kept out of the config)
    reconnect_max_s: Annotated[float, Meta(ge=0.1, le=600)] = 30.0


class SlotAccessSection(RequestLimitsSection, forbid_unknown_fields=True, frozen=True):
    """Who may send floor requests, by broker user name (the user is the last level of the request topic)."""

    floor: list[UserName] = []  # on-demand polls
    supervisors: list[UserName] = []  # polls, meter-fault clears and pool transfers

    def may_send(self, user: str) -> bool:
        return user in self.floor or user in self.supervisors


class SasSection(Struct, forbid_unknown_fields=True, frozen=True):
    response_timeout_ms: Annotated[float, Meta(ge=1, le=1000)] = 20.0
    inter_byte_timeout_ms: Annotated[float, Meta(ge=1, le=100)] = 5.0
    retries: Annotated[int, Meta(ge=0, le=5)] = 2
    min_poll_interval_ms: Annotated[float, Meta(ge=0, le=5000)] = 200.0
    cycle: list[str] = msgspec.field(default_factory=lambda: list(DEFAULT_CYCLE))
    broadcast_every_ms: Annotated[float, Meta(ge=50, le=5000)] = 1000.0  # within SAS's 5 s
    rollover_window: Ratio = "1/100"
    disable_on_memory_exception: bool = True  # 0x31-0x3A, 0x7A


class PaybackSection(Struct, forbid_unknown_fields=True, frozen=True):
    minimum_pct: Percent = "80"  # 004 §VIII.2
    z_alarm: Annotated[float, Meta(gt=0, le=10)] = 3.09
    min_games: Annotated[int, Meta(ge=1)] = 1000


class PaytableSection(Struct, forbid_unknown_fields=True, frozen=True):
    sigma: Annotated[float, Meta(gt=0, le=1000)]  # standard deviation of one game's return per unit bet


class MachineSection(Struct, forbid_unknown_fields=True, frozen=True):
    id: Identifier
    address: Annotated[int, Meta(ge=1, le=127)]
    model: str
    paytable: str
    max_bet: Annotated[int, Meta(ge=1, le=100_000)] | None = None  # default: the 0x1F reply


class PortSection(Struct, forbid_unknown_fields=True, frozen=True):
    url: str
    machines: list[MachineSection]
    framing: Literal["auto", "parity", "escape"] = "auto"


class PoolSection(Struct, forbid_unknown_fields=True, frozen=True):
    id: Identifier
    machines: list[Identifier]
    rate_pct: Percent
    seed_cents: Annotated[int, Meta(ge=0)]
    group: Annotated[int, Meta(ge=1, le=255)]
    level: Annotated[int, Meta(ge=1, le=32)] = 1
    kind: Literal["jackpot", "superjackpot"] = "jackpot"


class SlotsConfig(Struct, forbid_unknown_fields=True, frozen=True):
    version: Literal[1]
    service: ServiceSection
    ports: list[PortSection]
    paytables: dict[str, PaytableSection]
    mqtt: MqttSection = MqttSection()
    access: SlotAccessSection = SlotAccessSection()  # nobody may send requests by default
    sas: SasSection = SasSection()
    payback: PaybackSection = PaybackSection()
    pools: list[PoolSection] = []

    # --- derived values --------------------------------------------------------------------
    def machines(self) -> dict[str, tuple[PortSection, MachineSection]]:
        return {m.id: (port, m) for port in self.ports for m in port.machines}

    def cycle(self) -> list[PollStep]:
        return [PollStep.parse(step) for step in self.sas.cycle]

    def day_starts(self) -> time:
        return time.fromisoformat(self.service.gaming_day_starts)

    def rollover_window(self) -> Fraction:
        return Fraction(self.sas.rollover_window)

    def minimum_return(self) -> Fraction:
        return Fraction(self.payback.minimum_pct) / 100


def percent(text: str) -> Fraction:
    return Fraction(text) / 100


def parse_slots_config(data: dict, source: str = "<slots config>") -> SlotsConfig:
    """Validate parsed TOML; cross-checks (ids, addresses, paytables, pools, cycle) name the key path."""
    try:
        config = msgspec.convert(data, SlotsConfig)
    except msgspec.ValidationError as exc:
        path, message = key_path_of(exc)
        raise ConfigError(f"{source}: {path or '(top level)'}: {message}") from None

    def fail(path: str, message: str) -> ConfigError:
        return ConfigError(f"{source}: {path}: {message}")

    seen: set[str] = set()
    for p, port in enumerate(config.ports):
        addresses: set[int] = set()
        for i, machine in enumerate(port.machines):
            where = f"ports.{p}.machines.{i}"
            if machine.id in seen:
                raise fail(f"{where}.id", f"machine id {machine.id!r} is used twice")
            if machine.address in addresses:
                raise fail(f"{where}.address", f"address {machine.address} is used twice on {port.url}")
            if machine.paytable not in config.paytables:
                raise fail(f"{where}.paytable", f"no [paytables.{machine.paytable}] section")
            seen.add(machine.id)
            addresses.add(machine.address)
        if len(addresses) >= 127:
            raise fail(f"ports.{p}.machines", "a port needs one free address for implied acknowledgements")
    pool_ids: set[str] = set()
    for i, pool in enumerate(config.pools):
        if pool.id in pool_ids:
            raise fail(f"pools.{i}.id", f"pool id {pool.id!r} is used twice")
        pool_ids.add(pool.id)
        for machine in pool.machines:
            if machine not in seen:
                raise fail(f"pools.{i}.machines", f"unknown machine {machine!r}")
        if not pool.machines:
            raise fail(f"pools.{i}.machines", "a pool needs at least one machine")
    for i, step in enumerate(config.sas.cycle):
        try:
            PollStep.parse(step)
        except SasFrameError as exc:
            raise fail(f"sas.cycle.{i}", str(exc)) from None
    try:
        from zoneinfo import ZoneInfo
        ZoneInfo(config.service.timezone)
    except (KeyError, ValueError, OSError):
        raise fail("service.timezone", f"unknown time zone {config.service.timezone!r}") from None
    return config


def load_slots_config(path: str | Path) -> SlotsConfig:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse_slots_config(data, str(path))
