"""Every game's board in landscape (1600x900) and on a portrait pole screen (1080x1920), in Chromium:
everything on screen and nothing clipped, the screen used from top to bottom, the betting countdown
shown. Screenshots of each go to artifacts/boards/<game>-<orientation>.png."""

from __future__ import annotations

import pytest

from .page_fixtures import LANDSCAPE, PORTRAIT, chromium, page_server, screens, screenshot, ws_broker  # noqa: F401
from .page_tables import GAMES, open_board, played_table

pytestmark = pytest.mark.slow
MOST_EMPTY = 0.2  # of the screen's height, at most, between the board's last panel and the paytable

LAYOUT = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left,
                                                                   right: r.right}; };
  const clipped = (e) => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1;
  const sections = ["top", "phase", "hero", "history", "paytable"].map((id) => document.getElementById(id));
  const panels = [...document.querySelectorAll("#history > *, #hero, #paytable, #phase, #top")];
  const outside = (panel) => { const p = box(panel); return [...panel.querySelectorAll("*")].some((e) => {
    const r = box(e); return r.right > r.left && r.bottom > r.top && (r.left < p.left - 1 || r.right > p.right + 1 || r.top < p.top - 1 || r.bottom > p.bottom + 1); }); };
  return {
    width: innerWidth, height: innerHeight,
    sections: Object.fromEntries(sections.map((e) => [e.id, box(e)])),
    clipped: panels.filter((e) => clipped(e) || outside(e)).map((e) => e.id || e.className),
    historyBottom: Math.max(...[...document.querySelectorAll("#history > *")].map((e) => box(e).bottom)),
  };
}"""


def check_layout(page, game: str, orientation: str) -> None:
    report = page.evaluate(LAYOUT)
    where = f"{game} {orientation}"
    assert report["clipped"] == [], f"{where}: content cut off in {report['clipped']}"
    for name, r in report["sections"].items():
        assert r["left"] >= 0 and r["top"] >= 0, f"{where}: {name} starts off screen: {r}"
        assert r["right"] <= report["width"] + 1 and r["bottom"] <= report["height"] + 1, f"{where}: {name} {r}"
    empty = report["sections"]["paytable"]["top"] - report["historyBottom"]
    assert empty <= MOST_EMPTY * report["height"], f"{where}: {empty:.0f} px of the screen left empty"
    if orientation == "portrait":  # top to bottom: header, phase, hero, history, paytable
        order = [report["sections"][n]["top"] for n in ("top", "phase", "hero", "history", "paytable")]
        assert order == sorted(order), f"{where}: sections out of order {order}"
        assert report["sections"]["history"]["right"] - report["sections"]["history"]["left"] > 0.9 * report["width"]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_in_landscape_and_portrait(screens, page_server, ws_broker, game):
    replay = played_table(game, ws_broker, results=60 if game == "baccarat" else 30)
    try:
        replay.announce("betting", 120.0)
        for orientation, viewport in (("landscape", LANDSCAPE), ("portrait", PORTRAIT)):
            page = screens.open(viewport)
            open_board(page, page_server, ws_broker, f"{game}-1")
            page.wait_for_function(f"document.getElementById('board').dataset.roundId === '{game}-1-{replay.round:08d}'"
                                   " && document.getElementById('phase').dataset.timer === 'running'", timeout=10_000)
            assert page.evaluate("document.body.dataset.game") == ("baccarat" if game == "baccarat" else game)
            assert page.locator("#phase-name").inner_text() == "PLACE YOUR BETS"
            assert 0 < int(page.locator("#timer-seconds").inner_text()) <= 120
            check_layout(page, game, orientation)
            screenshot(page, f"{game}-{orientation}")
    finally:
        replay.stop()
