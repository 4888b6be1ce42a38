"""Wheel sensor board simulator: scripted spins (a given number, revolutions, directions) as raw sensor events."""

from __future__ import annotations

import time

from ..events import Direction
from ..protocol.boards import NO_BALL, WHEEL
from ..wheel_layout import FRENCH
from .board import BoardSim

SENSOR_OFFSET = 5 / 360  # the second sensor of a pair sits 5 degrees clockwise of the first


class WheelBoardSim(BoardSim):
    """A wheel sensor board; `spin()` plays one spin's sensor events with board timestamps."""

    def __init__(self, *, order: tuple[int, ...] = FRENCH, serial: str = "WSB-SIM-1", **kwargs) -> None:
        super().__init__(WHEEL, serial=serial, **kwargs)
        self.order = order
        self.last_ball_direction: Direction | None = None

    def spin(self, number: int | None, *, revolutions: int = 8, ball_direction: Direction | None = None,
             rotor_direction: Direction | None = None, rotor_rpm: float = 25.0, pace: float = 0.0,
             fault_sensor: int | None = None, cut_after_laps: int | None = None) -> list[int]:
        """Play a spin ending in `number` (None: the pocket reader sees no ball); returns the event ids.

        Directions default to the rules: the ball alternates, the rotor turns against it.
        `pace` is real seconds between events (0: as fast as the link takes them); board timestamps
        follow the simulated physics either way. `cut_after_laps` plays only the start of the spin
        (that many ball laps, the rotor meanwhile, no pocket reading): a spin the board never
        finishes, as when it reboots (`reboot()`) or loses power next.
        """
        if ball_direction is None:
            previous = self.last_ball_direction
            ball_direction = Direction.CLOCKWISE if previous is not Direction.CLOCKWISE else Direction.COUNTERCLOCKWISE
        rotor_direction = rotor_direction or ball_direction.opposite
        self.last_ball_direction = ball_direction
        start = self.device_ms()
        script: list[tuple[float, str, dict]] = []
        rotor_period = 60_000 / rotor_rpm
        ball_time = 0.0
        for lap in range(revolutions):
            period = 600 + 800 * lap / max(1, revolutions)  # the ball slows down
            self._pair(script, ball_time, period, ball_direction, "ball_pass")
            ball_time += period
        settle = ball_time + 2_000
        rotor_time = -rotor_period
        while rotor_time < settle:
            self._pair(script, rotor_time + rotor_period, rotor_period, rotor_direction, "rotor_index")
            rotor_time += rotor_period
        if fault_sensor is not None:
            script.append((ball_time / 2, "sensor_fault", {"sensor": fault_sensor, "fault": 2}))
        pocket = NO_BALL if number is None else self.order.index(number)
        script.append((settle, "ball_in_pocket", {"pocket": pocket}))
        script.sort(key=lambda item: item[0])
        if cut_after_laps is not None:
            cut = sum(600 + 800 * lap / max(1, revolutions) for lap in range(cut_after_laps))
            script = [item for item in script if item[0] < cut]
        ids = []
        for at, name, fields in script:
            ids.append(self.emit(name, device_ms=start + int(at), **fields))
            if pace:
                time.sleep(pace)
        with self.lock:  # the board's clock moves past the spin's last event (the rotor turns on after the result)
            self.virtual_ms += int(max(at for at, _, _ in script)) + 1
        return ids

    @staticmethod
    def _pair(script: list, at: float, period: float, direction: Direction, name: str) -> None:
        """Events of one pass over a pair of sensors (0 then 1 when clockwise)."""
        gap = period * SENSOR_OFFSET
        first, second = (0, 1) if direction is Direction.CLOCKWISE else (1, 0)
        script.append((at, name, {"sensor": first}))
        script.append((at + gap, name, {"sensor": second}))
