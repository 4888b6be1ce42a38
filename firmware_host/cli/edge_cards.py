"""`tablehw edge` for card, wheel and tile games: punto banco by exhaustive enumeration of the shoe,
roulette's chances over the 37 numbers, and the paytables of the games whose edge depends on play."""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction

from ..config import TableConfig
from ..games import TABLE_GAMES, build_table_game
from ..rules.baccarat_edge import enumerate_decks
from ..rules.money import format_ratio
from ..rules.punto_banco import PuntoBanco
from ..rules.roulette import Roulette
from .edge_cmd import paid_text, row_json


def handles(config: TableConfig) -> bool:
    return isinstance(config.game, TABLE_GAMES)


def run(args: argparse.Namespace, config: TableConfig) -> int:
    game = build_table_game(config, args.config)
    if isinstance(game, PuntoBanco):
        return _punto_banco(args, game)
    if isinstance(game, Roulette):
        doc = {"game": game.game, "rulebook": game.rulebook, "wheel": game.wheel_name,
               "bets": [row_json(r) | {"max": game.maximum_for(r.bet)} for r in game.edge_rows()]}
        return _print(args, doc, f"roulette {game.rulebook} ({game.wheel_name} wheel, single zero)")
    return _paytable(args, game)


def _punto_banco(args: argparse.Namespace, game: PuntoBanco) -> int:
    figures = []
    for decks in sorted({game.shoe_rules.decks, 6, 8}):
        start = time.monotonic()
        counts = enumerate_decks(decks)
        seconds = time.monotonic() - start
        rows = game.edge_rows(counts)
        figures.append({
            "decks": decks, "configured": decks == game.shoe_rules.decks,
            "counts": {"banker": counts.banker, "player": counts.player, "tie": counts.tie, "total": counts.total},
            "enumeration_seconds": round(seconds, 3),
            "bets": [row_json(r) | {"max": game.maximum_for(r.bet)} for r in rows],
        })
    doc = {"game": game.game, "rulebook": game.rulebook, "method": "exhaustive enumeration, cards without replacement",
           "shoes": figures}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"punto banco {game.rulebook} — {args.config}")
    for shoe in figures:
        c = shoe["counts"]
        mark = " (configured)" if shoe["configured"] else ""
        print(f"{shoe['decks']} decks{mark}: every coup of the shoe enumerated in {shoe['enumeration_seconds']} s")
        print(f"  six-card sequences: banker {c['banker']:,}  player {c['player']:,}  tie {c['tie']:,}  total {c['total']:,}")
        _table(shoe["bets"])
    return 0


def _paytable(args: argparse.Namespace, game) -> int:
    """Games whose edge depends on how the hands are played: the paytable, why no single edge, and
    what each payout actually pays at the least stake under the table's rounding."""
    doc = {"game": game.game, "rulebook": game.rulebook, "paytable": game.paytable(),
           "edge": "depends on the players' and bankers' decisions; not a single exact figure",
           "paid_at_least_stake": payouts_at_least(game)}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{game.game} {game.rulebook}: {doc['edge']}")
    for bet, pays in doc["paytable"].items():
        print(f"  {bet:<30}{pays}")
    print_payouts(doc["paid_at_least_stake"], game.rounding)
    return 0


def payouts_at_least(game) -> list[dict]:
    """Each payout of `game.payouts()` (name, ratio, least stake) as the exact win and the win paid."""
    out = []
    for name, ratio, stake in game.payouts():
        paid, breakage = game.rounding.pay(stake * ratio)
        out.append({"payout": name, "pays": format_ratio(ratio), "least_stake": stake, "exact": str(stake * ratio),
                    "paid": paid, "paid_ratio": format_ratio(Fraction(paid, stake))})
    return out


def print_payouts(rows: list[dict], rounding) -> None:
    print(f"  at the least stake, wins rounded {rounding.mode.value} to {rounding.unit} minor unit(s):")
    for r in rows:
        print(f"    {r['payout']:<28}{r['pays']:>7} on {r['least_stake']:>9}: exact {float(Fraction(r['exact'])):>12.2f}"
              f"  paid {r['paid']:>10}  ({r['paid_ratio']})")


def _print(args: argparse.Namespace, doc: dict, title: str) -> int:
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{title} — {args.config}")
    _table(doc["bets"])
    return 0


def _table(rows: list[dict]) -> None:
    print(f"  {'bet':<14}{'pays':>7}  {'P(win)':>22} {'P(push)':>22}  {'edge %':>8} {'max':>10}  {'least':>9} {'paid %':>8}")
    for r in rows:
        print(f"  {r['bet']:<14}{r['pays']:>7}  {float_text(r['p_win']):>22} {float_text(r['p_push']):>22}  "
              f"{r['edge_pct']:>8.4f} {r['max'] if r['max'] is not None else '-':>10}  {paid_text(r)}")
    print("  least: the least stake taken on the bet; paid %: the edge actually paid there under the rounding")


def float_text(fraction: str) -> str:
    """A probability as a decimal (the exact fraction is in --json)."""
    num, _, den = fraction.partition("/")
    return f"{int(num) / int(den or 1):.6f}"

