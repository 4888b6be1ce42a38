"""Fixtures for the board page's browser test: Mosquitto with a websockets listener, a static file
server for firmware_host/board/, and headless Debian Chromium driven by Playwright."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
import time
from pathlib import Path

import pytest

from tests.service.broker import MosquittoBroker, free_port, port_open

ROOT = Path(__file__).resolve().parents[2]
PAGE_DIR = ROOT / "firmware_host" / "board"
ARTIFACTS = ROOT / "artifacts" / "boards"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


class WebSocketBroker(MosquittoBroker):
    """Mosquitto with an MQTT listener and a websockets listener (2.0.11 starts the websockets one
    only beside an ordinary listener, and binds it on every interface: loopback traffic only)."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory, persistence=False)
        self.ws_port = free_port()
        with self.config.open("a") as conf:
            conf.write(f"listener {self.ws_port} 127.0.0.1\nprotocol websockets\n")
        self.ws_url = f"ws://127.0.0.1:{self.ws_port}"

    def start(self, timeout_s: float = 10.0) -> WebSocketBroker:
        super().start(timeout_s)
        deadline = time.monotonic() + timeout_s
        while not port_open(self.ws_port):
            if time.monotonic() > deadline:
                raise RuntimeError(f"mosquitto did not open its websockets listener on {self.ws_port}")
            time.sleep(0.05)
        return self


@pytest.fixture
def ws_broker(tmp_path):
    broker = WebSocketBroker(tmp_path / "broker").start()
    yield broker
    broker.stop()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def page_server():
    handler = functools.partial(_QuietHandler, directory=str(PAGE_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (make test installs it with apt)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield browser
        browser.close()


LANDSCAPE = {"width": 1600, "height": 900}
PORTRAIT = {"width": 1080, "height": 1920}  # a pole screen


class Screens:
    """Pages in fresh browser contexts of a given size; closed (and checked for JavaScript errors) at the end."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.contexts: list = []
        self.errors: list[str] = []

    def open(self, viewport: dict = LANDSCAPE):
        context = self.browser.new_context(viewport=viewport)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.errors = self.errors
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def screens(chromium):
    opened = Screens(chromium)
    yield opened
    opened.close()
    assert not opened.errors, f"JavaScript errors on the board page: {opened.errors}"


@pytest.fixture
def page(screens):
    return screens.open(LANDSCAPE)


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
