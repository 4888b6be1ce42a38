"""The real table's devices for the round engine: issue 5's DeviceSet, and the camera through vision.

`HardwareTable` is what `tablehw run` (without --simulate) hands the engine as its devices: it
starts every configured device (serial boards, GPIO console and dome, camera) and translates their
events into engine inputs (rounds/device_input.py); `handshake` waits for all of them (systemd's
READY follows it). The camera is read on a thread of its own: once the engine asks for a reading
(`read_dice`, after the throw — or for cussec only after the dome is lifted), vision's
`ThrowWatcher` waits for the dice to rest, reads several frames, judges the throw for the game, and
the annotated frame is stored as the round's evidence.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable


from drivers.errors import DeviceError
from drivers.settings import DevicesSection

from .evidence import EvidenceStore
from .link.devices import DeviceSet
from .rounds.device_input import to_input
from .rounds.inputs import DeviceHealthChanged, DiceSeen, ThrowStarted

log = logging.getLogger(__name__)

VISION_GAMES = {"craps": "craps", "banca_francesa": "banca-francesa", "cussec": "cussec"}
CARD_GAMES = ("punto_banco", "blackjack", "chemin_de_fer")  # dealt from the shoe scanner


class HardwareTable:
    """Devices interface (start, handshake, phase_changed, read_dice, show_result, stop) over real devices."""

    def __init__(self, section: DevicesSection, game: str, evidence: EvidenceStore, *, pin_factory: Any = None,
                 capture_factory: Callable | None = None, calibration: str | None = None,
                 watcher: Any = None) -> None:
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
        self.watcher = watcher
        self.calibration = calibration
        self.sink: Callable[[Any], None] = lambda item: None
        self._armed: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._running = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, sink: Callable[[Any], None]) -> None:
        self.sink = sink
        self.devices.start(self._event)
        if self.dice:
            if self.watcher is None:
                from vision.calibration import Calibration
                from vision.dice_reader import DiceReader
                from vision.throw_judge import rules_for
                from vision.throw_watch import ThrowWatcher
                calibration = Calibration.load(self.calibration) if self.calibration else None
                self.watcher = ThrowWatcher(DiceReader(calibration), rules_for(VISION_GAMES[self.game]))
            self._running.set()
            self._thread = threading.Thread(target=self._watch, name="camera", daemon=True)
            self._thread.start()

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
        if self.dice and self.game != "cussec" and phase == "no_more_bets":
            self.sink(ThrowStarted(round_no, attempt))  # the shooter throws next: watch from now

    def read_dice(self, round_no: int, attempt: int) -> None:
        with self._lock:
            self.watcher.start()
            self._armed = (round_no, attempt)

    def show_result(self, fields: dict) -> None:
        dome = self.devices.drivers.get("dome")
        if dome is not None and fields.get("faces"):
            areas = [f"single_{n}" for n in sorted(set(fields["faces"]))]
            dome.show_result([a for a in areas if a in dome.settings.winning_areas])

    def deal(self, round_no: int, attempt: int, places: list[str]) -> None:
        """A card coup opens on these places: the dealer sees them on the layout; the scanner reports the cards."""
        log.info("round %d: dealing %s", round_no, ", ".join(places))

    def stop(self) -> None:
        self._running.clear()
        if self._thread is not None:
            self._thread.join(5)
        self.devices.stop()

    # --- the camera thread -------------------------------------------------------------------
    def _watch(self) -> None:
        while self._running.is_set():
            camera = self.devices.camera
            if camera is None:
                self._running.wait(0.1)
                continue
            try:
                frame = camera.read()
            except DeviceError as exc:
                self.sink(DeviceHealthChanged("camera", "lost", str(exc)))
                self._running.wait(1.0)
                continue
            with self._lock:
                armed = self._armed
                outcome = self.watcher.feed(frame.image) if armed else None
                if outcome is not None:
                    self._armed = None
            if outcome is not None:
                self.sink(self._seen(armed, frame.image, outcome))

    def _seen(self, armed: tuple[int, int], image, outcome) -> DiceSeen:
        from vision.evidence import annotate

        round_no, attempt = armed
        verdict = outcome.verdict
        evidence = self.evidence.save_frame(self.game, round_no, attempt, annotate(image, outcome.reading, verdict))
        faces = tuple(verdict.values) if verdict.valid and verdict.values else None
        reason = None if verdict.valid else (verdict.reason.value if verdict.reason else "uncertain")
        return DiceSeen(round_no, attempt, faces, reason, evidence, {"detail": verdict.detail})
