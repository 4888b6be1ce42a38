"""The board page in Chromium: the round's phase and the betting countdown from `state`, the per-bet
maxima from the payload, and nothing for supervisors on the players' page (a valid relaunch that went
the same way as the last result, the reason of a void spin)."""

from __future__ import annotations

import time

import msgspec
import pytest

from firmware_host.boards.replay import Step
from firmware_host.mqtt.contract import ResultPayload

from .page_fixtures import chromium, page_server, screens, screenshot, ws_broker  # noqa: F401
from .page_tables import open_board, played_table

pytestmark = pytest.mark.slow


def seconds_left(page) -> int | None:
    left = page.evaluate("document.getElementById('phase').dataset.secondsLeft")
    return None if left is None else int(left)


def bar_width(page) -> float:
    return page.evaluate("parseFloat(document.getElementById('timer-fill').style.width)")


def test_the_countdown_runs_down_to_zero_and_the_phase_follows_the_table(screens, page_server, ws_broker):
    table = played_table("roulette", ws_broker, results=3)
    try:
        page = screens.open()
        open_board(page, page_server, ws_broker, "roulette-1")
        table.announce("betting", 4.0)
        page.wait_for_function("document.getElementById('phase').dataset.timer !== 'none'", timeout=10_000)
        first, first_bar = seconds_left(page), bar_width(page)
        assert page.locator("#phase-name").inner_text() == "PLACE YOUR BETS"
        assert 1 <= first <= 4
        page.wait_for_function(f"Number(document.getElementById('phase').dataset.secondsLeft) < {first}",
                               timeout=15_000)
        assert bar_width(page) < first_bar
        page.wait_for_function("document.getElementById('phase').dataset.secondsLeft === '0'", timeout=20_000)
        assert page.evaluate("document.getElementById('phase').dataset.timer") == "urgent"
        table.announce("spinning")  # the timer closed betting: the ball is launched
        page.wait_for_function("document.getElementById('phase').dataset.phase === 'spinning'", timeout=10_000)
        assert page.locator("#phase-name").inner_text() == "NO MORE BETS"
        assert page.evaluate("document.getElementById('phase').dataset.timer") == "none"
        assert page.locator("#timer").is_hidden()
    finally:
        table.stop()


def test_a_stored_state_counts_down_from_what_is_left_not_from_the_start(screens, page_server, ws_broker):
    table = played_table("craps", ws_broker, results=3)
    try:
        table.announce("betting", 60.0)
        time.sleep(2.5)  # the state waits, retained, for a screen switched on later
        page = screens.open()
        open_board(page, page_server, ws_broker, "craps-1")
        page.wait_for_function("document.getElementById('phase').dataset.timer !== 'none'", timeout=10_000)
        assert seconds_left(page) <= 58  # not 60 again: 2.5 s had gone (this screen's clock is the table's)
    finally:
        table.stop()


@pytest.mark.parametrize("phase, shown", [
    ("no_more_bets", "NO MORE BETS"), ("throwing", "DICE ROLLING"), ("reading", "CHECKING RESULT"),
    ("held", "PLEASE WAIT"), ("closed", "TABLE CLOSED"),
])
def test_each_phase_in_players_words(screens, page_server, ws_broker, phase, shown):
    table = played_table("craps", ws_broker, results=1)
    try:
        page = screens.open()
        open_board(page, page_server, ws_broker, "craps-1")
        table.announce(phase)
        page.wait_for_function(f"document.getElementById('phase').dataset.phase === '{phase}'", timeout=10_000)
        assert page.locator("#phase-name").inner_text() == shown
        assert page.evaluate("document.getElementById('phase').dataset.timer") == "none"
    finally:
        table.stop()


def test_no_countdown_when_only_the_dealer_closes_betting(screens, page_server, ws_broker):
    table = played_table("cussec", ws_broker, results=1)
    try:
        page = screens.open()
        open_board(page, page_server, ws_broker, "cussec-1")
        table.announce("betting", 0.0)  # cussec: the bell closes betting
        page.wait_for_function("document.getElementById('phase').dataset.phase === 'betting'", timeout=10_000)
        assert page.locator("#phase-name").inner_text() == "PLACE YOUR BETS"
        assert page.evaluate("document.getElementById('phase').dataset.timer") == "none"
    finally:
        table.stop()


@pytest.mark.parametrize("game, maxima", [
    ("roulette", {"straight": "50", "split": "100", "red": "900", "two_dozens": "1,200"}),
    ("baccarat", {"player": "700", "banker": "700", "tie": "140"}),
    ("banca_francesa", {"aces": "12", "small": "400", "big_line": "400"}),
])
def test_each_bets_maximum_from_the_payload(screens, page_server, ws_broker, game, maxima):
    table = played_table(game, ws_broker, results=2)
    try:
        page = screens.open()
        open_board(page, page_server, ws_broker, f"{game}-1")
        page.wait_for_selector("#paytable .pay", timeout=10_000)
        for bet, maximum in maxima.items():
            assert page.locator(f"#paytable .pay[data-bet='{bet}'] .bet-max b").inner_text() == maximum, bet
        info = table.keeper.message("x").table_info
        assert page.locator("#paytable .pay").count() == len({r.bet for r in info.paytable})
    finally:
        table.stop()


def test_craps_paytable_without_per_bet_maxima_shows_none(screens, page_server, ws_broker):
    table = played_table("craps", ws_broker, results=1)
    try:
        page = screens.open()
        open_board(page, page_server, ws_broker, "craps-1")
        page.wait_for_selector("#paytable .pay", timeout=10_000)
        assert page.locator("#paytable .bet-max").count() == 0  # macau-2010 sets no per-bet maximum
        assert page.locator("#paytable .pay[data-bet='place'] .bet-numbers").count() == 3  # 4·10, 5·9, 6·8
    finally:
        table.stop()


def test_no_supervisor_alert_on_the_players_page(screens, page_server, ws_broker):
    """A spin launched, voided (no-spin), relaunched the other way and valid, going the same way as the last
    result: the controller tells supervisors on `events` (direction_not_alternated); the board shows the
    numbers, the ball's directions and "NO SPIN" while it was void, never a warning."""
    table = played_table("roulette", ws_broker, results=0)
    try:
        page = screens.open()
        open_board(page, page_server, ws_broker, "roulette-1")
        table.play_step(Step({"number": 17, "outcome": {"direction": "cw"}}))
        void = ResultPayload("roulette-1", 999, "2026-01-01T00:00:00.000Z", game="roulette", round=2,
                             round_id="roulette-1-00000002", attempt=1, void=True, reason="no_spin")
        table.link.publish(table.topics.result, msgspec.json.encode(void), qos=1, retain=True).wait_for_publish(5)
        page.wait_for_selector("#hero .flash", timeout=10_000)
        assert page.locator("#hero .flash").inner_text() == "NO SPIN"
        table.play_step(Step(event="direction_not_alternated", detail={"direction": "cw", "attempt": 2}))
        table.play_step(Step({"number": 32, "outcome": {"direction": "cw"}}))
        page.wait_for_function("document.getElementById('board').dataset.roundId === 'roulette-1-00000002'",
                               timeout=10_000)
        text = page.evaluate("document.body.innerText").lower()
        assert "altern" not in text and "direction" not in text and "no_spin" not in text
        assert page.locator(".last-numbers .dir").all_inner_texts()[:2] == ["↻", "↻"]
        screenshot(page, "roulette-after-a-relaunch")
    finally:
        table.stop()
