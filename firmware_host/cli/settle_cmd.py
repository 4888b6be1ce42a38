"""`tablehw settle`: settle a sequence of throws against bets placed before or between them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Annotated

from msgspec import Meta, Struct

from ..config import load_config
from ..schema_check import convert_strict
from ..errors import InputFileError
from ..games import build_dice_game
from ..rules.bets import Bet
from ..rules.dice_game import DiceTable
from ..rules.errors import BetRefused


class BetEntry(Struct, forbid_unknown_fields=True):
    """One bet in bets.json; `at` is the index of the throw it is placed before (default 0)."""

    ticket: str
    bet: str
    stake: int
    owner: str
    number: int | None = None
    at: Annotated[int, Meta(ge=0)] = 0


class ThrowEntry(Struct, forbid_unknown_fields=True):
    """One throw in throws.json: the faces, or a void throw with its reason; `dealer_touched`: the
    dealer touched the dice before announcing (banca francesa IV.7 d: winners paid, nobody loses)."""

    faces: list[int] = []
    void: bool = False
    reason: str | None = None
    dealer_touched: bool = False


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("settle", help="settle throws against bets and print every outcome")
    p.add_argument("--config", required=True, help="table configuration (TOML)")
    p.add_argument("--bets", required=True, help='JSON list of {"ticket","bet","stake","owner","number"?,"at"?}')
    p.add_argument("--throws", "--coups", "--spins", dest="throws", required=True,
                   help="JSON list of faces ([3,4]) or {\"faces\":[...]} / {\"void\":true}; card games: coups "
                        "(cards and decisions), roulette: spins (see docs/rules-cards.md)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def read_entries(path: str, kind: type, label: str) -> list:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(raw, list):
        raise InputFileError(f"{path}: expected a JSON list of {label}s")
    entries = []
    for i, item in enumerate(raw):
        if kind is ThrowEntry and isinstance(item, list):
            item = {"faces": item}
        entries.append(convert_strict(item, kind, f"{path}: {label} {i}", InputFileError))
    return entries


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    from . import settle_cards  # card, wheel and tile games (issue 3)

    if settle_cards.handles(config):
        return settle_cards.run(args, config)
    game = build_dice_game(config, args.config)
    bets = read_entries(args.bets, BetEntry, "bet")
    throws = read_entries(args.throws, ThrowEntry, "throw")
    for i, t in enumerate(throws):
        if not t.void and len(t.faces) != game.n_dice:
            raise InputFileError(f"{args.throws}: throw {i}: {game.game} throws {game.n_dice} dice, got {t.faces}")
        if not t.void and any(not 1 <= f <= 6 for f in t.faces):
            raise InputFileError(f"{args.throws}: throw {i}: faces are 1 to 6, got {t.faces}")
        if t.dealer_touched and game.touched_dice_losers is None:
            raise InputFileError(f"{args.throws}: throw {i} (dealer_touched): {game.game} has no such rule "
                                 f"(banca francesa IV.7 d); void or settle the throw")
    check_at(bets, len(throws), args.bets, "throw")
    table = DiceTable(game)
    report = []
    for index, throw in enumerate(throws):
        placed = place_entries(table, [b for b in bets if b.at == index], bet_of)
        step = {"throw": index, "placed": placed, "state_before": game.state_view(table.state)}
        if throw.void:
            step |= {"void": True, "reason": throw.reason, "outcomes": []}
            if throw.reason in game.void_reasons:
                step["article"] = game.void_reasons[throw.reason]
        else:
            result = table.throw(tuple(throw.faces), dealer_touched=throw.dealer_touched)
            if throw.dealer_touched:
                step["dealer_touched"] = True
            step |= {"faces": list(result.faces), "total": sum(result.faces), "outcomes": [
                {"ticket": o.bet.ticket, "bet": o.bet.bet, "number": o.bet.number, "owner": o.bet.owner,
                 "stake": o.bet.stake, "result": o.result.value, "paid": o.paid, "returned": o.returned,
                 "kept": o.kept, "breakage": str(o.breakage), "point": o.point}
                for o in result.outcomes()]}
        step["state_after"] = game.state_view(table.state)
        report.append(step)
    after_last = place_entries(table, [b for b in bets if b.at == len(throws)], bet_of)
    open_after = [{"ticket": b.ticket, "bet": b.bet, "stake": b.stake} for b in table.open_bets.bets]
    if args.json:
        print(json.dumps({"game": game.game, "rulebook": game.rulebook, "throws": report,
                          "placed_after_last": after_last, "open": open_after}, indent=2))
        return 0
    for step in report:
        for p in step["placed"]:
            if not p["accepted"]:
                print(f"  refused {p['ticket']}: {p['reason']}: {p['message']}")
        if step.get("void"):
            article = f", {step['article']}" if "article" in step else ""
            print(f"throw {step['throw']}: void ({step['reason'] or 'no reason given'}{article}) — nothing settled")
            continue
        print(f"throw {step['throw']}: {'-'.join(map(str, step['faces']))} = {step['total']}  "
              f"state {step['state_before']} -> {step['state_after']}")
        for o in step["outcomes"]:
            if o["result"] == "stay":
                continue
            extra = f" breakage {o['breakage']}" if o["breakage"] != "0" else ""
            print(f"  {o['ticket']:<10} {o['bet']:<12} {o['result']:<5} stake {o['stake']:>8} paid {o['paid']:>8} "
                  f"returned {o['returned']:>8} kept {o['kept']:>8}{extra}")
    print_open(after_last, open_after, "throw")
    return 0


def check_at(entries: list, rounds: int, path: str, noun: str) -> None:
    """`at` runs from 0 (before the first throw / coup / spin) to `rounds` (after the last: the bet
    is placed and stays open); beyond that the file is wrong."""
    for i, entry in enumerate(entries):
        if entry.at > rounds:
            raise InputFileError(f"{path}: bet {i} (at): index {entry.at} is past the last {noun} "
                                 f"(0 to {rounds}; {rounds}: placed after the last {noun})")


def place_entries(book, entries: list, make_bet) -> list[dict]:
    """Place each entry's bet on `book` (a DiceTable or a Layout); every bet is reported, accepted
    or refused with its reason: none is dropped."""
    placed = []
    for entry in entries:
        bet = make_bet(entry)
        try:
            book.place(bet)
            placed.append({"ticket": bet.ticket, "accepted": True})
        except BetRefused as exc:
            placed.append({"ticket": bet.ticket, "accepted": False, "reason": exc.reason.value, "message": exc.message})
    return placed


def print_open(after_last: list[dict], open_after: list[dict], noun: str) -> None:
    for p in after_last:
        print(f"  placed after the last {noun}: {p['ticket']} " +
              ("accepted" if p["accepted"] else f"refused: {p['reason']}: {p['message']}"))
    print(f"open after the last {noun}: {len(open_after)} bet(s)" +
          "".join(f"\n  {b['ticket']} {b['bet']} {b['stake']}" for b in open_after))


def bet_of(entry: BetEntry) -> Bet:
    return Bet(entry.ticket, entry.bet, entry.stake, entry.owner, entry.number)
