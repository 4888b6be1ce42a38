"""Stand-in tables for the board page's browser tests: a `Replay` of any game with its example config's
limits and paytable, played up to a number of fresh results, and the page opened on it."""

from __future__ import annotations

import random

from firmware_host.boards.history import BoardSettings
from firmware_host.boards.replay import Replay, drawn_steps
from firmware_host.boards.table_info import table_info
from firmware_host.config import load_config

from .page_fixtures import ROOT

EXAMPLE_CONFIG = {"craps": "craps-macau-2010", "cussec": "cussec-portugal-1995",
                  "banca_francesa": "banca-francesa-portugal-1995", "roulette": "roulette-french-portugal-1995",
                  "baccarat": "punto-banco-portugal-1995", "paikao": "paikao-macau",
                  "blackjack": "blackjack-portugal-1995", "chemin_de_fer": "chemin-de-fer-portugal-1995"}
GAMES = tuple(EXAMPLE_CONFIG)


def played_table(game: str, broker, results: int, seed: int = 8, languages: tuple[str, ...] = ("en",)) -> Replay:
    """A started stand-in table of `game` that has published `results` fresh results (and their boards)."""
    config = load_config(ROOT / "config" / f"{EXAMPLE_CONFIG[game]}.toml")
    replay = Replay(game, f"{game}-1", broker.url, settings=BoardSettings(languages=languages),
                    table=table_info(config))
    replay.start()
    played = 0
    for step in drawn_steps(game, random.Random(seed)):
        if played >= results:
            break
        replay.play_step(step)
        played += step.result is not None
    return replay


def open_board(page, page_server, broker, table: str, lang: str | None = None) -> None:
    """Open the page on a table and wait until it drew the table's board."""
    page.goto(f"{page_server}/index.html?table={table}&broker={broker.ws_url}" + (f"&lang={lang}" if lang else ""))
    page.wait_for_function("document.body.dataset.link === 'connected' && document.body.dataset.game !== undefined",
                           timeout=15_000)
