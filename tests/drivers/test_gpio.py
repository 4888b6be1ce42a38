"""Cussec dome and dealer console on gpiozero's MockFactory: the dome's full cycle (004 §VII.4-5, 11),
every out-of-order action, debounce, lamps and buzzer."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.console import DealerConsole
from drivers.dome import CussecDome
from drivers.dome_procedure import DomeProcedure
from drivers.gpio_inputs import DebouncedInput, DebounceGroup
from drivers.errors import DeviceConfigError
from drivers.events import (
    ButtonPressed, ConsoleButton, DomeAction, DomeOutOfOrder, DomePhase, DomeStep, SupervisorKey,
)
from drivers.settings import ConsoleSettings, DomeSettings
from drivers.sim.dome import DomeSim, regular_round
from tests.link.harness import EventSink

DOME_PINS = DomeSettings(lever=17, clasp_left=27, clasp_right=22, dome=23, bell=24, bets_open_light=5,
                         bell_ringer=6, winning_areas={"small": 12, "big": 13, "triple": 16}, bell_s=0.05,
                         debounce_s=0.0)


@pytest.fixture
def factory():
    return MockFactory()


@pytest.fixture
def dome(factory):
    sink = EventSink()
    device = CussecDome(DOME_PINS, emit=sink, pin_factory=factory)
    yield device, sink, factory
    device.close()


def press(pin) -> None:
    pin.drive_low()
    pin.drive_high()


class Table:
    """The dealer's hands on the dome's contacts (pulled up: closed = low)."""

    def __init__(self, factory: MockFactory) -> None:
        self.f = factory

    def cover(self): self.f.pin(23).drive_low()
    def lift(self): self.f.pin(23).drive_high()
    def fasten(self, side): self.f.pin(27 if side == "left" else 22).drive_low()
    def release(self, side): self.f.pin(27 if side == "left" else 22).drive_high()
    def lever(self, times=1):
        for _ in range(times):
            press(self.f.pin(17))
    def bell(self): press(self.f.pin(24))

    def shake(self, presses=3):
        self.cover()
        self.fasten("left")
        self.fasten("right")
        self.lever(presses)


def test_full_cycle_in_order(dome):
    device, sink, f = dome
    table = Table(f)
    assert device.phase is DomePhase.IDLE and f.pin(5).state == 0
    table.shake()
    assert device.phase is DomePhase.BETS_OPEN and f.pin(5).state == 1  # the light panel: bets open
    table.bell()
    assert device.phase is DomePhase.BETS_CLOSED and f.pin(5).state == 0
    assert f.pin(6).state == 1  # the bell rings for bell_s
    table.release("left")
    table.release("right")
    table.lift()
    assert device.phase is DomePhase.LIFTED
    assert device.show_result(["small", "triple"])
    assert (f.pin(12).state, f.pin(13).state, f.pin(16).state) == (1, 0, 1)
    device.end_round()
    assert device.phase is DomePhase.IDLE and (f.pin(12).state, f.pin(16).state) == (0, 0)
    steps = [(e.action, e.phase) for e in sink.take(DomeStep, 12, timeout=1)]
    assert steps == [
        (DomeAction.COVER, DomePhase.COVERED),
        (DomeAction.FASTEN_CLASP, DomePhase.COVERED), (DomeAction.FASTEN_CLASP, DomePhase.FASTENED),
        (DomeAction.LEVER_PRESS, DomePhase.SHAKING), (DomeAction.LEVER_PRESS, DomePhase.SHAKING),
        (DomeAction.LEVER_PRESS, DomePhase.BETS_OPEN),
        (DomeAction.BELL, DomePhase.BETS_CLOSED),
        (DomeAction.RELEASE_CLASP, DomePhase.BETS_CLOSED), (DomeAction.RELEASE_CLASP, DomePhase.RELEASED),
        (DomeAction.LIFT, DomePhase.LIFTED), (DomeAction.SHOW_RESULT, DomePhase.RESULT_SHOWN),
        (DomeAction.END_ROUND, DomePhase.IDLE),
    ]
    assert not sink.of_type(DomeOutOfOrder)
    assert all(e.mono > 0 and e.utc.tzinfo is not None for e in sink.seen)
    table.cover()  # the next round may begin
    assert device.phase is DomePhase.COVERED and not sink.of_type(DomeOutOfOrder)


def to_bets_closed(table: Table) -> None:
    table.shake()
    table.bell()


def to_lifted(table: Table) -> None:
    to_bets_closed(table)
    table.release("left")
    table.release("right")
    table.lift()


OUT_OF_ORDER = [
    ("lift before the bell", lambda t: (t.shake(), t.lift()), DomeAction.LIFT, "lifted before the bell"),
    ("lift before three presses", lambda t: (t.shake(2), t.lift()), DomeAction.LIFT, "lifted before the bell"),
    ("bell after two presses", lambda t: (t.shake(2), t.bell()), DomeAction.BELL, "2 lever press(es): 3 required"),
    ("bell after no press", lambda t: (t.shake(0), t.bell()), DomeAction.BELL, "0 lever press(es)"),
    ("bell with a clasp open", lambda t: (t.cover(), t.fasten("left"), t.bell()), DomeAction.BELL, "clasp(s) open"),
    ("bell with the dome lifted", lambda t: t.bell(), DomeAction.BELL, "dome lifted"),
    ("bell twice", lambda t: (to_bets_closed(t), t.bell()), DomeAction.BELL, "twice"),
    ("lever with clasps open", lambda t: (t.cover(), t.lever()), DomeAction.LEVER_PRESS, "2 clasp(s) open"),
    ("lever with the dome lifted", lambda t: t.lever(), DomeAction.LEVER_PRESS, "dome lifted"),
    ("fourth press", lambda t: (t.shake(), t.lever()), DomeAction.LEVER_PRESS, "after bets opened (press 4)"),
    ("lever after the bell", lambda t: (to_bets_closed(t), t.lever()), DomeAction.LEVER_PRESS, "after the bell"),
    ("clasp released before the bell", lambda t: (t.shake(), t.release("left")), DomeAction.RELEASE_CLASP,
     "before the bell"),
    ("clasp fastened with the dome lifted", lambda t: t.fasten("left"), DomeAction.FASTEN_CLASP, "dome lifted"),
    ("clasp fastened after the bell", lambda t: (to_bets_closed(t), t.release("left"), t.fasten("left")),
     DomeAction.FASTEN_CLASP, "after the bell"),
    ("lifted with clasps fastened", lambda t: (to_bets_closed(t), t.lift()), DomeAction.LIFT,
     "2 clasp(s) still fastened"),
    ("covered before the round ended", lambda t: (to_lifted(t), t.cover()), DomeAction.COVER,
     "before the round ended"),
]


@pytest.mark.parametrize("script,action,reason", [case[1:] for case in OUT_OF_ORDER],
                         ids=[case[0] for case in OUT_OF_ORDER])
def test_every_out_of_order_action_is_reported(dome, script, action, reason):
    device, sink, f = dome
    script(Table(f))
    irregular = sink.take(DomeOutOfOrder, 1, timeout=1)
    assert irregular, "nothing reported"
    assert irregular[0].action is action and reason in irregular[0].reason


def test_result_is_not_lit_before_the_dome_is_lifted(dome):
    device, sink, f = dome
    to_bets_closed(Table(f))
    assert device.show_result(["big"]) is False
    assert f.pin(13).state == 0
    (irregular,) = sink.take(DomeOutOfOrder, 1, timeout=1)
    assert irregular.action is DomeAction.SHOW_RESULT and "not lit" in irregular.reason


def test_end_round_before_the_result_is_reported(dome):
    device, sink, f = dome
    to_lifted(Table(f))
    device.end_round()
    (irregular,) = sink.take(DomeOutOfOrder, 1, timeout=1)
    assert irregular.action is DomeAction.END_ROUND


def test_unknown_winning_area_is_a_config_error(dome):
    device, _, f = dome
    to_lifted(Table(f))
    with pytest.raises(DeviceConfigError, match="no lamp for winning area"):
        device.show_result(["seven"])


def test_phase_from_the_contacts_found_at_start_up():
    # MockPin resets a pin to its pull level when a Button claims it, so the start-up reading is
    # checked on the procedure the driver builds from the contacts it reads.
    assert DomeProcedure(covered=True, clasps=frozenset({"left", "right"})).phase is DomePhase.FASTENED
    assert DomeProcedure(covered=True, clasps=frozenset({"left"})).phase is DomePhase.COVERED
    assert DomeProcedure().phase is DomePhase.IDLE


def test_bouncing_lever_counts_one_press_per_press(factory):
    sink = EventSink()
    pins = DomeSettings(**{**{f: getattr(DOME_PINS, f) for f in DOME_PINS.__struct_fields__}, "debounce_s": 0.02})
    device = CussecDome(pins, emit=sink, pin_factory=factory)
    try:
        lever = factory.pin(17)
        for pin in (23, 27, 22):  # cover, then the clasps, a hand's time apart
            factory.pin(pin).drive_low()
            time.sleep(0.06)
        for _ in range(3):
            for _ in range(4):  # contact bounce: a burst of edges
                lever.drive_low()
                lever.drive_high()
            lever.drive_low()
            time.sleep(0.06)
            lever.drive_high()
            lever.drive_low()
            lever.drive_high()
            time.sleep(0.06)
        sink.settle(0.2)
        steps = sink.of_type(DomeStep)
        presses = [e for e in steps if e.action is DomeAction.LEVER_PRESS]
        assert [e.action for e in steps[:3]] == [DomeAction.COVER, DomeAction.FASTEN_CLASP, DomeAction.FASTEN_CLASP], [(type(e).__name__, e.action.value, e.presses, getattr(e, "reason", "")) for e in sink.seen]
        assert [e.presses for e in presses] == [1, 2, 3]
        assert device.phase is DomePhase.BETS_OPEN
    finally:
        device.close()


def test_close_leaves_every_output_off(factory):
    device = CussecDome(DOME_PINS, emit=EventSink(), pin_factory=factory)
    Table(factory).shake()
    assert factory.pin(5).state == 1
    device.close()
    assert factory.pin(5).state == 0


def test_pin_used_twice_is_a_config_error(factory):
    clash = DomeSettings(lever=17, clasp_left=17, clasp_right=22, dome=23, bell=24, bets_open_light=5)
    with pytest.raises(DeviceConfigError, match="clasp_left"):
        CussecDome(clash, emit=EventSink(), pin_factory=factory)


# --- dealer console ---

CONSOLE_PINS = ConsoleSettings(no_more_bets=4, confirm=14, void=15, new_shooter=18, supervisor_key=25,
                               lamps={"bets_open": 7, "fault": 8}, buzzer=9, debounce_s=0.0)


@pytest.fixture
def console(factory):
    sink = EventSink()
    device = DealerConsole(CONSOLE_PINS, emit=sink, pin_factory=factory)
    yield device, sink, factory
    device.close()


def test_each_button_gives_one_event(console):
    device, sink, f = console
    for pin in (4, 14, 15, 18):
        press(f.pin(pin))
    got = [e.button for e in sink.take(ButtonPressed, 4, timeout=1)]
    assert got == [ConsoleButton.NO_MORE_BETS, ConsoleButton.CONFIRM, ConsoleButton.VOID, ConsoleButton.NEW_SHOOTER]


def test_supervisor_key_is_reported_and_marks_presses(console):
    device, sink, f = console
    f.pin(25).drive_low()
    press(f.pin(15))
    f.pin(25).drive_high()
    press(f.pin(15))
    keys = [e.on for e in sink.take(SupervisorKey, 2, timeout=1)]
    voids = [e.supervisor for e in sink.take(ButtonPressed, 2, timeout=1)]
    assert keys == [True, False] and voids == [True, False]


def test_console_debounce(factory):
    sink = EventSink()
    pins = ConsoleSettings(**{**{f: getattr(CONSOLE_PINS, f) for f in CONSOLE_PINS.__struct_fields__},
                              "debounce_s": 0.02})
    device = DealerConsole(pins, emit=sink, pin_factory=factory)
    try:
        button = factory.pin(14)
        for _ in range(5):
            button.drive_low()
            button.drive_high()
        button.drive_low()
        time.sleep(0.08)
        button.drive_high()
        time.sleep(0.08)
        sink.settle(0.1)
        assert [e.button for e in sink.of_type(ButtonPressed)] == [ConsoleButton.CONFIRM]
    finally:
        device.close()


def test_lamps_and_buzzer(console):
    device, _, f = console
    device.set_lamp("fault", True)
    assert f.pin(8).state == 1 and f.pin(7).state == 0
    device.beep(0.05)
    assert f.pin(9).state == 1
    end = time.monotonic() + 1
    while f.pin(9).state and time.monotonic() < end:
        time.sleep(0.01)
    assert f.pin(9).state == 0
    with pytest.raises(DeviceConfigError, match="no lamp"):
        device.set_lamp("nope", True)
    device.close()
    assert f.pin(8).state == 0


# --- the dome simulator driving the driver ---

def test_simulated_rounds_with_contact_bounce(factory):
    sink = EventSink()
    pins = DomeSettings(**{**{f: getattr(DOME_PINS, f) for f in DOME_PINS.__struct_fields__}, "debounce_s": 0.01})
    device = CussecDome(pins, emit=sink, pin_factory=factory)
    try:
        sim = DomeSim(factory, pins, gap=0.04, bounce=3)
        for _ in range(2):
            sim.run(regular_round())
            sink.settle(0.1)
            assert device.phase is DomePhase.LIFTED
            assert device.show_result(["big"])
            device.end_round()
        sink.settle(0.1)
        assert not sink.of_type(DomeOutOfOrder)
        presses = [e.presses for e in sink.of_type(DomeStep) if e.action is DomeAction.LEVER_PRESS]
        assert presses == [1, 2, 3, 1, 2, 3]
    finally:
        device.close()


def test_simulated_stuck_clasp_sensor_is_reported(dome):
    device, sink, f = dome
    DomeSim(f, DOME_PINS, stuck=frozenset({"clasp_right"})).run(regular_round())
    sink.settle(0.05)
    reasons = [e.reason for e in sink.of_type(DomeOutOfOrder)]
    assert any("1 clasp(s) open" in r for r in reasons)


def test_simulated_short_shake(dome):
    device, sink, f = dome
    DomeSim(f, DOME_PINS).run(regular_round(presses=2))
    (irregular, *_) = sink.take(DomeOutOfOrder, 2, timeout=1)
    assert irregular.action is DomeAction.BELL and "2 lever press(es)" in irregular.reason


def test_debounce_judges_edges_in_the_order_they_happened_even_when_late(factory):
    """A worker that wakes late (busy CPU) still reports the press before the bell, and no bounce."""
    group = DebounceGroup(0.02, "test")
    got = []
    lever = DebouncedInput(17, lambda level, mono, utc: got.append(("lever", level, mono)), name="lever",
                           group=group, pin_factory=factory)
    bell = DebouncedInput(24, lambda level, mono, utc: got.append(("bell", level, mono)), name="bell",
                          group=group, pin_factory=factory)
    # edges as they arrived (seconds): a bouncy lever press, then the bell 0.1 s later
    lever.edges[:] = [(1.000, True), (1.002, False), (1.003, True), (1.060, False)]
    bell.edges[:] = [(1.100, True), (1.101, False), (1.102, True), (1.150, False)]
    settled, wake = group._settled(now=5.0)  # judged long after, all at once
    for t, contact, level in settled:
        contact.accept(level, t)
    assert [(name, level) for name, level, _ in got] == [("lever", True), ("lever", False), ("bell", True),
                                                         ("bell", False)]
    assert got[0][2] == 1.003 and wake is None
    lever.close()
    bell.close()
