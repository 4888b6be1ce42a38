"""`tablehw settle` for card, wheel and tile games: bets against coups (cards and decisions) or spins.

Coups are dealt through the game's dealing validator exactly as a shoe would report them; a
misdeal gets the remedy the regulation gives (a misplaced card is put where it was due, an
extra card is burned, a card foreign to the shoe voids the coup) and is reported. A void coup
returns every stake; a void spin (X.16 "golpe nulo") settles nothing and the bets stay.
Input formats: docs/rules-cards.md.
"""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path
from typing import Annotated

from msgspec import Meta, Struct

from ..config import PaiKaoGame, TableConfig
from ..errors import InputFileError
from ..games import TABLE_GAMES, build_table_game
from ..rules.bets import Bet, BetOutcome
from ..rules.chemin_de_fer import ChemindeFer, ChemindeFerCoup
from ..rules.errors import RulesError
from ..rules.layout import Layout
from ..rules.misdeal import DecisionNeeded, Misdeal, Remedy
from ..rules.paikao_bank import PaiKaoBank
from ..rules.paikao_game import PaiKao, PaiKaoRound
from ..rules.roulette import Roulette, RouletteBet, spin_view
from ..rules.shoe import Shoe
from .settle_cmd import check_at, place_entries, print_open, read_entries


class CardBetEntry(Struct, forbid_unknown_fields=True):
    """One bet in bets.json; `at` is the index of the coup or spin it is placed before (default 0)."""

    ticket: str
    bet: str
    stake: int
    owner: str
    number: int | None = None
    numbers: list[int] = []
    at: Annotated[int, Meta(ge=0)] = 0


def handles(config: TableConfig) -> bool:
    return isinstance(config.game, TABLE_GAMES) or isinstance(config.game, PaiKaoGame)


def run(args: argparse.Namespace, config: TableConfig) -> int:
    game = build_table_game(config, args.config)
    entries = read_entries(args.bets, CardBetEntry, "bet")
    rounds = _read_rounds(args.throws)
    check_at(entries, len(rounds), args.bets, _noun(game))
    play = _spin if isinstance(game, Roulette) else _tiles if isinstance(game, PaiKao) else _coup
    # One shoe for the whole file (its composition is tracked); burns are not part of the input.
    shoe = game.new_shoe(burns=False) if hasattr(game, "new_shoe") else None
    # P'ai Kao: the bank from deal to deal (Art. 4.1 two deals at most, Art. 4.9 capital not reduced).
    layout = Layout(PaiKaoBank(game) if isinstance(game, PaiKao) else game)
    report = []
    for index, item in enumerate(rounds):
        if isinstance(game, PaiKao) and isinstance(item, dict) and item.get("others_agree") is True:
            layout.game.others_agree = True  # Art. 4.1: the other seven seats agree to a third deal
        placed = place_entries(layout, [e for e in entries if e.at == index], _bet_of)
        step = {_noun(game): index, "placed": placed}
        step |= play(game, layout, item, f"{args.throws}: {_noun(game)} {index}", shoe)
        report.append(step)
    after_last = place_entries(layout, [e for e in entries if e.at == len(rounds)], _bet_of)
    open_after = [{"ticket": b.ticket, "bet": b.bet, "stake": b.stake} for b in layout.bets]
    doc = {"game": game.game, "rulebook": game.rulebook, f"{_noun(game)}s": report,
           "placed_after_last": after_last, "open": open_after}
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        _print(game, report)
        print_open(after_last, open_after, _noun(game))
    return 0


def _noun(game) -> str:
    return "spin" if isinstance(game, Roulette) else "deal" if isinstance(game, PaiKao) else "coup"


def _read_rounds(path: str) -> list:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(raw, list):
        raise InputFileError(f"{path}: expected a JSON list of coups or spins")
    return raw


def _bet_of(entry: CardBetEntry) -> Bet:
    if entry.numbers:
        return RouletteBet(entry.ticket, entry.bet, entry.stake, entry.owner, entry.number, tuple(entry.numbers))
    return Bet(entry.ticket, entry.bet, entry.stake, entry.owner, entry.number)


def outcome_view(o: BetOutcome) -> dict:
    out = {"ticket": o.bet.ticket, "bet": o.bet.bet, "owner": o.bet.owner, "stake": o.bet.stake,
           "result": o.result.value, "paid": o.paid, "returned": o.returned, "kept": o.kept, "breakage": str(o.breakage)}
    if o.bet.number is not None:
        out["number"] = o.bet.number
    if getattr(o.bet, "numbers", ()):
        out["numbers"] = list(o.bet.numbers)
    return out


# --- roulette -------------------------------------------------------------------------------------

def _spin(game: Roulette, layout: Layout, item, where: str, shoe) -> dict:
    if isinstance(item, dict) and item.get("void"):
        return {"void": True, "reason": item.get("reason"), "outcomes": []}  # X.16: the bets stay for the new spin
    number = item.get("number") if isinstance(item, dict) else item
    try:
        outcomes = game.settle(number, layout.bets)
    except RulesError as exc:
        raise InputFileError(f"{where}: {exc}") from None
    layout.bets = []
    return {"spin_result": spin_view(number), "outcomes": [outcome_view(o) for o in outcomes]}


# --- P'ai Kao -------------------------------------------------------------------------------------

def _tiles(game: PaiKao, layout: Layout, item, where: str, shoe) -> dict:
    """A deal: {"dice": [4 faces] or "order": [8 seats], "tiles": [32 tiles in dealing order, "6-6" or
    {"tile": "6-6", "face_up": true}], "hands": {"seat": [one of its two pairs]}, "void": reason,
    "others_agree": true (Art. 4.1: a third deal for the same banker)}."""
    if not isinstance(item, dict) or set(item) - {"dice", "order", "tiles", "hands", "void", "others_agree"}:
        raise InputFileError(f"{where}: a deal is {{\"dice\" or \"order\", \"tiles\", \"hands\", \"void\"?, "
                             f"\"others_agree\"?}}")
    try:
        round_ = PaiKaoRound(item.get("dice"), order=item.get("order")) if item.get("dice") or item.get("order") else None
    except (RulesError, ValueError, TypeError) as exc:
        raise InputFileError(f"{where}: {exc}") from None
    if round_ is None:
        raise InputFileError(f"{where}: give the four dice (\"dice\") or the dealing order (\"order\")")
    misdeals = []
    for n, tile in enumerate(item.get("tiles", [])):
        if round_.is_void:
            break
        face_up = isinstance(tile, dict) and bool(tile.get("face_up"))
        try:
            round_.deal.deal(tile["tile"] if isinstance(tile, dict) else tile, face_up=face_up)
        except Misdeal as m:
            misdeals.append({"event": n, "kind": m.kind.value, "remedy": m.remedy.value, "article": m.article,
                             "message": m.message})
        except (KeyError, TypeError):
            raise InputFileError(f"{where} tile {n}: a tile is \"6-6\" or {{\"tile\": \"6-6\", \"face_up\": true}}") from None
    if item.get("void") and not round_.is_void:
        round_.deal.void_reason = str(item["void"])
    if not round_.is_void:
        if not round_.deal.due().complete:
            raise InputFileError(f"{where}: the tiles end before every seat has four; next: {round_.deal.due().view()}")
        for seat, pair in (item.get("hands") or {}).items():
            try:
                round_.set(int(seat), pair)
            except (RulesError, ValueError) as exc:
                raise InputFileError(f"{where} hand of seat {seat}: {exc}") from None
    try:
        outcomes = game.settle(round_, layout.bets)
    except RulesError as exc:
        raise InputFileError(f"{where}: {exc}") from None
    layout.game.deal_settled(layout.bets, outcomes)
    layout.bets = []
    step = {"void": round_.is_void, "misdeals": misdeals, "outcomes": [outcome_view(o) for o in outcomes]}
    if round_.is_void:
        step["reason"] = round_.deal.void_reason
    else:
        step["coup_result"] = round_.view()
    return step


# --- card games -------------------------------------------------------------------------------------

def _events(item, where: str) -> tuple[list, str | None, bool]:
    """(events, void reason, banco) of one coup."""
    if isinstance(item, list):
        return item, None, False
    if isinstance(item, dict) and isinstance(item.get("events", []), list):
        unknown = set(item) - {"events", "void", "banco"}
        if unknown:
            raise InputFileError(f"{where}: unknown key(s) {sorted(unknown)}")
        return item.get("events", []), item.get("void"), item.get("banco") is True
    raise InputFileError(f"{where}: a coup is a list of events or {{\"events\": [...], \"void\": reason, "
                         f"\"banco\": true}}")


def _new_coup(game, layout: Layout, shoe: Shoe | None, banco: bool, where: str):
    if banco:
        if not isinstance(game, ChemindeFer):
            raise InputFileError(f"{where}: a banco is a chemin de fer coup (I.45, I.70)")
        try:
            return game.new_coup(shoe, banco=layout.bets)
        except RulesError as exc:
            raise InputFileError(f"{where}: {exc}") from None
    return game.new_coup(shoe, layout.bets) if game.coup_takes_bets else game.new_coup(shoe)


def _coup(game, layout: Layout, item, where: str, shoe: Shoe | None) -> dict:
    events, void_reason, banco = _events(item, where)
    coup = _new_coup(game, layout, shoe, banco, where)
    misdeals = []
    for n, event in enumerate(events):
        if coup.is_void:
            misdeals.append({"event": n, "ignored": event, "why": "the coup is void"})
            continue
        try:
            _apply(coup, event, f"{where} event {n}")
        except Misdeal as m:
            misdeals.append({"event": n, "kind": m.kind.value, "remedy": m.remedy.value, "article": m.article,
                             "message": m.message})
            _remedy(coup, event, m, f"{where} event {n}")
        except RulesError as exc:
            raise InputFileError(f"{where} event {n}: {exc}") from None
    if void_reason and not coup.is_void:
        coup.void(str(void_reason), "dealer console")
    if not coup.is_void and not coup.is_complete:
        raise InputFileError(f"{where}: the events end before the coup is complete; next due: {coup.due().view()}")
    outcomes = game.settle(coup, layout.bets)
    layout.bets = []
    step = {"void": coup.is_void, "misdeals": misdeals, "outcomes": [outcome_view(o) for o in outcomes]}
    if coup.is_void:
        step["reason"] = f"{coup.void_reason} ({coup.void_article})"
    else:
        step["coup_result"] = coup.view() if isinstance(coup, ChemindeFerCoup) else coup.result().view()
        if hasattr(game, "settle_at_once"):
            step["paid_at_once"] = [o.bet.ticket for o in game.settle_at_once(coup)]
    return step


def _apply(coup, event, where: str) -> None:
    if event == "CUT":
        coup.cut_card()
    elif isinstance(event, str):
        coup.deal(event)
    elif isinstance(event, dict) and "card" in event:
        extra = set(event) - {"card", "to", "face_up"}
        if extra:
            raise InputFileError(f"{where}: unknown key(s) {sorted(extra)} in a card event")
        coup.deal(event["card"], event.get("to"), face_up=bool(event.get("face_up", False)))
    elif isinstance(event, dict) and "decision" in event and hasattr(coup, "decide"):
        try:
            coup.decide(**event)
        except TypeError:
            raise InputFileError(f"{where}: a decision takes {_decision_keys(coup)}, got {sorted(event)}") from None
    elif isinstance(event, dict) and "fault" in event and isinstance(coup, ChemindeFerCoup):
        extra = set(event) - {"fault", "cards", "reconstitute", "holder"}
        if extra or not isinstance(event.get("cards", []), list):
            raise InputFileError(f"{where}: a fault is {{\"fault\", \"cards\"?: [...], \"reconstitute\"?, "
                                 f"\"holder\"?}}, got {event!r}")
        coup.fault(event["fault"], cards=tuple(event.get("cards", [])), reconstitute=event.get("reconstitute") is True,
                   holder=event.get("holder"))
    else:
        raise InputFileError(f"{where}: an event is a card (\"9S\", {{\"card\": ..., \"to\": ...}}), \"CUT\", "
                             f"a decision {{\"decision\": ...}} or (chemin de fer) a fault {{\"fault\": ...}}, "
                             f"got {event!r}")


def _decision_keys(coup) -> list[str]:
    return [p for p in inspect.signature(coup.decide).parameters]


def _remedy(coup, event, m: Misdeal, where: str) -> None:
    """Apply what the regulation says after a misdeal, as the dealer would."""
    if isinstance(m, DecisionNeeded) and m.remedy is not Remedy.HOLD_FOR_NEXT:
        raise InputFileError(f"{where}: {m.message}: the decision is missing from the coup's events")
    card = event["card"] if isinstance(event, dict) else event
    if m.remedy is Remedy.CORRECT_AT_ONCE and m.due is not None and m.due.to is not None:
        coup.deal(card, m.due.to, face_up=bool(isinstance(event, dict) and event.get("face_up")))
    elif m.remedy is Remedy.HOLD_FOR_NEXT:
        coup.hold(card)  # V.18: unseen, for the next box that asks (a turned card comes as "face_up")
    elif m.remedy is Remedy.BURN_CARD:
        coup.discard(card)


def _print(game, report: list[dict]) -> None:
    noun = _noun(game)
    for step in report:
        for p in step["placed"]:
            if not p["accepted"]:
                print(f"  refused {p['ticket']}: {p['reason']}: {p['message']}")
        head = f"{noun} {step[noun]}: "
        if step.get("void"):
            print(head + f"void ({step.get('reason') or 'no reason given'}) — every stake returned"
                  if noun != "spin" else head + f"void ({step.get('reason') or 'golpe nulo'}) — bets stay")
        elif noun == "spin":
            print(head + f"{step['spin_result']['number']} {step['spin_result']['colour']}")
        else:
            print(head + game.describe_result(step["coup_result"]))
        for m in step.get("misdeals", []):
            if "kind" in m:
                print(f"  misdeal at event {m['event']}: {m['kind']} — {m['remedy']} ({m['article']}): {m['message']}")
        for o in step["outcomes"]:
            extra = f" breakage {o['breakage']}" if o["breakage"] != "0" else ""
            print(f"  {o['ticket']:<10} {o['bet']:<12} {o['result']:<8} stake {o['stake']:>8} paid {o['paid']:>8} "
                  f"returned {o['returned']:>8} kept {o['kept']:>8}{extra}")
