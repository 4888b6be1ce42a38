"""The board page's labels in English, Portuguese and Chinese, one language or two at once, chosen by the
table's config (`[board] languages`, carried in the board payload) or the screen's URL (`lang=`), in
Chromium, portrait and landscape. Chinese needs a Chinese font on the screen (Debian fonts-noto-cjk):
without one the page shows the other language instead of boxes, and the test says it could not check
the Chinese glyphs."""

from __future__ import annotations

import typing

import pytest

from firmware_host.config import BoardLanguage

from .page_fixtures import LANDSCAPE, PORTRAIT, chromium, page_server, screens, screenshot, ws_broker  # noqa: F401
from .page_tables import open_board, played_table
from .test_board_layouts import check_layout

pytestmark = pytest.mark.slow
CJK = range(0x4E00, 0xA000)


def labels(page, selector: str) -> list[str]:
    """The texts of one label, first language first."""
    return page.locator(f"{selector} .t").first.locator("span").all_inner_texts()


def drawn(page, table) -> None:
    """Until the page drew the table's last board and its betting phase."""
    page.wait_for_function(f"document.getElementById('board').dataset.roundId === '{table.table_id}-{table.round:08d}'"
                           " && document.getElementById('phase').dataset.phase === 'betting'", timeout=10_000)


def test_every_label_exists_in_every_language_the_config_allows(screens, page_server, ws_broker):
    table = played_table("roulette", ws_broker, results=1)
    try:
        page = screens.open()
        open_board(page, page_server, ws_broker, "roulette-1")
        texts = page.evaluate("Object.fromEntries(Object.entries(window.BoardText.TEXT).map(([l, t]) => [l, Object.keys(t)]))")
    finally:
        table.stop()
    assert set(texts) == set(typing.get_args(BoardLanguage))
    for lang, keys in texts.items():
        assert set(keys) == set(texts["en"]), f"{lang}: missing {set(texts['en']) - set(keys)}"


@pytest.mark.parametrize("lang, phase, tie, banker", [
    ("en", ["PLACE YOUR BETS"], "T", "banker"),
    ("pt", ["FAÇAM AS VOSSAS APOSTAS"], "E", "banca"),
    ("pt,en", ["FAÇAM AS VOSSAS APOSTAS", "PLACE YOUR BETS"], "E", "banca"),
    ("en,pt", ["PLACE YOUR BETS", "FAÇAM AS VOSSAS APOSTAS"], "T", "banker"),
])
def test_labels_in_one_language_or_two(screens, page_server, ws_broker, lang, phase, tie, banker):
    table = played_table("baccarat", ws_broker, results=60)
    try:
        table.announce("betting", 30.0)
        for orientation, viewport in (("landscape", LANDSCAPE), ("portrait", PORTRAIT)):
            page = screens.open(viewport)
            open_board(page, page_server, ws_broker, "baccarat-1", lang)
            drawn(page, table)
            assert page.evaluate("document.body.dataset.lang") == lang
            assert page.evaluate("document.documentElement.lang") == lang.split(",")[0]
            assert labels(page, "#phase-name") == phase
            assert labels(page, "#paytable .pay[data-bet='banker'] .bet-name")[0] == banker
            beads = set(page.locator(".bead-plate .bead").all_inner_texts())
            assert beads <= {"B", "P", tie} and tie in beads  # one letter per cell, the first language's
            check_layout(page, f"baccarat {lang}", orientation)
            screenshot(page, f"baccarat-{orientation}-{lang.replace(',', '+')}")
    finally:
        table.stop()


def test_languages_come_from_the_tables_config_and_the_url_overrides_them(screens, page_server, ws_broker):
    table = played_table("roulette", ws_broker, results=5, languages=("pt", "en"))
    try:
        table.announce("betting", 30.0)
        page = screens.open()
        open_board(page, page_server, ws_broker, "roulette-1")
        page.wait_for_function("document.body.dataset.lang === 'pt,en'", timeout=10_000)
        assert labels(page, "#game-name") == ["ROLETA", "ROULETTE"]
        page = screens.open()
        open_board(page, page_server, ws_broker, "roulette-1", "en")
        drawn(page, table)
        assert page.evaluate("document.body.dataset.lang") == "en"
        assert labels(page, "#game-name") == ["ROULETTE"]
        page = screens.open()
        open_board(page, page_server, ws_broker, "roulette-1", "fr,xx")  # not a board language: English
        drawn(page, table)
        assert page.evaluate("document.body.dataset.lang") == "en"
    finally:
        table.stop()


def test_chinese_with_english_under_it_or_a_legible_board_without_a_chinese_font(screens, page_server, ws_broker):
    table = played_table("baccarat", ws_broker, results=60, languages=("zh", "en"))
    try:
        table.announce("betting", 30.0)
        shown = []
        for orientation, viewport in (("landscape", LANDSCAPE), ("portrait", PORTRAIT)):
            page = screens.open(viewport)
            open_board(page, page_server, ws_broker, "baccarat-1")
            drawn(page, table)
            page.wait_for_function("document.body.dataset.cjk !== undefined", timeout=5_000)
            font = page.evaluate("document.body.dataset.cjk")
            text = page.evaluate("document.body.innerText")
            if font == "ok":
                assert page.evaluate("document.body.dataset.lang") == "zh,en"
                assert page.evaluate("document.documentElement.lang") == "zh-Hant"
                assert labels(page, "#phase-name") == ["請下注", "PLACE YOUR BETS"]
                assert labels(page, "#game-name") == ["百家樂", "PUNTO BANCO"]
                assert set(page.locator(".bead-plate .bead").all_inner_texts()) <= {"莊", "閒", "和"}
                check_layout(page, "baccarat zh,en", orientation)
                screenshot(page, f"baccarat-{orientation}-zh+en")
            else:  # no Chinese font: English alone, never boxes
                assert font == "missing"
                assert page.evaluate("document.body.dataset.lang") == "en"
                assert labels(page, "#phase-name") == ["PLACE YOUR BETS"]
                assert not any(ord(ch) in CJK for ch in text), "Chinese text shown without a font for it"
                screenshot(page, f"baccarat-{orientation}-zh+en-without-chinese-font")
            shown.append(font)
    finally:
        table.stop()
    if "missing" in shown:
        pytest.skip("no Chinese font on this machine (Debian fonts-noto-cjk): the fallback to a legible board was "
                    "checked, the Chinese labels' glyphs were not")
