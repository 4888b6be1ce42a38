"""`tablehw edge`: the exact house edge of every bet a configuration allows (Macau 2010 Art. 7.2)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from fractions import Fraction

from ..config import PaiKaoGame, load_config
from ..games import build_dice_game, build_table_game
from ..rules.dice import all_faces
from ..rules.edge import EdgeRow
from ..rules.paikao import first_seat


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("edge", help="exact odds, payouts and house edge of every bet in a config")
    p.add_argument("--config", required=True, help="table configuration (TOML)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def pct(x: Fraction) -> float:
    return round(float(x) * 100, 4)


def row_json(row: EdgeRow) -> dict:
    out = {"bet": row.bet}
    if row.number is not None:
        out["number"] = row.number
    out |= {
        "pays": row.pays,
        "p_win": str(row.p_win), "p_lose": str(row.p_lose), "p_push": str(row.p_push),
        "edge": str(row.edge), "edge_pct": pct(row.edge),
        "throws": str(row.throws),
        "edge_per_throw": str(row.edge_per_throw), "edge_per_throw_pct": pct(row.edge_per_throw),
    }
    if row.condition:
        out["condition"] = row.condition
    if row.paid is not None:
        out |= {"least_stake": row.paid.stake, "paid_edge": str(row.paid.edge), "paid_edge_pct": pct(row.paid.edge)}
    return out


def paid_text(row: dict) -> str:
    """The edge paid at the least stake, for the text tables ("-": no stake the table takes is under this row)."""
    if "least_stake" not in row:
        return f"{'-':>9} {'-':>8}"
    return f"{row['least_stake']:>9} {row['paid_edge_pct']:>8.4f}"


def seat_table() -> list[dict]:
    """P'ai Kao: how often each seat receives the first stack (1296 outcomes of four dice)."""
    counts = Counter(first_seat(tuple(int(f) for f in faces)) for faces in all_faces(4))
    total = sum(counts.values())
    return [{"seat": s, "probability": str(Fraction(counts[s], total)), "pct": pct(Fraction(counts[s], total))}
            for s in sorted(counts)]


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    from . import edge_cards  # card, wheel and tile games (issue 3)

    if edge_cards.handles(config):
        return edge_cards.run(args, config)
    if isinstance(config.game, PaiKaoGame):
        game = build_table_game(config, args.config)
        doc = {"game": "paikao", "rulebook": config.game.rulebook, "first_seat": seat_table(),
               "paid_at_least_stake": edge_cards.payouts_at_least(game)}
        if args.json:
            print(json.dumps(doc, indent=2))
        else:
            print(f"paikao {config.game.rulebook}: first seat by the four dice (0 = banker)")
            for s in doc["first_seat"]:
                print(f"  seat {s['seat']}: {s['probability']:>10}  {s['pct']:8.4f}%")
            edge_cards.print_payouts(doc["paid_at_least_stake"], game.rounding)
        return 0
    game = build_dice_game(config, args.config)
    rows = game.edge_rows()
    if args.json:
        print(json.dumps({"game": game.game, "rulebook": game.rulebook, "bets": [row_json(r) for r in rows]}, indent=2))
        return 0
    print(f"{game.game} {game.rulebook} — {args.config}")
    print(f"{'bet':<18}{'pays':>7}  {'P(win)':>12} {'P(lose)':>12} {'P(push)':>10}  {'edge':>12} {'%':>8}  "
          f"{'per throw %':>11}  {'least':>9} {'paid %':>8}")
    for r in rows:
        name = r.bet + (f" {r.number}" if r.number is not None else "") + (" *" if r.condition else "")
        print(f"{name:<18}{r.pays:>7}  {str(r.p_win):>12} {str(r.p_lose):>12} {str(r.p_push):>10}  "
              f"{str(r.edge):>12} {pct(r.edge):>8.4f}  {pct(r.edge_per_throw):>11.4f}  {paid_text(row_json(r))}")
    for r in rows:
        if r.condition:
            print(f"  * {r.bet}: {r.condition} pays {r.pays}")
    print(PAID_NOTE.format(unit=game.rounding.unit, mode=game.rounding.mode.value))
    return 0


PAID_NOTE = ("  least: the least stake the table takes on the bet (minor units); paid %: the edge actually paid "
             "there, wins rounded {mode} to {unit} minor unit(s)")
