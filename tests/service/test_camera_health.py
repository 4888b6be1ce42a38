"""One owner of the dice camera's health (firmware_host/camera_health.py): the worst fault its parts hold, told once
when it changes, whichever thread reports."""

from __future__ import annotations

import threading

import pytest

from firmware_host.camera_health import CameraHealth
from firmware_host.rounds.inputs import DeviceHealthChanged


def told(items) -> list[tuple[str, str]]:
    return [(i.health, i.message) for i in items]


def test_the_worst_fault_held_is_told_once_and_connected_when_none_is():
    items: list[DeviceHealthChanged] = []
    health = CameraHealth(items.append)
    assert health.fault("frames", "degraded", "960x540 frames") is True
    assert health.fault("frames", "degraded", "960x540 frames") is False  # held: not told again, per frame
    assert health.fault("capture", "lost", "no frame") is True
    assert health.fault("capture", "lost", "opening it again in 2 s") is False  # held: its first message stands
    health.fault("model", "degraded", "reads declined: no model")  # degraded while lost: nothing to tell
    assert told(items) == [("degraded", "960x540 frames"), ("lost", "no frame")]
    health.fine("capture", "frames again")
    assert told(items)[-1] == ("degraded", "960x540 frames")  # the first found of those left
    health.fine("frames", "frames fit the calibration again")
    assert told(items)[-1] == ("degraded", "reads declined: no model")
    health.fine("model", "a new empty-table model")
    health.fine("model", "a new empty-table model")  # not held: nothing to tell
    assert told(items)[-1] == ("connected", "a new empty-table model") and len(items) == 5
    assert health.health == "connected"
    assert all(i.device == "camera" for i in items)


def test_a_fault_is_lost_or_degraded():
    with pytest.raises(ValueError, match="lost or degraded"):
        CameraHealth(lambda item: None).fault("frames", "connected", "?")


def test_two_threads_reporting_at_once_leave_it_told_as_it_ends():
    items: list[DeviceHealthChanged] = []
    health = CameraHealth(items.append)

    def flap(part: str) -> None:
        for _ in range(2000):
            health.fault(part, "degraded", part)
            health.fine(part, f"{part} fine")

    threads = [threading.Thread(target=flap, args=(p,)) for p in ("frames", "model")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert health.health == "connected" and items[-1].health == "connected"
    # never the same told twice running (two faults of one health, each part's own message, may follow each other)
    assert all((a.health, a.message) != (b.health, b.message) for a, b in zip(items, items[1:]))
