"""The cussec dome procedure (004 §VII.4-5, 11) as a pure state machine: actions in, steps or irregularities out.

The phase is derived from facts — dome on or off, clasps fastened, lever presses, bell rung,
result shown — so a sensor that reports reality out of order still leaves a true picture;
every action outside the procedure is returned with the reason an inspector would write down.
"""

from __future__ import annotations

from dataclasses import dataclass

from .events import DomeAction, DomePhase


@dataclass(frozen=True)
class Outcome:
    """What one action did: the phase after it and, if it broke the procedure, why."""

    action: DomeAction
    phase: DomePhase
    presses: int
    irregular: str | None = None
    detail: str = ""


class DomeProcedure:
    """Facts about the dome and the phase they add up to."""

    def __init__(self, *, covered: bool = False, clasps: frozenset[str] = frozenset(), presses_needed: int = 3) -> None:
        self.presses_needed = presses_needed
        self.covered = covered
        self.clasps = set(clasps)
        self.presses = 0
        self.bell_rung = False
        self.result_shown = False

    @property
    def phase(self) -> DomePhase:
        if not self.covered:
            if self.result_shown:
                return DomePhase.RESULT_SHOWN
            return DomePhase.LIFTED if self.bell_rung else DomePhase.IDLE
        if self.bell_rung:
            return DomePhase.BETS_CLOSED if self.clasps else DomePhase.RELEASED
        if len(self.clasps) < 2:
            return DomePhase.COVERED
        if self.presses == 0:
            return DomePhase.FASTENED
        return DomePhase.SHAKING if self.presses < self.presses_needed else DomePhase.BETS_OPEN

    def _outcome(self, action: DomeAction, irregular: str | None, detail: str = "") -> Outcome:
        return Outcome(action, self.phase, self.presses, irregular, detail)

    def cover(self) -> Outcome:
        before = self.phase
        irregular = None
        if self.covered:
            irregular = "dome reported covered twice (sensor?)"
        elif before is not DomePhase.IDLE:
            irregular = "dome covered again before the round ended (004 §VII.11: only after all prizes are paid)"
        self.covered = True
        self.presses, self.bell_rung, self.result_shown = 0, False, False
        return self._outcome(DomeAction.COVER, irregular)

    def fasten(self, side: str) -> Outcome:
        irregular = None
        if not self.covered:
            irregular = f"{side} clasp fastened with the dome lifted"
        elif self.bell_rung:
            irregular = f"{side} clasp fastened after the bell"
        self.clasps.add(side)
        return self._outcome(DomeAction.FASTEN_CLASP, irregular, side)

    def release(self, side: str) -> Outcome:
        irregular = None
        if self.covered and not self.bell_rung and (self.presses or len(self.clasps) == 2):
            irregular = f"{side} clasp released before the bell (004 §VII.5)"
        self.clasps.discard(side)
        return self._outcome(DomeAction.RELEASE_CLASP, irregular, side)

    def press(self) -> Outcome:
        irregular = None
        if not self.covered:
            irregular = "lever pressed with the dome lifted"
        elif len(self.clasps) < 2:
            irregular = f"lever pressed with {2 - len(self.clasps)} clasp(s) open"
        elif self.bell_rung:
            irregular = "lever pressed after the bell: the dice moved after no more bets"
        elif self.presses >= self.presses_needed:
            irregular = f"lever pressed after bets opened (press {self.presses + 1})"
        if self.covered:
            self.presses += 1
        return self._outcome(DomeAction.LEVER_PRESS, irregular)

    def bell(self) -> Outcome:
        irregular = None
        if not self.covered:
            irregular = "bell with the dome lifted"
        elif self.bell_rung:
            irregular = "bell rung twice"
        elif len(self.clasps) < 2:
            irregular = f"bell with {2 - len(self.clasps)} clasp(s) open"
        elif self.presses < self.presses_needed:
            irregular = (f"bell after {self.presses} lever press(es): {self.presses_needed} required "
                         "(004 §VII.4)")
        if self.covered:
            self.bell_rung = True
        return self._outcome(DomeAction.BELL, irregular)

    def lift(self) -> Outcome:
        irregular = None
        if not self.covered:
            irregular = "dome reported lifted twice (sensor?)"
        elif not self.bell_rung:
            irregular = "dome lifted before the bell: the dice were seen while bets were open (004 §VII.5)"
        elif self.clasps:
            irregular = f"dome lifted with {len(self.clasps)} clasp(s) still fastened (004 §VII.5)"
        elif self.presses < self.presses_needed:
            irregular = f"dome lifted after {self.presses} lever press(es): {self.presses_needed} required"
        self.covered = False
        return self._outcome(DomeAction.LIFT, irregular)

    def show_result(self) -> Outcome:
        if self.phase is not DomePhase.LIFTED:
            return self._outcome(DomeAction.SHOW_RESULT,
                                 f"winning areas not lit: the dome is {self.phase} (nothing may reveal the result "
                                 "before the dome is lifted after the bell)")
        self.result_shown = True
        return self._outcome(DomeAction.SHOW_RESULT, None)

    def end_round(self) -> Outcome:
        irregular = None if self.phase is DomePhase.RESULT_SHOWN else f"round ended with the dome {self.phase}"
        self.result_shown = False
        self.bell_rung = False
        self.presses = 0
        return self._outcome(DomeAction.END_ROUND, irregular)
