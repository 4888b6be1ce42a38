"""DeviceSet: every configured device built from [devices], events to one queue, health after handshake."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from drivers.events import DeviceHealth, DeviceIdentified, Health, WheelResult
from drivers.settings import (
    CammeghSettings, ConsoleSettings, DevicesSection, DomeSettings, LinkTimingSettings, ReplayCameraSettings,
    ShoeSettings,
)
from drivers.sim.cammegh import CammeghSim
from drivers.sim.shoe import ShoeSim
from firmware_host.link.devices import DeviceSet
from tests.link.harness import EventSink

DOME = DomeSettings(lever=17, clasp_left=27, clasp_right=22, dome=23, bell=24, bets_open_light=5, debounce_s=0)
CONSOLE = ConsoleSettings(no_more_bets=4, confirm=14, void=15, new_shooter=18, supervisor_key=25, debounce_s=0)


@pytest.fixture
def sims(tmp_path):
    wheel = CammeghSim(path=tmp_path / "wheel0", period=0.02)
    shoe = ShoeSim(path=tmp_path / "shoe0", serial="SHOE-3")
    wheel.start()
    shoe.start()
    yield wheel, shoe
    wheel.stop()
    shoe.stop()


def test_every_device_started_checked_and_stopped(tmp_path, sims):
    wheel, shoe = sims
    cv2.imwrite(str(tmp_path / "f.png"), np.zeros((4, 4, 3), np.uint8))
    section = DevicesSection(
        wheel=CammeghSettings(port=wheel.path, period_s=0.02, lost_after_s=0.5),
        shoe=ShoeSettings(port=shoe.path, serial="SHOE-3"), dome=DOME, console=CONSOLE,
        camera=ReplayCameraSettings(path=str(tmp_path / "f.png")),
        link=LinkTimingSettings(heartbeat_s=0.05, degraded_after_s=0.25, lost_after_s=0.6))
    devices = DeviceSet(section, pin_factory=MockFactory())
    sink = EventSink()
    devices.start(sink)
    try:
        assert devices.handshake(10.0) == {"wheel": "connected", "shoe": "connected", "dome": "connected",
                                           "console": "connected", "camera": "connected"}
        assert devices.status["shoe"].identity.serial == "SHOE-3"
        assert devices.camera.read().image.shape == (4, 4, 3)
        wheel.play_spin(26, hold=0.05)
        (result,) = sink.take(WheelResult, 1)
        assert result.number == 26 and result.device == "wheel"
        assert any(isinstance(e, DeviceIdentified) and e.device == "shoe" for e in sink.seen)
    finally:
        devices.stop()
    assert shoe.output("gate_lock") == 1


def test_a_device_that_cannot_start_is_lost_with_its_reason(tmp_path):
    clash = DomeSettings(lever=17, clasp_left=17, clasp_right=22, dome=23, bell=24, bets_open_light=5)
    devices = DeviceSet(DevicesSection(dome=clash, console=CONSOLE), pin_factory=MockFactory())
    sink = EventSink()
    devices.start(sink)
    try:
        health = devices.handshake(1.0)
    finally:
        devices.stop()
    assert health == {"dome": "lost", "console": "connected"}
    sink.settle(0.05)
    lost = [e for e in sink.of_type(DeviceHealth) if e.state is Health.LOST]
    assert "cannot start" in lost[0].reason and "clasp_left" in lost[0].reason


def test_a_board_that_never_answers_is_lost_after_the_timeout(tmp_path):
    devices = DeviceSet(DevicesSection(shoe=ShoeSettings(port=str(tmp_path / "nothing"))))
    devices.start(EventSink())
    try:
        assert devices.handshake(0.5) == {"shoe": "lost"}
        assert "cannot open port" in devices.status["shoe"].reason
    finally:
        devices.stop()
