"""P'ai Kao rounds (seed 002, Macau 1985): the bowl's four dice pick the first seat, the tiles are entered
at the dealer console seat by seat as they are opened, and every seat is settled against the banker.

After "no more bets" the dealer shakes the bowl and lifts the lid (`ThrowStarted`); the camera reads the
four dice. Dice overlapping or out of the bowl are shaken again (Art. 1.5: a void attempt, bets as they
are). Valid dice give the dealing order (Art. 1.2-1.4), announced as `first_seat`; the table then waits
in `dealing` for the tile entries: a console `tiles` action per seat (its four tiles as the two pairs
the seat set, and those that turned face up in the deal, Art. 2.2-2.3), each checked by the rules core
before it is accepted (every tile once per deal, four a seat: Art. 1.1, 1.4) and refused unchanged
otherwise; `clear_tiles` takes a seat's entry back to be entered again. When all eight seats are in,
the hands are set (Art. 5) and the round is read and settled with the commission (Art. 4.2). Two of
the banker's tiles face up void the deal (Art. 2.3): every stake goes back. A restart inside the deal
voids the round (stakes returned): the tiles on the table cannot be vouched for by a controller that
was down; a journalled complete reading is settled as read.
"""

from __future__ import annotations

import logging
from typing import Any

from ..rules.dice import BadThrow
from ..rules.misdeal import Misdeal
from ..rules.paikao import first_seat
from ..rules.paikao_bank import BankTurn, PaiKaoBank
from ..rules.paikao_game import PaiKaoRound
from ..rules.paikao_hands import BadHand, compare, set_hand
from .books import LayoutBook
from .families import Family
from .inputs import DiceSeen, Phase

log = logging.getLogger(__name__)

TILE_PHASES = (Phase.DEALING, Phase.HELD)


def entry_of(tiles: dict) -> dict:
    """A console tile entry as the family keeps it: seat, the four tiles, the two pairs, the face-up ones."""
    pairs = [list(p) for p in tiles.get("pairs") or []]
    return {"seat": tiles["seat"], "tiles": [t for p in pairs for t in p], "pairs": pairs,
            "face_up": list(tiles.get("face_up") or [])}


def build_deal(faces: list[int], entries: dict[int, dict]) -> PaiKaoRound:
    """The deal the rules core makes of these dice and tile entries (in the order entered); once complete
    and valid, every seat in play is set as entered. Raises `Misdeal` / `BadHand` for an entry it refuses."""
    deal = PaiKaoRound(list(faces))
    for seat, entry in entries.items():
        deal.deal.stack(seat, entry["tiles"], entry["face_up"])
    if not deal.is_void and deal.deal.due().complete:
        for seat, entry in sorted(entries.items()):
            if seat not in deal.deal.seats_out:
                deal.set(seat, entry["pairs"][0])
    return deal


def deal_fields(faces: list[int], entries: dict[int, dict], deal: PaiKaoRound) -> dict[str, Any]:
    """The result's fields: the dice, the dealing order, every seat's tiles and hand, who beat the banker."""
    banker = deal.hands.get(0)
    seats = {}
    for seat in deal.order:
        entry = entries[seat]
        view = {"tiles": [str(t) for t in deal.deal.tiles[seat]], "pairs": entry["pairs"], "face_up": entry["face_up"]}
        if seat in deal.hands:
            view.update(deal.hands[seat].view())
            if seat != 0 and banker is not None:
                view["against_banker"] = compare(deal.hands[seat], banker)  # "player", "banker" or "push"
        seats[str(seat)] = view
    winners = [s for s in deal.order if s and seats[str(s)].get("against_banker") == "player"]
    return {"faces": list(faces), "total": sum(faces),
            "outcome": {"first_seat": deal.order[0], "order": deal.order, "seats": seats,
                        "seats_out": deal.deal.seats_out, "winning_seats": winners}}


class PaiKaoFamily(Family):
    game = "paikao"
    play_phase = Phase.THROWING

    def __init__(self, engine, rules) -> None:
        self.bank = PaiKaoBank(rules)  # who holds the bank from deal to deal (Art. 4.1, 4.9) checks the bets too
        super().__init__(engine, LayoutBook(self.bank))
        self.rules = rules
        self._clear()

    def _clear(self) -> None:
        self.faces: list[int] | None = None
        self.dice_evidence = None
        self.entries: dict[int, dict] = {}

    def state_view(self) -> dict[str, Any]:
        turn = self.bank.turn
        bank = {"holder": turn.holder, "deals": turn.deals, "least_capital": turn.least_capital}
        view: dict[str, Any] = {"bank": bank, "faces": self.faces}
        if self.faces is not None:
            order = PaiKaoRound(self.faces).order
            view.update({"first_seat": order[0], "order": order, "entered": sorted(self.entries),
                         "due": [s for s in order if s not in self.entries]})
        return view

    def state_data(self) -> Any:
        turn = self.bank.turn
        return {"bank": {"holder": turn.holder, "deals": turn.deals, "least_capital": turn.least_capital}}

    def restore_state(self, data: Any) -> None:
        bank = data.get("bank") if isinstance(data, dict) else None
        if isinstance(bank, dict):
            self.bank.turn = BankTurn(bank.get("holder"), int(bank.get("deals", 0)), int(bank.get("least_capital", 0)))

    # --- the bowl --------------------------------------------------------------------------------
    def betting_closed(self) -> None:
        self._clear()

    def handle(self, item: Any) -> None:
        if not self.camera_throw(item, self.dice, "bowl"):
            super().handle(item)

    def dice(self, item: DiceSeen) -> None:
        engine = self.engine
        if item.void_reason is not None:  # overlapping, a die out of the bowl ...: shake again (Art. 1.5)
            engine.reading(None, {}, void_reason=item.void_reason, evidence=item.evidence, detail=item.detail)
            return
        try:
            seat = first_seat(list(item.faces or ()))
        except BadThrow as exc:
            engine.reading(None, {}, void_reason="wrong_count", evidence=item.evidence, detail={"message": str(exc)})
            return
        self.faces, self.dice_evidence, self.entries = list(item.faces), item.evidence, {}
        order = PaiKaoRound(self.faces).order
        engine.event("first_seat", {"faces": self.faces, "total": sum(self.faces), "first_seat": seat, "order": order,
                                    "attempt": engine.attempt})
        engine.expect_reading(Phase.DEALING)

    def attempt_voided(self, reason: str) -> None:
        self._clear()
        super().attempt_voided(reason)

    # --- the tiles, entered at the console --------------------------------------------------------
    def console_problem(self, command) -> tuple[str, str] | None:
        if command.action not in ("tiles", "clear_tiles"):
            return None
        if self.engine.phase not in TILE_PHASES or self.faces is None:
            return "not_allowed_now", f"tiles are entered while the deal is opened (phase {self.engine.phase.value})"
        if not command.tiles:
            return "malformed", f"{command.action} needs `tiles` with the seat"
        seat = command.tiles.get("seat")
        if command.action == "clear_tiles":
            return None if seat in self.entries else ("malformed", f"seat {seat} has no tiles entered to clear")
        if not command.tiles.get("pairs"):
            return "malformed", "a tile entry is the seat's four tiles as its two pairs (Art. 5.1)"
        entry = entry_of(command.tiles)
        try:
            trial = PaiKaoRound(self.faces)
            for s, e in self.entries.items():
                trial.deal.stack(s, e["tiles"], e["face_up"])
            trial.deal.check_stack(seat, entry["tiles"], entry["face_up"])
            set_hand(entry["tiles"], entry["pairs"][0])
        except (Misdeal, BadHand) as exc:
            return "malformed", getattr(exc, "message", str(exc))
        return None

    def console_act(self, command) -> None:
        seat = command.tiles["seat"]
        if command.action == "clear_tiles":
            self.entries.pop(seat, None)
        else:
            self.entries[seat] = entry_of(command.tiles)
        deal = build_deal(self.faces, self.entries)
        if deal.is_void:  # two of the banker's tiles face up (Art. 2.3)
            self.engine.event("misdeal", {"kind": "deal_void", "message": deal.deal.void_reason,
                                          "article": "002 Art. 2.3"})
            self.engine.void_round("misdeal: deal_void")
            return
        if deal.deal.due().complete:
            self.engine.reading(deal, deal_fields(self.faces, self.entries, deal), evidence=self.dice_evidence)
            return
        if self.engine.phase is Phase.HELD:
            self.engine.expect_reading(Phase.DEALING)
        else:
            with self.engine.journal.transaction() as txn:
                self.engine.publish_state(txn)  # the seats entered and still due
        self.engine.checkpoint("card", self.engine.round)

    def reading_overdue(self) -> None:
        if self.engine.phase is Phase.DEALING:
            self.engine.set_phase(Phase.HELD, event="device",
                                  detail={"device": "console", "message": "tiles not entered in time"})
        else:
            super().reading_overdue()

    def confirm_held(self) -> None:
        """The dealer's confirm on a deal held for its tiles: the entries are awaited again."""
        self.engine.event("dealing_resumed", {"reason": "tiles not entered in time"})
        self.engine.expect_reading(Phase.DEALING)

    def dealer_void(self, who: str | None, why: str | None) -> None:
        if self.faces is None:  # the bowl: shake again
            self.engine.void_attempt("dealer_void", who=who, why=why)
        else:  # tiles are out: the deal is void, stakes returned
            self.engine.void_round("dealer_void", who=who, why=why)

    def interrupted(self) -> str:
        return "void_round"  # dice and tiles moved while the controller was down cannot be vouched for

    def round_finished(self) -> None:
        self._clear()
        super().round_finished()

    # --- settlement ------------------------------------------------------------------------------
    def settle(self, deal: PaiKaoRound) -> list:
        bets = self.book.bets()
        outcomes = self.rules.settle(deal, bets)
        self.bank.deal_settled(bets, outcomes)  # the next deal's banker and least capital (Art. 4.1, 4.9)
        return self.book.settle_with(outcomes)

    def outcome_from(self, fields: dict) -> Any:
        seats = fields.get("outcome", {}).get("seats")
        if not fields.get("faces") or not seats:
            return None
        entries = {int(s): entry_of({"seat": int(s), "pairs": v["pairs"], "face_up": v["face_up"]})
                   for s, v in seats.items()}
        return build_deal(fields["faces"], entries)

    def override_allowed(self) -> bool:
        return False  # the result is the tiles entered seat by seat: a wrong one is cleared and entered again
