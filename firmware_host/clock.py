"""Time for the service: UTC wall time for records and payloads, a monotonic clock for durations."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone


def utc_text(epoch: float) -> str:
    """An epoch time as ISO 8601 UTC with milliseconds and a `Z` ("2025-05-01T20:14:03.120Z")."""
    moment = datetime.fromtimestamp(epoch, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def utc_after(utc: str, seconds: float) -> str:
    """The UTC text `seconds` after another UTC text of the same form."""
    moment = datetime.strptime(utc, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return utc_text((moment + timedelta(seconds=seconds)).timestamp())


class SystemClock:
    """The real clocks; tests pass an object with the same two methods."""

    def utc(self) -> str:
        return utc_text(time.time())

    def monotonic(self) -> float:
        return time.monotonic()
