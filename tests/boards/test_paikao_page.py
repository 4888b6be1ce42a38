"""The P'ai Kao board in the reference page (headless Chromium, real Mosquitto over WebSockets): the four
dice and the seat given the first stack (002 Art. 1.2-1.4), and the seats that beat the banker (Art. 6),
from the result payloads a P'ai Kao table publishes."""

from __future__ import annotations

import pytest

from firmware_host.boards.keeper import history_for_config
from firmware_host.boards.replay import Replay, Step
from firmware_host.config import load_config

from .page_fixtures import ROOT, chromium, page, page_server, screens, screenshot, ws_broker  # noqa: F401
from .test_board_page import open_board, wait_round

pytestmark = pytest.mark.slow


def test_dice_first_seat_and_the_seats_that_beat_the_banker(page, page_server, ws_broker):
    history = history_for_config(load_config(ROOT / "config" / "sim-paikao.toml"))
    replay = Replay("paikao", "pk-1", ws_broker.url, table=history.table)
    replay.keeper.history = history
    replay.start()
    deals = [([1, 1, 1, 1], [2, 5]), ([6, 6, 6, 6], []), ([1, 2, 3, 3], [1, 3, 7])]  # first seats 3, 7, 0
    try:
        open_board(page, page_server, ws_broker, "pk-1")
        for faces, won in deals:
            replay.play_step(Step({"faces": faces, "total": sum(faces), "outcome": {"winning_seats": won}}))
            wait_round(page, f"pk-1-{replay.round:08d}", timeout_ms=5000)
        rows = page.locator(".throw-list .throw")
        assert rows.count() == 3
        assert rows.first.locator(".total").inner_text() == "9"
        assert "BANKER" in rows.first.locator(".tag").inner_text() or "莊家" in rows.first.locator(".tag").inner_text()
        seats = page.locator(".throw-list .winners").evaluate_all("els => els.map(e => e.dataset.seats)")
        assert seats == ["1,3,7", "", "2,5"]  # newest first
        assert page.locator(".throw-list .winners .seats").nth(1).inner_text() == "—"
        screenshot(page, "paikao")
    finally:
        replay.stop()
