"""The board page against the real simulated tables (`tablehw run --config config/sim-<game>.toml
--simulate`): every result the service publishes is on the page within 1 s, the board the service
publishes in the same journal transaction is drawn, and stopping the service shows OFFLINE. Each table plays
the seed the service tests were written against (the configs carry none), so a CI run can be replayed."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.service.listener import Listener
from tests.service.table_run import SEEDS

from .page_fixtures import ROOT, chromium, page, page_server, screens, screenshot, ws_broker  # noqa: F401
from .test_board_page import PAGE_WAIT_MS, open_board

pytestmark = pytest.mark.slow
WORD = {"banker": "BANKER", "player": "PLAYER", "tie": "TIE"}


def shows_result(page, game: str, result: dict) -> None:
    """The hero shows this result's dice, number or winner."""
    if game == "roulette":
        assert page.locator("#hero .hero-ball").inner_text() == str(result["number"])
    elif game in ("baccarat", "chemin_de_fer"):
        assert page.locator("#hero .hero-winner").inner_text() == WORD[result["outcome"]["winner"]]
    elif game == "blackjack":  # the dealer's hand and total (004 §V)
        dealer = result["outcome"]["dealer"]
        assert page.locator("#hero .hero-total").inner_text() == str(dealer["total"])
        assert page.locator("#hero .card").count() == len(dealer["cards"])
    else:
        faces = [int(d.get_attribute("data-face")) for d in page.locator("#hero .die").all()]
        assert faces == result["faces"]


@pytest.mark.parametrize("game", ["craps", "cussec", "roulette", "baccarat", "paikao", "blackjack", "chemin_de_fer"])
def test_page_follows_the_simulated_table(page, page_server, ws_broker, tmp_path, game):
    sim = ROOT / "config" / f"sim-{game}.toml"
    if not sim.exists():
        pytest.skip(f"the service has no simulated {game} table (config/sim-{game}.toml)")
    table = f"sim-{game}"
    listener = Listener(ws_broker.url, [f"tablehw/tables/{table}/result", f"tablehw/tables/{table}/board"])
    service = subprocess.Popen(
        [sys.executable, "-c", "import sys; from firmware_host.cli import main; sys.exit(main())",
         "run", "--config", str(sim), "--simulate", "--seed", str(SEEDS.get(game, 1)), "--mqtt", ws_broker.url],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        open_board(page, page_server, ws_broker, table)
        page.wait_for_function("document.body.dataset.availability === 'online'", timeout=30_000)
        seen, lags = set(), []
        while len(seen) < 4:
            assert listener.wait_for(lambda ms: any(
                not m.json()["void"] and m.json()["round_id"] not in seen for m in ms if m.topic.endswith("result")),
                timeout_s=60), f"no new result from the service: {service.stderr.read1().decode()[-2000:]}"
            got = next(m for m in listener.snapshot("result")
                       if not m.json()["void"] and m.json()["round_id"] not in seen)
            result = got.json()
            seen.add(result["round_id"])
            left_ms = max(1, PAGE_WAIT_MS - (time.monotonic() - got.monotonic) * 1000)
            page.wait_for_function(f"document.getElementById('hero').dataset.roundId === '{result['round_id']}'",
                                   timeout=left_ms)
            lags.append(time.monotonic() - got.monotonic)
            page.wait_for_function(f"document.getElementById('board').dataset.roundId === '{result['round_id']}'",
                                   timeout=PAGE_WAIT_MS)
            shows_result(page, game, result)
        print(f"\n{game} service -> page: {max(lags) * 1000:.0f} ms at most after the subscriber had the result")
        boards = [m.json() for m in listener.snapshot("board")]
        assert boards and boards[-1]["type"] == "board" and boards[-1]["board"]["game"] == game
        screenshot(page, f"{game}-service")
    finally:
        service.send_signal(signal.SIGTERM)  # a clean stop: the service publishes "offline"
        try:
            service.wait(20)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait(10)
        listener.close()
    page.wait_for_function("document.body.dataset.availability === 'offline'", timeout=10_000)
    assert page.locator("#offline").is_visible()
