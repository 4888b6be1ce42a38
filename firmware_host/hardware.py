"""The real table's devices for the round engine: issue 5's DeviceSet, and the camera through vision.

`HardwareTable` is what `tablehw run` (without --simulate) hands the engine as its devices: it
starts every configured device (serial boards, GPIO console and dome, camera) and translates their
events into engine inputs (rounds/device_input.py); `handshake` waits for all of them (systemd's
READY follows it). A dice table's camera runs in `DiceCamera` (dice_camera.py): a frame loop that
never waits and a vision worker; once the engine asks for a reading (`read_dice`, after the throw —
or for cussec only after the dome is lifted) it waits for the dice to rest, reads several frames
against the empty-table model, judges the throw for the game and stores the annotated frame as the
round's evidence. While bets are open the same camera refreshes the empty-table model.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from drivers.errors import DeviceError
from drivers.settings import DevicesSection

from .dice_camera import VISION_GAMES, DiceCamera
from .evidence import EvidenceStore
from .link.devices import DeviceSet
from .rounds.device_input import to_input
from .rounds.inputs import ThrowStarted

log = logging.getLogger(__name__)

CARD_GAMES = ("punto_banco", "blackjack", "chemin_de_fer")  # dealt from the shoe scanner
CLEAR_PHASES = {"betting"}  # craps, banca francesa: the dice are with the shooter, the landing area is empty


class HardwareTable:
    """Devices interface (start, handshake, phase_changed, read_dice, show_result, stop) over real devices."""

    def __init__(self, section: DevicesSection, game: str, evidence: EvidenceStore, *, pin_factory: Any = None,
                 capture_factory: Callable | None = None, calibration: str | None = None,
                 unvalidated_felt_ok: bool = False, unvalidated_tilt_ok: bool = False) -> None:
        kwargs = {"pin_factory": pin_factory}
        if capture_factory is not None:
            kwargs["capture_factory"] = capture_factory
        self.devices = DeviceSet(section, **kwargs)
        self.game = game
        self.evidence = evidence
        self.cards = game in CARD_GAMES
        self.dice = game in VISION_GAMES
        if self.dice and section.camera is None:
            raise DeviceError(f"a {game} table needs [devices.camera]: the result is read by the camera")
        if self.dice and not calibration:
            raise DeviceError(f"a {game} table needs [table] camera_calibration (`tablehw vision calibrate` on the "
                              "empty table): the reader places dice and compares frames with the empty table by it")
        self.sink: Callable[[Any], None] = lambda item: None
        self.camera: DiceCamera | None = None
        if self.dice:
            from vision.calibration import Calibration
            from vision.errors import CalibrationError, VisionError

            fps = getattr(section.camera, "fps", 0.0) or 30.0
            try:
                self.camera = DiceCamera(game, evidence, Calibration.load(calibration), fps=fps,
                                         unvalidated_felt_ok=unvalidated_felt_ok,
                                         unvalidated_tilt_ok=unvalidated_tilt_ok)
            except CalibrationError as exc:  # an edited or broken file: refused by name, not a traceback
                raise DeviceError(f"[table] camera_calibration: {exc}") from exc
            except VisionError as exc:  # the reader's own files (its networks, their manifest): named as such
                raise DeviceError(f"camera: {exc}") from exc

    def start(self, sink: Callable[[Any], None]) -> None:
        self.sink = sink
        self.devices.start(self._event)
        if self.camera is not None:
            self.camera.start(lambda: self.devices.camera, sink)

    def _event(self, event) -> None:
        item = to_input(event, cards=self.cards)
        if item is not None:
            self.sink(item)

    def handshake(self, timeout_s: float) -> dict[str, str]:
        return self.devices.handshake(timeout_s)

    def phase_changed(self, phase: str, round_no: int, attempt: int) -> None:
        console = self.devices.drivers.get("console")
        if console is not None:
            for lamp, on in (("betting", phase == "betting"), ("held", phase == "held")):
                if lamp in getattr(console.settings, "lamps", {}):
                    console.set_lamp(lamp, on)
        if self.camera is not None and self.game != "cussec":
            self.camera.table_clear(phase in CLEAR_PHASES)
            if phase == "no_more_bets":
                self.sink(ThrowStarted(round_no, attempt))  # the shooter throws next: watch from now

    def read_dice(self, round_no: int, attempt: int) -> None:
        self.camera.arm(round_no, attempt)

    def show_result(self, fields: dict) -> None:
        dome = self.devices.drivers.get("dome")
        if dome is not None and fields.get("faces"):
            areas = [f"single_{n}" for n in sorted(set(fields["faces"]))]
            dome.show_result([a for a in areas if a in dome.settings.winning_areas])

    def deal(self, round_no: int, attempt: int, places: list[str]) -> None:
        """A card coup opens on these places: the dealer sees them on the layout; the scanner reports the cards."""
        log.info("round %d: dealing %s", round_no, ", ".join(places))

    def stop(self) -> None:
        if self.camera is not None:
            self.camera.stop()
        self.devices.stop()
