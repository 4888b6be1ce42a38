"""The simulated table for `tablehw run --simulate`: dealer, shooter, camera and cussec dome.

It implements the devices interface the engine drives (`phase_changed`, `read_dice`,
`show_result`, `handshake`) and answers like the real table would, after `action_seconds`, by
putting events on the engine's inbox: the dealer closes betting once the simulated terminals
have bet (or the betting time is up), the shooter throws, the camera reports the dice at rest
(void now and then), the dome goes through its cycle (004 §VII.4-5). The dome's dice are decided
when it is shaken and kept inside this "physical world" until the controller, after the lift,
asks the camera; nothing here logs or publishes them.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from typing import Any, Callable

from ..evidence import EvidenceStore
from ..free_memory import release_free_memory
from ..rounds.inputs import ConsoleCommand, DiceSeen, DomeStep, ThrowStarted
from .scheduler import Scheduler

log = logging.getLogger(__name__)

DICE_VOIDS = {"craps": ("off_table", "not_past_middle"), "banca_francesa": ("cocked", "stacked", "overlapping"),
              "cussec": ("overlapping",), "paikao": ("overlapping", "off_table")}


class SimulatedTable:
    """Base: the dealer's side shared by every game; subclasses add the game's devices."""

    devices = ("console",)

    def __init__(self, game: str, n_dice: int, settings: Any, evidence: EvidenceStore, terminals: Any = None,
                 seed: int = 1) -> None:
        self.game = game
        self.n_dice = n_dice
        self.settings = settings
        self.evidence = evidence
        self.terminals = terminals
        self.rng = random.Random(seed)
        self.scheduler = Scheduler(f"sim-{game}")
        self.sink: Callable[[Any], None] = lambda item: None
        self.phase = ("", 0, 0)
        self._lock = threading.Lock()
        self.camera_reads: list[tuple[int, int]] = []  # (round, attempt) the camera was asked to read, in order
        self._rendered = None  # the rendered camera, made on first use when settings.camera == "rendered"

    # --- the devices interface -----------------------------------------------------------------
    def start(self, sink: Callable[[Any], None]) -> None:
        self.sink = sink
        self.scheduler.start()

    def handshake(self, timeout_s: float) -> dict[str, str]:
        return {name: "connected" for name in self.devices}

    def stop(self) -> None:
        self.scheduler.stop()

    def phase_changed(self, phase: str, round_no: int, attempt: int) -> None:
        with self._lock:
            self.phase = (phase, round_no, attempt)
        if phase == "betting":
            self._betting(round_no, attempt)
        elif phase == "confirming":
            self.later(lambda: self.still("confirming", round_no) and self.sink(
                ConsoleCommand("confirm", who="sim-dealer", source="sim")))
        self.react(phase, round_no, attempt)

    def react(self, phase: str, round_no: int, attempt: int) -> None:
        """The game's devices respond to a phase."""

    def read_dice(self, round_no: int, attempt: int) -> None:
        self.camera_reads.append((round_no, attempt))
        self.later(lambda: self.report_dice(round_no, attempt))

    def report_dice(self, round_no: int, attempt: int) -> None:
        self.sink(self.camera(round_no, attempt))
        release_free_memory()  # a rendered throw's frames go back once its result is handed on (free_memory.py)

    def show_result(self, fields: dict) -> None:
        """Light the winning areas / show the result on the table (nothing to do in the simulation)."""

    def deal(self, round_no: int, attempt: int, places: list[str]) -> None:
        """A card coup opens on these places ("box 3", "dealer"; "player", "banker"): the dealer deals them."""

    # --- helpers ------------------------------------------------------------------------------
    def later(self, fn: Callable[[], None], factor: float = 1.0) -> None:
        self.scheduler.after(self.settings.action_seconds * factor, fn)

    def still(self, phase: str, round_no: int, attempt: int | None = None) -> bool:
        with self._lock:
            now = self.phase
        return now[0] == phase and now[1] == round_no and (attempt is None or now[2] == attempt)

    def _betting(self, round_no: int, attempt: int) -> None:
        done = threading.Event()
        self.place_bets(round_no, done.set)
        start = self.scheduler
        waited = [0.0]
        step = max(0.01, self.settings.betting_seconds / 4)
        patience = max(2.0, 4 * self.settings.betting_seconds)  # terminals cut off (broker down): close anyway

        def check() -> None:
            if not self.still("betting", round_no, attempt):
                return
            waited[0] += step
            if (done.is_set() and waited[0] >= self.settings.betting_seconds) or waited[0] > patience:
                self.close_betting(round_no)
                if self.terminals is not None:
                    self.terminals.late_bet(round_no)
            else:
                start.after(step, check)

        start.after(step, check)

    def place_bets(self, round_no: int, done: Callable[[], None]) -> None:
        """The terminals bet for this round; `done()` once every bet is answered."""
        if self.terminals is not None:
            self.terminals.place_bets(round_no, done)
        else:
            done()

    def close_betting(self, round_no: int) -> None:
        self.sink(ConsoleCommand("no_more_bets", who="sim-dealer", source="sim"))

    def camera(self, round_no: int, attempt: int) -> DiceSeen:
        void = self.rng.choice(DICE_VOIDS[self.game]) if self.rng.random() < self.settings.void_rate else None
        if getattr(self.settings, "camera", "random") == "rendered":
            return self.rendered(round_no, attempt, void or "valid")
        faces = tuple(self.rng.randint(1, 6) for _ in range(self.n_dice))
        return self.seen(round_no, attempt, faces, void)

    def rendered(self, round_no: int, attempt: int, kind: str) -> DiceSeen:
        """Render the throw, read it through vision, and report what the reader judged."""
        if self._rendered is None:
            from .rendered_camera import RenderedCamera

            self._rendered = RenderedCamera(self.game, self.settings.seed)
        shot = self._rendered.throw(kind)
        evidence = self.evidence.save_frame(self.game, round_no, attempt, shot.image)
        v = shot.verdict
        log.debug("rendered %s throw %s: read %s, %s", kind, shot.truth, v.values, v.detail)
        return DiceSeen(round_no, attempt, tuple(v.values) if v.valid else None,
                        None if v.valid else v.reason.value, evidence, {"detail": v.detail})

    def seen(self, round_no: int, attempt: int, faces: tuple[int, ...], void: str | None) -> DiceSeen:
        record = {"camera": "simulated", "round": round_no, "attempt": attempt, "dice": list(faces),
                  "verdict": "void" if void else "valid", "reason": void}
        evidence = self.evidence.save(f"{self.game}-{round_no:08d}-{attempt}.json", json.dumps(record).encode())
        return DiceSeen(round_no, attempt, None if void else faces, void, evidence)


class SimulatedDiceTable(SimulatedTable):
    """Craps and banca francesa: the shooter throws after "no more bets"; the camera reads at rest."""

    devices = ("console", "camera")

    def react(self, phase: str, round_no: int, attempt: int) -> None:
        if phase == "no_more_bets":
            self.later(lambda: self.still("no_more_bets", round_no, attempt)
                       and self.sink(ThrowStarted(round_no, attempt)))


class SimulatedDome(SimulatedTable):
    """Cussec: cover, fasten, three lever presses (bets open), bell, release, lift; then the camera."""

    devices = ("console", "camera", "dome")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._under_dome: tuple[int, ...] | None = None  # decided when shaken; never logged

    def react(self, phase: str, round_no: int, attempt: int) -> None:
        if phase == "preparing":
            self.later(self._cover_and_shake)
        elif phase == "no_more_bets":
            self.later(lambda: self.still("no_more_bets", round_no) and self.sink(DomeStep("released")))
        elif phase == "revealing":
            self.later(lambda: self.still("revealing", round_no) and self.sink(DomeStep("lifted")))

    def _cover_and_shake(self) -> None:
        if self.phase[0] != "preparing":
            return
        for step in ("covered", "fastened"):
            self.sink(DomeStep(step))
        self._under_dome = tuple(self.rng.randint(1, 6) for _ in range(3))  # the lever's three presses
        self.sink(DomeStep("shaken"))
        self.sink(DomeStep("bets_open"))

    def close_betting(self, round_no: int) -> None:
        self.sink(DomeStep("bell"))

    def camera(self, round_no: int, attempt: int) -> DiceSeen:
        faces = self._under_dome or tuple(self.rng.randint(1, 6) for _ in range(3))  # after a restart: still there
        self._under_dome = None
        void = "overlapping" if self.rng.random() < self.settings.void_rate else None
        return self.seen(round_no, attempt, faces, void)
