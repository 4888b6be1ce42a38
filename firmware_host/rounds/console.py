"""Dealer console and supervisor actions: checked against the phase, journalled with who / when /
what / why, published on `events`, then carried out by the engine.

Actions (docs/mqtt.md, console): open_betting, no_more_bets, confirm, void (needs why),
new_shooter, new_shoe, close_table, override (supervisor key on; a supervisor's why and a result);
and the game's own actions: the P'ai Kao tile entries (tiles, clear_tiles) and the card tables' plays
(draw, stand, double, banco, fault ...), which the game's family checks (`console_problem`) and carries
out (`console_act`).
`who` is the console device or the broker user the request came from; a request's own `who` is
kept as `display_name` beside it, never in its place.
"""

from __future__ import annotations

import logging

from ..mqtt.contract import ConsoleResponse
from .inputs import ConsoleCommand, Phase
from .requests import respond

log = logging.getLogger(__name__)

IN_PLAY = (Phase.NO_MORE_BETS, Phase.THROWING, Phase.SPINNING, Phase.DEALING, Phase.REVEALING, Phase.READING,
           Phase.CONFIRMING, Phase.HELD)


def identity(command: ConsoleCommand) -> dict:
    """Who acted, as journalled: the authenticated `who`, and the display name a request gave, if any."""
    return {"who": command.who, **({"display_name": command.display_name} if command.display_name else {})}


def refuse_console(engine, command: ConsoleCommand, reason: str, message: str) -> None:
    log.warning("console %s by %s refused: %s", command.action, command.who or command.source, message)
    with engine.journal.transaction() as txn:
        txn.record("console_action", {"action": command.action, **identity(command), "why": command.why,
                                      "source": command.source, "accepted": False, "reason": reason,
                                      "message": message}, round=engine.round or None)
        if command.reply:
            respond(txn, command.reply, ConsoleResponse(table=engine.settings.table_id, seq=0, utc=txn.utc,
                                                        action=command.action, accepted=False, reason=reason,
                                                        message=message))


def check(engine, command: ConsoleCommand) -> tuple[str, str] | None:
    """Why the action cannot be done now (reason code, message), or None."""
    action, phase, family = command.action, engine.phase, engine.family
    if action == "no_more_bets" and phase is not Phase.BETTING:
        return "not_allowed_now", f"betting is not open (phase {phase.value})"
    if action == "open_betting" and phase is not Phase.CLOSED:
        return "not_allowed_now", f"the table is open (phase {phase.value})"
    if action == "confirm" and phase not in (Phase.CONFIRMING, Phase.HELD):
        return "not_allowed_now", f"nothing to confirm (phase {phase.value})"
    if action == "void":
        if not command.why:
            return "malformed", "a void needs a reason (why)"
        if phase not in IN_PLAY:
            return "not_allowed_now", f"nothing to void (phase {phase.value})"
    if action in ("new_shooter", "new_shoe") and phase not in (Phase.BETTING, Phase.CLOSED, Phase.PREPARING):
        return "not_allowed_now", f"{action} only between rounds or while betting (phase {phase.value})"
    if action == "new_shooter" and not hasattr(family, "new_shooter"):
        return "not_allowed_now", f"{engine.settings.game} has no shooter"
    if action == "new_shoe" and not hasattr(family, "new_shoe"):
        return "not_allowed_now", f"{engine.settings.game} has no shoe"
    if action == "close_table" and phase not in (Phase.BETTING, Phase.PREPARING, Phase.CLOSED):
        return "not_allowed_now", f"finish or void the round first (phase {phase.value})"
    if action == "override":
        if not engine.supervisor_key:
            return "not_allowed_now", "a result override needs the supervisor key switch turned on"
        if not command.who or not command.why or not command.result:
            return "malformed", "an override needs a supervisor, why and the result"
        if phase not in IN_PLAY or not family.override_allowed():
            return "not_allowed_now", f"no result to enter or correct now (phase {phase.value})"
    return family.console_problem(command)


def handle_console(engine, command: ConsoleCommand) -> None:
    problem = check(engine, command)
    outcome = None
    if problem is None and command.action == "override":
        try:
            outcome = engine.family.manual_outcome(command.result)
        except ValueError as exc:
            problem = ("malformed", f"override result: {exc}")
    if problem:
        refuse_console(engine, command, *problem)
        return
    supervisor = command.action == "override"
    log.info("%s %s by %s: %s", "supervisor" if supervisor else "dealer", command.action,
             command.who or command.source, command.why or "")
    with engine.journal.transaction() as txn:
        txn.record("supervisor_override" if supervisor else "console_action",
                   {"action": command.action, **identity(command), "why": command.why, "source": command.source,
                    "result": command.result, "accepted": True, "phase": engine.phase.value,
                    "attempt": engine.attempt, **({"tiles": command.tiles} if command.tiles else {}),
                    **({"play": command.play} if command.play else {})},
                   round=engine.round or None)
        display = {"display_name": command.display_name} if command.display_name else {}
        engine.event("supervisor_override" if supervisor else "dealer_action",
                     {"action": command.action, "source": command.source, "phase": engine.phase.value,
                      **({"result": command.result} if command.result else {}),
                      **({"tiles": command.tiles} if command.tiles else {}),
                      **({"play": command.play} if command.play else {}), **display},
                     who=command.who, why=command.why, txn=txn)
        if command.reply:
            respond(txn, command.reply, ConsoleResponse(table=engine.settings.table_id, seq=0, utc=txn.utc,
                                                        action=command.action, accepted=True,
                                                        message=f"{command.action} done"))
    act(engine, command, outcome)


def family_opens_rounds(engine) -> bool:
    return engine.family.timer_closes_betting


def act(engine, command: ConsoleCommand, outcome) -> None:
    action = command.action
    if action == "no_more_bets":
        engine.close_betting(who=command.who, source=command.source)
    elif action == "open_betting":
        engine.table_open = True
        engine.event("table_opened", {"game": engine.settings.game, "rulebook": engine.settings.rulebook},
                     who=command.who)  # a new session: the result boards start again (docs/mqtt.md)
        if family_opens_rounds(engine):
            engine.open_round()
        else:
            engine.set_phase(Phase.PREPARING)  # cussec: the dome cycle opens the bets
    elif action == "confirm":
        if engine.phase is Phase.HELD:
            engine.family.confirm_held()
        else:
            engine.settle()
    elif action == "void":
        engine.family.dealer_void(command.who, command.why)
    elif action == "new_shooter":
        engine.family.new_shooter()
    elif action == "new_shoe":
        engine.family.new_shoe()
    elif action == "close_table":
        engine.table_open = False
        if engine.phase is Phase.BETTING:
            engine.void_round("table closed", who=command.who, why=command.why)  # then the table stays closed
        else:
            engine.set_phase(Phase.CLOSED)
    elif action == "override":
        engine.family.apply_override(outcome, command.who, command.why)
    else:
        engine.family.console_act(command)
