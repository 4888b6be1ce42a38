"""The slots configuration: the example loads; mistakes are errors naming the file and key path."""

from __future__ import annotations

import tomllib
from fractions import Fraction

import pytest

from firmware_host.errors import ConfigError
from firmware_host.slots.config import load_slots_config, parse_slots_config


def _example(repo_root) -> dict:
    return tomllib.loads((repo_root / "config" / "slots" / "example.toml").read_text())


def test_example_config_loads(repo_root):
    config = load_slots_config(repo_root / "config" / "slots" / "example.toml")
    assert set(config.machines()) == {"slot-001", "slot-002"}
    assert config.minimum_return() == Fraction(4, 5) and len(config.cycle()) == 6


@pytest.mark.parametrize("change, message", [
    (lambda d: d["ports"][0]["machines"][1].update(address=1), "ports.0.machines.1.address: address 1 is used twice"),
    (lambda d: d["ports"][0]["machines"][0].update(paytable="PT1"), "ports.0.machines.0.paytable"),
    (lambda d: d["pools"][0].update(machines=["slot-999"]), "pools.0.machines: unknown machine 'slot-999'"),
    (lambda d: d["sas"].update(cycle=["general", "0x01"]), "sas.cycle.1"),
    (lambda d: d["sas"].update(poll_rate=5), "sas.poll_rate: unknown key"),
    (lambda d: d["pools"][0].update(rate_pct="1,5"), "pools.0.rate_pct"),
    (lambda d: d["service"].update(timezone="Mars/Olympus"), "service.timezone"),
])
def test_mistakes_name_the_key_path(repo_root, change, message):
    data = _example(repo_root)
    change(data)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_slots_config(data, "slots.toml")
