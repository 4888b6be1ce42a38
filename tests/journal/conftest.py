"""Fixtures for the journal tests: the service tests' private Mosquitto."""

from __future__ import annotations

from ..service.conftest import broker  # noqa: F401  (a fixture, used by name)
