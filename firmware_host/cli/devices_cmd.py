"""`tablehw devices check`: connect to every configured device, run the handshake, print health."""

from __future__ import annotations

import argparse
import json
import logging

from drivers.errors import DeviceError
from drivers.events import Health

from ..config import load_config
from ..errors import ConfigError
from ..link.devices import DeviceSet

ERRORS = (DeviceError,)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devices", help="device tools")
    devices_sub = p.add_subparsers(dest="devices_command", required=True, metavar="ACTION")
    c = devices_sub.add_parser("check", help="connect to every configured device, handshake, print health")
    c.add_argument("--config", required=True, help="table configuration (TOML) with a [devices] section")
    c.add_argument("--timeout", type=float, default=None,
                   help="seconds to wait for handshakes (default: devices.link.handshake_timeout_s)")
    c.add_argument("--mock-gpio", action="store_true", help="use gpiozero's MockFactory (no Raspberry Pi)")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table")
    c.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Exit 0 when every device is connected, 1 otherwise."""
    config = load_config(args.config)
    if config.devices is None:
        raise ConfigError(f"{args.config}: devices: no [devices] section: nothing to check")
    pin_factory = None
    if args.mock_gpio:
        from gpiozero.pins.mock import MockFactory
        pin_factory = MockFactory()
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    devices = DeviceSet(config.devices, pin_factory=pin_factory)
    timeout = args.timeout if args.timeout is not None else config.devices.link.handshake_timeout_s
    try:
        devices.start(lambda event: None)
        devices.handshake(timeout)
        rows = []
        for name, status in devices.status.items():
            row = {"device": name, "kind": status.kind, "health": str(status.state), "reason": status.reason}
            if status.identity is not None:
                ident = status.identity
                row |= {"serial": ident.serial, "firmware": ident.firmware, "protocol": ident.protocol_version,
                        "device_type": ident.device_type}
            rows.append(row)
    finally:
        devices.stop()
    if args.json:
        print(json.dumps({"devices": rows}, indent=2))
    else:
        for row in rows:
            ident = f"  {row['serial']} fw {row['firmware']} protocol {row['protocol']}" if "serial" in row else ""
            print(f"{row['device']:<8} {row['kind']:<13} {row['health']:<10} {row['reason']}{ident}")
    return 0 if all(row["health"] == Health.CONNECTED for row in rows) else 1
