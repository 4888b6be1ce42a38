"""The board page against the real simulated table (`tablehw run --config config/sim-craps.toml
--simulate`): every result the service publishes is on the page within 1 s, the board the service
publishes in the same journal transaction is drawn, and stopping the service shows OFFLINE."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.service.listener import Listener

from .page_fixtures import ROOT, chromium, page, page_server, screenshot, ws_broker  # noqa: F401
from .test_board_page import WITHIN_MS, open_board

pytestmark = pytest.mark.slow
SIM = ROOT / "config" / "sim-craps.toml"


@pytest.mark.skipif(not SIM.exists(), reason="the service's simulated craps table is not there")
def test_page_follows_the_simulated_craps_table(page, page_server, ws_broker, tmp_path):
    listener = Listener(ws_broker.url, ["tablehw/tables/sim-craps/result", "tablehw/tables/sim-craps/board"])
    service = subprocess.Popen(
        [sys.executable, "-c", "import sys; from firmware_host.cli import main; sys.exit(main())",
         "run", "--config", str(SIM), "--simulate", "--mqtt", ws_broker.url],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        open_board(page, page_server, ws_broker, "sim-craps")
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
            left_ms = max(1, WITHIN_MS - (time.monotonic() - got.monotonic) * 1000)
            page.wait_for_function(f"document.getElementById('hero').dataset.roundId === '{result['round_id']}'",
                                   timeout=left_ms)
            lags.append(time.monotonic() - got.monotonic)
            page.wait_for_function(f"document.getElementById('board').dataset.roundId === '{result['round_id']}'",
                                   timeout=WITHIN_MS)
            faces = [int(d.get_attribute("data-face")) for d in page.locator("#hero .die").all()]
            assert faces == result["faces"]
        print(f"\nservice -> page: {max(lags) * 1000:.0f} ms at most after the subscriber had the result")
        boards = [m.json() for m in listener.snapshot("board")]
        assert boards and boards[-1]["type"] == "board" and boards[-1]["board"]["game"] == "craps"
        screenshot(page, "craps-service")
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
