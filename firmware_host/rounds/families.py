"""The per-game part of a round: dice thrown on the layout (craps, banca francesa) and cussec's dome.

A `Family` tells the engine how its result arrives (device events), how to read it into result
fields, how to settle and what a void attempt means (result boards follow the engine's published
results and events: boards/keeper.py). The engine stays the one owner; a family only calls the
engine's methods from the engine's own thread.
"""

from __future__ import annotations

import logging
from typing import Any

from ..mqtt.contract import PLAY_ACTIONS, TILE_ACTIONS, ManualResult
from ..rules.banca_francesa import DECIDING
from ..rules.dice import BadThrow, outcome_index
from .books import DiceBook
from .inputs import DiceSeen, DomeStep, Phase, ThrowStarted

log = logging.getLogger(__name__)


class Family:
    """Defaults shared by every game."""

    game = ""
    play_phase = Phase.THROWING
    timer_closes_betting = True  # cussec: the dealer's bell closes betting, not a timer

    def __init__(self, engine, book) -> None:
        self.engine = engine
        self.book = book

    # state
    def state_view(self) -> dict[str, Any]:
        return self.book.state_view()

    def state_data(self) -> Any:
        return self.book.state_data()

    def restore_state(self, data: Any) -> None:
        """Game state from the journal (recovery)."""

    # the round
    def handle(self, item: Any) -> None:
        log.warning("%s table: ignored %s", self.game, type(item).__name__)

    def camera_throw(self, item: Any, seen, what: str = "throw") -> bool:
        """A throw (bowl) of the current attempt starts the camera's read after "no more bets"; its reading
        goes to `seen` while the table waits for it; either at any other moment is logged and ignored.
        False: `item` is neither."""
        if not isinstance(item, (ThrowStarted, DiceSeen)):
            return False
        engine = self.engine
        current = (item.round, item.attempt) == (engine.round, engine.attempt)
        if isinstance(item, ThrowStarted):
            if engine.phase is Phase.NO_MORE_BETS and current:
                engine.expect_reading(Phase.THROWING)
                engine.devices.read_dice(engine.round, engine.attempt)
            else:
                log.warning("%s reported for round %d/%d while %s round %d/%d: ignored", what, item.round,
                            item.attempt, engine.phase.value, engine.round, engine.attempt)
        elif engine.phase is Phase.THROWING and current:
            seen(item)
        else:
            log.warning("a %s reading for round %d/%d arrived while %s: ignored", what, item.round, item.attempt,
                        engine.phase.value)
        return True

    def round_opened(self) -> None:
        """A round opened and takes bets (chemin de fer: the bank carried from the last coup)."""

    def betting_closed(self) -> None:
        """No more bets: the dealer throws / spins / deals next."""

    def reading_overdue(self) -> None:
        self.engine.void_attempt("no_reading", detail={"timeout_s": self.engine.settings.reading_timeout_s})

    def attempt_voided(self, reason: str) -> None:
        """After a void attempt (announced): re-throw / re-spin with the bets as they are."""
        self.engine.devices.phase_changed(Phase.NO_MORE_BETS.value, self.engine.round, self.engine.attempt)

    def dealer_void(self, who: str | None, why: str | None) -> None:
        self.engine.void_attempt("dealer_void", who=who, why=why)

    def round_finished(self) -> None:
        self.engine.next_round()

    def interrupted(self) -> str:
        """After a restart inside the play phase: 'void_attempt' (re-throw), 'void_round' or 'resume'."""
        return "void_attempt"

    def resume(self, phase: Phase) -> None:
        """Carry on an interrupted play phase (only for families whose `interrupted` says 'resume')."""
        self.engine.set_phase(phase)

    def outcome_from(self, fields: dict) -> Any:
        """The outcome a journalled valid reading stands for (None: it cannot be rebuilt)."""
        return None

    # settlement
    def settle(self, outcome: Any) -> list:
        raise NotImplementedError

    # supervisor override
    def override_allowed(self) -> bool:
        return True

    def manual_outcome(self, result: dict) -> tuple[Any, dict]:
        raise ValueError(f"{self.game} takes no manual result")

    def apply_override(self, outcome_fields: tuple[Any, dict], who: str, why: str) -> None:
        outcome, fields = outcome_fields
        self.engine.manual_reading(outcome, fields, who, why)

    # the game's own console actions (rounds/console.py): P'ai Kao's tile entries, the card tables' plays
    def console_problem(self, command) -> tuple[str, str] | None:
        """Why the game cannot take this console action now (reason, message), or None; the engine's own
        actions (open_betting, confirm ...) were checked before, and the game may refuse them too."""
        if command.action in TILE_ACTIONS or command.action in PLAY_ACTIONS:
            return "not_allowed_now", f"{self.game} has no {command.action} at its console"
        return None

    def console_act(self, command) -> None:
        """Carry out a game action `console_problem` accepted (journalled and announced already)."""


class DiceFamily(Family):
    """Dice thrown on the layout: no more bets → thrown → at rest → read and judged → settle."""

    def __init__(self, engine, game) -> None:
        super().__init__(engine, DiceBook(game))
        self.rules = game
        self.game = game.game

    def handle(self, item: Any) -> None:
        if not self.camera_throw(item, self.seen):
            super().handle(item)

    def seen(self, item: DiceSeen) -> None:
        if item.void_reason is None:
            try:
                outcome_index(item.faces or (), self.rules.n_dice)
            except BadThrow as exc:
                self.engine.reading(None, {}, void_reason="wrong_count", evidence=item.evidence,
                                    detail={"message": str(exc)})
                return
            faces = tuple(item.faces)
            self.engine.reading(faces, self.fields(faces), evidence=item.evidence, detail=item.detail)
        else:
            self.engine.reading(None, {}, void_reason=item.void_reason, evidence=item.evidence, detail=item.detail)

    def fields(self, faces: tuple[int, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {"faces": list(faces), "total": sum(faces)}
        state = self.book.state
        if self.game == "craps":
            after = self.rules.next_state(state, faces)
            out["outcome"] = {"point_before": state.point or None, "point_after": after.point or None,
                              "shooter": state.shooter, "shooter_after": after.shooter}
        elif self.game == "banca_francesa":
            out["outcome"] = {"chance": DECIDING.get(sum(faces))}
        return out

    def settle(self, outcome: tuple[int, ...]) -> list:
        return self.book.settle(outcome)

    def outcome_from(self, fields: dict) -> Any:
        return tuple(fields["faces"]) if fields.get("faces") else None

    def manual_outcome(self, result: dict) -> tuple[Any, dict]:
        faces = ManualResult(**result).faces
        try:
            outcome_index(faces or (), self.rules.n_dice)
        except BadThrow as exc:
            raise ValueError(str(exc)) from None
        return tuple(faces), self.fields(tuple(faces))

    def new_shooter(self) -> None:
        """Craps: the dice pass to the next shooter (2010 Art. 4.1)."""
        self.book.state = self.rules.new_shooter(self.book.state)
        with self.engine.journal.transaction() as txn:
            txn.record("game_state", {"game_state": self.book.state_data()}, round=self.engine.round or None)
            self.engine.event("new_shooter", {"shooter": self.book.state.shooter}, txn=txn)
            self.engine.publish_state(txn)

    def restore_state(self, data: Any) -> None:
        pass  # the DiceBook restores its own state with its bets


class CussecFamily(DiceFamily):
    """Cussec (004 §VII.4-6, 11): the dome cycle drives the round, and the dice stay unread (embargoed)
    until the dome is lifted after the bell. Before the lift the controller does not even ask the
    camera, so nothing it logs or publishes can reveal the result."""

    play_phase = Phase.REVEALING
    timer_closes_betting = False

    def __init__(self, engine, game) -> None:
        super().__init__(engine, game)
        self.lifted = False

    def handle(self, item: Any) -> None:
        if isinstance(item, DomeStep):
            self.dome(item)
        elif isinstance(item, DiceSeen):
            if not self.lifted:  # never acted on, never logged with its content
                log.error("a dome reading arrived before the dome was lifted: discarded unread")
                return
            if self.engine.phase is Phase.READING and (item.round, item.attempt) == (self.engine.round, self.engine.attempt):
                self.seen(item)
        else:
            super().handle(item)

    def dome(self, item: DomeStep) -> None:
        engine, phase = self.engine, self.engine.phase
        step = item.step
        if step == "bets_open" and phase in (Phase.PREPARING, Phase.CLOSED) and engine.table_open:
            self.lifted = False
            if engine.round and engine.attempt > 1 and engine.last_round_open():
                engine.reopen_betting("re-shaken after a void (004 VII.6)")
            else:
                engine.open_round()
        elif step == "bell" and phase is Phase.BETTING:
            engine.close_betting(source="bell")
        elif step == "released" and phase is Phase.NO_MORE_BETS:
            engine.expect_reading(Phase.REVEALING)
        elif step == "lifted" and phase in (Phase.REVEALING, Phase.NO_MORE_BETS):
            self.lifted = True
            log.info("round %d: dome lifted after the bell, reading the dice", engine.round)
            engine.expect_reading(Phase.READING)
            engine.event("dome", {"step": "lifted"})
            engine.devices.read_dice(engine.round, engine.attempt)  # the camera is asked only now
            return
        else:
            if step in ("bell", "lifted", "released"):
                engine.event("dome", {"step": step, "out_of_order": True, "phase": phase.value})
                log.warning("dome step %s while %s", step, phase.value)
            return
        engine.event("dome", {"step": step})

    def reading_overdue(self) -> None:
        if self.lifted:
            self.engine.set_phase(Phase.HELD, event="device", detail={"device": "camera", "message": "no dome reading"})

    def attempt_voided(self, reason: str) -> None:
        """Overlapping dice (VII.6): shake again; players may keep, withdraw or change their bets."""
        self.lifted = False
        self.engine.set_phase(Phase.PREPARING)

    def dealer_void(self, who: str | None, why: str | None) -> None:
        self.engine.void_attempt("dealer_void", who=who, why=why)

    def round_finished(self) -> None:
        self.lifted = False
        if not self.engine.wants_more_rounds():
            return
        if self.engine.table_open:
            self.engine.set_phase(Phase.PREPARING)  # the dome may be covered only now (VII.11)
        else:
            self.engine.set_phase(Phase.CLOSED)

    def interrupted(self) -> str:
        return "resume"  # the dice stay under the dome: wait for it (or read at once if already lifted)

    def resume(self, phase: Phase) -> None:
        if phase is Phase.READING:  # lifted before the crash: the dice are visible, read them now
            self.lifted = True
            self.engine.expect_reading(Phase.READING)
            self.engine.devices.read_dice(self.engine.round, self.engine.attempt)
        else:
            self.engine.set_phase(phase)

    def override_allowed(self) -> bool:
        return self.lifted
