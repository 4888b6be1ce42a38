"""The American roulette board in the reference page (headless Chromium, real Mosquitto over WebSockets):
the wheel order the table's config names (004 IX.2, the American numbering) with the last number marked."""

from __future__ import annotations

import pytest

from firmware_host.boards.keeper import history_for_config
from firmware_host.boards.replay import Replay, steps_from_text
from firmware_host.config import load_config
from firmware_host.rules.roulette import AMERICAN_NUMBERING_WHEEL, FRENCH_WHEEL

from .page_fixtures import ROOT, chromium, page, page_server, screens, screenshot, ws_broker  # noqa: F401
from .test_board_page import open_board, wait_round

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("config, wheel", [("roulette-american-portugal-1995.toml", AMERICAN_NUMBERING_WHEEL),
                                           ("roulette-french-portugal-1995.toml", FRENCH_WHEEL)])
def test_the_board_shows_the_wheel_order_of_the_config(page, page_server, ws_broker, config, wheel):
    history = history_for_config(load_config(ROOT / "config" / config))
    replay = Replay("roulette", "roul-w", ws_broker.url, table=history.table)
    replay.keeper.history = history  # the history the service builds from this config
    replay.start()
    try:
        open_board(page, page_server, ws_broker, "roul-w")
        for step in steps_from_text("roulette", "0cw,28ccw,9cw"):
            replay.play_step(step)
            wait_round(page, f"roul-w-{replay.round:08d}", timeout_ms=5000)
        cells = page.locator(".wheel-order .wheel-cell")
        assert cells.count() == 37
        assert [int(n) for n in cells.evaluate_all("els => els.map(e => e.dataset.number)")] == list(wheel)
        assert page.locator(".wheel-order .wheel-cell.newest").inner_text() == "9"
        title = page.locator(".wheel-order h2").first.inner_text()
        assert ("AMERICAN" in title) == (wheel == AMERICAN_NUMBERING_WHEEL), title
        screenshot(page, f"roulette-wheel-{config.split('-')[1]}")
    finally:
        replay.stop()
