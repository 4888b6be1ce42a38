"""The device drivers' typed events (drivers/events.py) as the round engine's inputs (rounds/inputs.py).

Drivers report what happened on the table in their own terms (a button, a dome step, a card with a
numeric rank, a wheel result with fault flags); the engine wants what it means for the round. One
function per family of events keeps that translation in one place.
"""

from __future__ import annotations

from typing import Any

from drivers import events as dev

from .inputs import (CardSeen, ConsoleCommand, CutCardSeen, DeviceHealthChanged, DeviceNotice, DomeStep, ShoeLoaded,
                     SpinSeen, SupervisorKey)

RANKS = {1: "A", 11: "J", 12: "Q", 13: "K"}
SUITS = {dev.Suit.CLUBS: "C", dev.Suit.DIAMONDS: "D", dev.Suit.HEARTS: "H", dev.Suit.SPADES: "S"}
DOME_STEPS = {dev.DomePhase.COVERED: "covered", dev.DomePhase.FASTENED: "fastened", dev.DomePhase.SHAKING: "shaken",
              dev.DomePhase.BETS_OPEN: "bets_open", dev.DomePhase.BETS_CLOSED: "bell",
              dev.DomePhase.RELEASED: "released", dev.DomePhase.LIFTED: "lifted",
              dev.DomePhase.RESULT_SHOWN: "result_shown", dev.DomePhase.IDLE: "idle"}
BUTTONS = {dev.ConsoleButton.NO_MORE_BETS: "no_more_bets", dev.ConsoleButton.CONFIRM: "confirm",
           dev.ConsoleButton.VOID: "void"}


def card_text(rank: int, suit: dev.Suit) -> str:
    return f"{RANKS.get(rank, str(rank))}{SUITS[suit]}"


def to_input(event: dev.DeviceEvent, *, cards: bool = False) -> Any | None:
    """The engine input an event stands for, or None when the round has nothing to do with it.
    `cards`: the table deals cards (the console's "new shooter" button means "new shoe" there)."""
    if isinstance(event, dev.DeviceHealth):
        return DeviceHealthChanged(event.device, str(event.state), event.reason)
    if isinstance(event, dev.SensorFault):
        return DeviceNotice(event.device, "sensor_fault", f"{event.sensor}: {event.fault}",
                            {"active": event.active})
    if isinstance(event, dev.ButtonPressed):
        if event.button is dev.ConsoleButton.NEW_SHOOTER:
            action = "new_shoe" if cards else "new_shooter"
        elif event.button in BUTTONS:
            action = BUTTONS[event.button]
        else:
            return None
        why = "void button on the dealer console" if action == "void" else None
        return ConsoleCommand(action, who=f"{event.device}{' (supervisor key on)' if event.supervisor else ''}",
                              why=why, source="gpio")
    if isinstance(event, dev.SupervisorKey):
        return SupervisorKey(event.on, who=event.device)
    if isinstance(event, dev.DomeStep):
        step = DOME_STEPS.get(event.phase)
        return DomeStep(step, event.detail) if step else None
    if isinstance(event, dev.DomeOutOfOrder):
        return DeviceNotice(event.device, "dome_out_of_order", event.reason,
                            {"action": str(event.action), "phase": str(event.phase), "presses": event.presses})
    if isinstance(event, dev.WheelResult):
        fault = event.faults[0].value if event.faults else None
        direction = str(event.ball_direction) if event.ball_direction else None
        return SpinSeen(event.number, direction, fault)
    if isinstance(event, dev.SpinMissed):  # the wheel spun but its result never reached us: void (X.16)
        return SpinSeen(None, None, "spin_missed")
    if isinstance(event, dev.WheelError):
        return DeviceNotice(event.device, "wheel_error", event.message, {"spin": event.spin})
    if isinstance(event, dev.WheelBonus):
        return DeviceNotice(event.device, "wheel_bonus", f"bonus {event.bonus_type}: {event.value}",
                            {"spin": event.spin, "bonus_type": event.bonus_type, "value": event.value})
    if isinstance(event, dev.CardOut):
        return CardSeen(card_text(event.rank, event.suit), event.seq)
    if isinstance(event, dev.CardUnreadable):
        return CardSeen("unreadable", event.seq)  # not a card: the validator voids the coup (II.14)
    if isinstance(event, dev.CardSequenceGap):
        return DeviceNotice(event.device, "card_sequence_gap", f"expected card {event.expected}, got {event.got}", {})
    if isinstance(event, dev.CutCardSeen):
        return CutCardSeen(event.after_seq)
    if isinstance(event, dev.ShoeLoaded):
        return ShoeLoaded()
    return None
