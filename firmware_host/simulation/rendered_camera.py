"""The simulated camera of a dice table: each throw is rendered (vision.synthetic) and read back by vision.

So `make run` exercises the same path as a real table: frame -> DiceReader -> judgement -> evidence
JPEG. The simulation decides only what kind of throw happens (valid, or one of the game's void kinds);
the faces and the verdict the service receives are what the reader made of the rendered frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.calibration import calibrate
from vision.dice_reader import DiceReader
from vision.evidence import annotate
from vision.synthetic import render
from vision.synthetic_eval import track_readings
from vision.synthetic_scenes import random_rig, random_scene
from vision.throw_judge import Verdict, judge, rules_for

VISION_GAME = {"craps": "craps", "banca_francesa": "banca-francesa", "cussec": "cussec"}


@dataclass(frozen=True, slots=True)
class RenderedThrow:
    verdict: Verdict
    image: np.ndarray  # the evidence: the rendered frame annotated with what the reader saw
    truth: tuple[int, ...]  # the faces rendered (for logs and tests; never published)


class RenderedCamera:
    """One table under one fixed camera, calibrated once on its empty frame, as at installation."""

    def __init__(self, game: str, seed: int) -> None:
        self.game = VISION_GAME[game]
        self.rng = np.random.default_rng(seed)
        self.rig = random_rig(self.game, self.rng)
        empty, _ = render(self.rig.scene([], self.rng, clean=True), self.rng)
        calibration = calibrate(empty, self.rig.layout, float(self.rig.camera.position[2]))
        self.reader = DiceReader(calibration, background=empty)
        self.rules = rules_for(self.game)

    def throw(self, kind: str) -> RenderedThrow:
        """Render a throw of `kind` ("valid" or a void kind of the synthetic scenes), read and judge it."""
        dice = random_scene(self.rig, kind, self.rng)
        frame, truth = render(self.rig.scene(dice, self.rng), self.rng)
        reading = self.reader.read(frame)
        track = track_readings(self.reader, self.rig, dice, kind, self.rng) if kind == "not_past_middle" else ()
        verdict = judge(reading, self.rules, self.reader.calibration, track)
        return RenderedThrow(verdict, annotate(frame, reading, verdict), tuple(t.value for t in truth if t.visible))
