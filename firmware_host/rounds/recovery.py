"""Start-up: rebuild the table from the journal and carry on where the last process stopped.

What the journal says decides (docs/mqtt.md, events `recovered`):
- no round yet, or the last round closed: open the next round (bets that stay on a craps layout,
  the point and the shooter come back from the last settlement);
- the last round was still taking bets: betting resumes with every accepted bet;
- a valid reading was journalled but not settled: it is settled now (once: a settlement commits
  with its round's end, so a settled round is never settled again);
- the throw, spin, deal or dome was in progress: for dice and roulette the attempt is void (nobody
  can vouch for a throw the controller did not watch whole) and is thrown again with the bets as
  they are; a card coup is void and its stakes returned; cussec waits for its dome, whose dice
  have not moved; with `[table] recovery = "void"` any interrupted round returns its stakes.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from ..mqtt.contract import SettlementPayload
from ..rules.bets import Bet
from .engine import Pending, RoundEngine
from .inputs import Evidence, Phase

log = logging.getLogger(__name__)

ROUND_KINDS = ("bet_accepted", "bet_withdrawn", "phase", "reading", "result", "game_state", "console_action")


def bet_from(book, data: dict) -> Bet:
    return book.make_bet(data["ticket"], data["owner"], data["bet"], data["stake"], data.get("number"),
                         data.get("numbers"))


def start(engine: RoundEngine) -> str:
    """Recover (or start fresh) and leave the engine ready to run; returns what was done."""
    journal, book = engine.journal, engine.book
    last_open = journal.last_record(("round_opened",))
    closed = journal.last_record(("round_closed",))
    state: Any = closed.data()["game_state"] if closed else None
    stays: list[tuple[Bet, int]] = []
    if closed is not None:
        settlement = journal.last_record(("settlement",))
        if settlement is not None and settlement.round == closed.round:
            payload = msgspec.json.decode(settlement.body, type=SettlementPayload)
            stays = [(bet_from(book, msgspec.structs.asdict(line)), line.point or 0)
                     for line in payload.bets if line.result == "stay"]
    after = closed.seq if closed else 0
    placed: list[Bet] = []
    phase, attempt, reading = Phase.BETTING, 1, None
    table_closed = False
    for record in journal.records(after=after, kinds=ROUND_KINDS):
        data = record.data()
        if record.kind == "bet_accepted":
            placed.append(bet_from(book, data))
        elif record.kind == "bet_withdrawn":
            placed = [b for b in placed if b.ticket != data["ticket"]]
            stays = [(b, p) for b, p in stays if b.ticket != data["ticket"]]
        elif record.kind == "phase":
            phase, attempt = Phase(data["phase"]), data["attempt"]
            table_closed = phase is Phase.CLOSED
        elif record.kind == "reading":
            reading = data if data["valid"] else None
        elif record.kind == "result":
            reading = None  # a void attempt was announced
        elif record.kind == "game_state":
            state = data["game_state"]
    book.restore(state, stays, placed)
    engine.family.restore_state(state)
    engine.rebuild_registry()  # every ticket's first answer, whatever round it was in
    engine.table_open = not table_closed
    if last_open is None:
        return _fresh(engine)
    engine.round = last_open.round
    if closed is not None and closed.round == last_open.round:
        engine.attempt = 1
        engine.event("recovered", {"action": "between_rounds"})
        return _between_rounds(engine, table_closed)
    engine.round_open = True
    engine.attempt = attempt
    return _inside_round(engine, phase, reading)


def _fresh(engine: RoundEngine) -> str:
    engine.round = engine.journal.round_base  # a new epoch's rounds continue after the last one published
    engine.event("table_opened", {"game": engine.settings.game, "rulebook": engine.settings.rulebook})
    engine.family.round_finished()  # what follows a round follows an empty journal too
    return "fresh journal: table opened"


def _between_rounds(engine: RoundEngine, table_closed: bool) -> str:
    if table_closed:
        engine.set_phase(Phase.CLOSED)
        return "table closed"
    engine.family.round_finished()
    return f"round {engine.round} was closed: next round opened"


def _inside_round(engine: RoundEngine, phase: Phase, reading: dict | None) -> str:
    rnd = engine.round
    if phase in (Phase.BETTING, Phase.PREPARING) or (phase is Phase.CLOSED):
        engine.event("recovered", {"action": "resumed", "phase": phase.value, "open_bets": len(engine.book)})
        if phase is Phase.PREPARING:
            engine.set_phase(Phase.PREPARING)
        else:
            engine.start_betting_timer()
            engine.set_phase(Phase.BETTING)
        return f"round {rnd}: betting resumed with {len(engine.book)} bets"
    if reading is not None and phase in (Phase.READING, Phase.CONFIRMING, Phase.SETTLING):
        outcome = engine.family.outcome_from(reading["fields"])
        if outcome is not None:
            evidence = Evidence(**reading["evidence"]) if reading.get("evidence") else None
            manual = reading.get("manual")
            engine.pending = Pending(outcome, reading["fields"], evidence,
                                     (manual["who"], manual["why"]) if manual else None)
            engine.event("recovered", {"action": "resumed", "phase": phase.value})
            if phase is Phase.CONFIRMING and engine.settings.dealer_confirms and not manual:
                engine.set_phase(Phase.CONFIRMING)
                return f"round {rnd}: waiting for the dealer's confirm again"
            engine.settle()
            return f"round {rnd}: journalled reading settled"
    how = "void_round" if engine.settings.recovery == "void" else engine.family.interrupted()
    if how == "resume":
        engine.event("recovered", {"action": "resumed", "phase": phase.value})
        engine.family.resume(phase)
        return f"round {rnd}: {phase.value} resumed"
    engine.event("recovered", {"action": "voided", "phase": phase.value,
                               "what": "attempt" if how == "void_attempt" else "round"})
    engine.phase = phase
    if how == "void_attempt":
        engine.void_attempt("service_restart", detail={"interrupted_phase": phase.value})
        return f"round {rnd}: interrupted {phase.value}, attempt voided, bets stay"
    engine.void_round("service_restart")
    return f"round {rnd}: interrupted {phase.value}, round voided, stakes returned"
