"""The service's error tree: one root, then config, journal and round errors.

The rules core (`firmware_host.rules.errors.RulesError`), the device layer
(`drivers.errors.DeviceError`) and vision (`vision.errors.VisionError`) keep roots of their
own so they never import the service; the CLI reports all of them the same way.
"""

from __future__ import annotations


class TableError(Exception):
    """Root of every error the service raises."""


class ConfigError(TableError, ValueError):
    """A configuration file that cannot be used; the message names the file and the key path.
    `problems` lists each problem found (schema_check.Problem: key path and message), when known."""

    def __init__(self, message: str, problems: list | None = None) -> None:
        super().__init__(message)
        self.problems = list(problems or [])


class InputFileError(TableError, ValueError):
    """A bets, throws or results file that cannot be read; the message names the entry."""


class BrokerUnreachable(TableError, ConnectionError):
    """The MQTT broker cannot be reached or refused the connection; the message says why."""
