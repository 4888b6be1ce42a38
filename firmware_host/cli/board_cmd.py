"""`tablehw board`: compute a result board from a results string, without a broker."""

from __future__ import annotations

import argparse
import json
import logging
import random
import signal

import msgspec

from ..boards import payload
from ..boards.dice_history import craps_state_after
from ..boards.grid_layout import bead_plate_layout, dragon_tail_layout
from ..boards.history import (BaccaratHistory, BoardSettings, CrapsHistory, PaiKaoHistory, RouletteHistory,
                              ThreeDiceHistory)
from ..boards.replay import Replay, drawn_steps, steps_from_text
from ..boards.results_text import parse_coups, parse_faces, parse_spins
from ..boards.table_info import table_info
from ..config import load_config
from ..errors import InputFileError
from ..stop_signal import StopSignal

GAMES = ("baccarat", "roulette", "craps", "cussec", "banca_francesa", "paikao")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("board", help="the board a sequence of results gives (roads, statistics, history); "
                                     "with --publish, play them to a broker as a stand-in table")
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("--results",
                   help="baccarat: B/P/T per coup, pairs as b/p after it ('BPbT'); roulette: numbers "
                        "'32,15,19' (cw/ccw after a number for the ball's direction); dice: '3-4,6-6'")
    p.add_argument("--last", type=bounded(1, 1000), default=20,
                   help="how many recent results the board lists (default 20)")
    p.add_argument("--window", type=bounded(1, 10_000), default=100,
                   help="roulette: spins for hot/cold and counts (default 100)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    replay = p.add_argument_group("stand-in table (publishes like the service: availability, result, board)")
    replay.add_argument("--publish", metavar="URL", help="broker, mqtt://host:port; without --results, "
                        "fresh draws (punto banco dealt from a shuffled shoe)")
    replay.add_argument("--table", default="demo-1", help="table id (default demo-1)")
    replay.add_argument("--prefix", default="tablehw", help="topic prefix (default tablehw)")
    replay.add_argument("--config", help="table config whose limits and paytable the board shows")
    replay.add_argument("--interval", type=float, default=2.0, help="seconds between results (default 2)")
    replay.add_argument("--rounds", type=bounded(1, 10_000_000), help="stop after this many results")
    replay.add_argument("--seed", type=int, help="random seed for the draws")
    p.set_defaults(func=run)


def bounded(low: int, high: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low} to {high}, got {value}")
        return value
    return parse


def compute(game: str, results: str, settings: BoardSettings = BoardSettings()) -> payload.AnyBoard:
    """The board `results` give: the `board` object the service would publish."""
    if game == "baccarat":
        history = BaccaratHistory("", settings)
        for coup in parse_coups(results):
            history.add(coup)
    elif game == "roulette":
        history = RouletteHistory("", settings)
        for spin in parse_spins(results):
            history.add(spin)
    elif game == "craps":
        history = CrapsHistory("", settings)
        for faces in parse_faces(results, game):
            point, shooter = craps_state_after(history.point, history.shooter, faces)
            history.add(faces, history.point, point, history.shooter, shooter)
    elif game == "paikao":
        history = PaiKaoHistory("", settings)
        for faces in parse_faces(results, game):
            history.add(faces)
    else:
        history = ThreeDiceHistory(game, "", settings)
        for faces in parse_faces(results, game):
            history.add(faces)
    return history.board()


def content(board: payload.AnyBoard) -> dict:
    """The board as JSON data, roads in logical columns."""
    doc = msgspec.to_builtins(board)
    doc.pop("layout", None)  # the JSON is the logical roads; boards lay them out
    return doc


def run(args: argparse.Namespace) -> int:
    settings = BoardSettings(last_n=args.last, window=args.window)
    if args.publish:
        return publish(args, settings)
    if args.results is None:
        raise InputFileError("--results is required unless --publish plays fresh draws")
    board = compute(args.game, args.results, settings)
    doc = content(board)
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print("\n".join(as_text(args.game, doc)))
    return 0


def publish(args: argparse.Namespace, settings: BoardSettings) -> int:
    """Play results to a broker until done or stopped (SIGTERM / Ctrl-C: a clean "offline")."""
    info = table_info(load_config(args.config), args.config) if args.config else None
    steps = (steps_from_text(args.game, args.results) if args.results is not None
             else drawn_steps(args.game, random.Random(args.seed)))
    replay = Replay(args.game, args.table, args.publish, args.prefix, settings, info)
    stop = StopSignal().install((signal.SIGTERM,))  # Ctrl-C stays a KeyboardInterrupt
    link_log = logging.getLogger("firmware_host.mqtt.link")
    level = link_log.level
    link_log.setLevel(logging.CRITICAL)  # a failure to connect is this command's one error line, not a log line too
    try:
        replay.start()
    finally:
        link_log.setLevel(level)
    print(f"publishing {args.game} to {args.publish} as {replay.topics.base}/ (Ctrl-C stops)", flush=True)
    try:
        played = replay.play(steps, args.interval, args.rounds, stop)
        if not stop.is_set() and args.results is not None:
            stop.wait(args.interval)
    except KeyboardInterrupt:
        played = replay.round
    finally:
        replay.stop()
    print(f"{played} results published", flush=True)
    return 0


def _grid(cells: list[tuple[int, int, str]], rows: int = 6) -> list[str]:
    width = max((x for x, _, _ in cells), default=-1) + 1
    grid = [["."] * width for _ in range(rows)]
    for x, y, mark in cells:
        grid[y][x] = mark
    return ["  " + " ".join(row) for row in grid]


def as_text(game: str, doc: dict) -> list[str]:
    """A plain-text rendering for the terminal."""
    if game == "baccarat":
        c = doc["counts"]
        out = [f"coups {c['coups']}: banker {c['banker']}, player {c['player']}, tie {c['tie']}, "
               f"banker pairs {c['banker_pair']}, player pairs {c['player_pair']}", "bead plate:"]
        beads = doc["bead_plate"]
        out += _grid([(x, y, b["winner"]) for (x, y), b in zip(bead_plate_layout(len(beads)), beads)])
        cells = [cell for col in doc["big_road"] for cell in col]
        places = dragon_tail_layout([len(col) for col in doc["big_road"]])
        marks = [(cell["winner"] or "-") if not cell["ties"] else (cell["winner"] or "-").lower() for cell in cells]
        out += ["big road (lower case: ties marked on the cell):"]
        out += _grid([(x, y, m) for (x, y), m in zip(places, marks)])
        for name in ("big_eye_boy", "small_road", "cockroach_pig"):
            road = doc[name]
            places = dragon_tail_layout([len(col) for col in road])
            out += [f"{name.replace('_', ' ')}:"]
            out += _grid([(x, y, m) for (x, y), m in zip(places, [m for col in road for m in col])])
        return out
    if game == "roulette":
        c = doc["counts"]
        out = ["last (newest first): " + " ".join(f"{s['number']}{s['colour'][0]}" for s in doc["last"])]
        out.append("hot: " + ", ".join(f"{h['number']}×{h['count']}" for h in doc["hot"]))
        out.append("cold: " + ", ".join(f"{h['number']}×{h['count']}" for h in doc["cold"]))
        out.append(f"over {c['spins']} spins: red {c['red']} black {c['black']} zero {c['zero']} | odd {c['odd']} "
                   f"even {c['even']} | low {c['low']} high {c['high']} | dozens {c['dozens']} columns {c['columns']}")
        return out
    if game == "craps":
        out = [f"point {doc['point'] or 'off'}, shooter {doc['shooter']}, hot roll {doc['hot_roll']}, "
               f"longest roll {doc['longest_roll']}"]
        out += [f"  {t['faces'][0]}-{t['faces'][1]} = {t['total']:>2}  {t['outcome'] or ''}" for t in doc["last"]]
        return out
    if game == "paikao":
        return [f"  {'-'.join(map(str, r['faces']))} = {r['total']:>2}  first seat {r['first_seat']}" for r in doc["last"]]
    out = [", ".join(f"{k} {v}" for k, v in doc["counts"].items())]
    out += [f"  {'-'.join(map(str, r['faces']))} = {r['total']:>2}  {r['chance'] or '-'}{'  triple' if r['triple'] else ''}"
            for r in doc["last"]]
    return out
