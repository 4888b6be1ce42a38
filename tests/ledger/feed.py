"""Contract-shaped table messages (docs/mqtt.md with the epoch contract) for the ledger's tests and benchmark.

    feed = TableFeed("craps-1", seed=3)
    for topic, payload in feed.round():        # state, events, result(s), settlement, state ... of one round
        ...

Like a controller: `seq` +1 across every topic (board messages and bet responses too, which the ledger
does not follow, so the followed topics see holes in `seq` that are not gaps), `prev_seq` per topic,
`state.journal` a growing hash chain, money conserved per bet. The settlements it made are kept in
`feed.settlements` so a test can compare the books with them cent for cent.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from datetime import datetime, timedelta, timezone
from fractions import Fraction

START = datetime(2026, 3, 2, 5, 0, tzinfo=timezone.utc)
UNFOLLOWED = ("board", "bets/response")


def utc_text(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class TableFeed:
    def __init__(self, table: str, *, prefix: str = "tablehw", seed: int = 0, epoch: str | None = None,
                 game: str = "craps", currency: str = "MOP", first_round: int = 1, start: datetime = START,
                 seconds_per_message: float = 2.0, bets_per_round: int = 6, void_rate: float = 0.1) -> None:
        self.table, self.prefix = table, prefix
        self.random = random.Random(seed)
        self.epoch = epoch or secrets.token_hex(16)
        self.game, self.currency = game, currency
        self.round_no = first_round - 1
        self.clock = start
        self.step = timedelta(seconds=seconds_per_message)
        self.bets_per_round, self.void_rate = bets_per_round, void_rate
        self.seq = 0
        self.last_on_topic: dict[str, int] = {}
        self.records, self.head = 0, "0" * 64
        self.settlements: dict[int, dict] = {}  # round -> settlement payload (as published)
        self.tickets = 0

    # --- one message -------------------------------------------------------------------------------
    def topic(self, leaf: str) -> str:
        return f"{self.prefix}/tables/{self.table}/{leaf}"

    def message(self, leaf: str, kind: str, body: dict) -> tuple[str, bytes]:
        self.seq += 1
        self.clock += self.step
        prev = self.last_on_topic.get(leaf, 0)
        self.last_on_topic[leaf] = self.seq
        payload = {"schema": 1, "type": kind, "table": self.table, "epoch": self.epoch, "seq": self.seq,
                   "prev_seq": prev, "utc": utc_text(self.clock), **body}
        return self.topic(leaf), json.dumps(payload, separators=(",", ":")).encode()

    def grow_chain(self, records: int) -> None:
        for _ in range(records):
            self.records += 1
            self.head = hashlib.sha256(f"{self.head}{self.records}".encode()).hexdigest()

    def state(self, phase: str) -> tuple[str, bytes]:
        self.grow_chain(1)
        return self.message("state", "state", {
            "game": self.game, "rulebook": "test", "currency": self.currency, "phase": phase, "round": self.round_no,
            "round_id": self.round_id(), "attempt": 1, "betting_open": phase == "betting", "last_coup": False,
            "game_state": {}, "open_bets": 0, "devices": {}, "limits": {"minimum": 500, "maximum": 500000},
            "journal": {"records": self.records, "head": self.head}})

    def event(self, kind: str, who: str | None = None, why: str | None = None, detail: dict | None = None):
        self.grow_chain(1)
        return self.message("events", "event", {"round": self.round_no, "round_id": self.round_id(), "kind": kind,
                                                "who": who, "why": why, "detail": detail or {}})

    def result(self, attempt: int, void_reason: str | None, manual: dict | None = None):
        self.grow_chain(2)
        faces = None if void_reason else [self.random.randint(1, 6), self.random.randint(1, 6)]
        return self.message("result", "result", {
            "game": self.game, "round": self.round_no, "round_id": self.round_id(), "attempt": attempt,
            "void": void_reason is not None, "reason": void_reason, "faces": faces,
            "total": sum(faces) if faces else None, "number": None, "cards": None, "outcome": {},
            "evidence": {"ref": f"evidence/{self.round_id()}-{attempt}.png", "sha256": "ab" * 32},
            "manual": manual})

    def unfollowed(self) -> tuple[str, bytes]:
        leaf = self.random.choice(UNFOLLOWED)
        return self.message(leaf, "board" if leaf == "board" else "bet_response", {})

    def round_id(self) -> str:
        return f"{self.table}-{self.round_no:08d}"

    # --- one round ---------------------------------------------------------------------------------
    def round(self) -> list[tuple[str, bytes]]:
        """Every message of one round, in publishing order."""
        self.round_no += 1
        out = [self.state("betting"), self.event("bets_open"), self.unfollowed(), self.state("no_more_bets")]
        attempt = 1
        while self.random.random() < self.void_rate:
            reason = self.random.choice(["cocked", "off_table", "overlapping"])
            out += [self.result(attempt, reason), self.event("void", detail={"reason": reason, "attempt": attempt})]
            attempt += 1
        voided = self.random.random() < self.void_rate / 3
        manual = {"who": "sup-2", "why": "camera fogged"} if self.random.random() < 0.05 else None
        if voided:
            out.append(self.result(attempt, "dealer_void"))
        else:
            out.append(self.result(attempt, None, manual))
        if manual:
            out.append(self.event("supervisor_override", "sup-2", "camera fogged", {"result": {"faces": [3, 4]}}))
        out.append(self.settlement(voided))
        if voided:
            out.append(self.event("round_voided", "dealer-7", "die hit a chip rack", {"reason": "dealer_void"}))
        out += [self.unfollowed(), self.state("settling")]
        return out

    def settlement(self, void: bool) -> tuple[str, bytes]:
        lines = []
        for _ in range(self.random.randint(0, self.bets_per_round)):
            self.tickets += 1
            stake = self.random.choice([500, 1000, 2500, 5000, 12500])
            bet = self.random.choice(["pass", "field", "banker"])
            outcome = "returned" if void else self.random.choice(["win", "lose", "lose", "push"])
            paid = returned = kept = 0
            breakage = Fraction(0)
            if outcome == "win":
                exact = Fraction(stake * 19, 20) if bet == "banker" else Fraction(stake)
                paid = int(exact // 100) * 100
                breakage = exact - paid
                returned = stake
            elif outcome == "lose":
                kept = stake
            else:
                returned = stake
            lines.append({"ticket": f"t-{self.tickets}", "owner": f"term-{self.random.randint(1, 4)}", "bet": bet,
                          "number": None, "stake": stake, "result": outcome, "paid": paid, "returned": returned,
                          "kept": kept, "breakage": f"{breakage.numerator}/{breakage.denominator}", "point": None})
        total_breakage = sum((Fraction(*map(int, line["breakage"].split("/"))) for line in lines), Fraction(0))
        totals = {k: sum(line[c] for line in lines) for k, c in
                  (("staked", "stake"), ("paid", "paid"), ("returned", "returned"), ("kept", "kept"))}
        totals["breakage"] = f"{total_breakage.numerator}/{total_breakage.denominator}"
        self.grow_chain(2)
        topic, payload = self.message("settlement", "settlement", {
            "round": self.round_no, "round_id": self.round_id(), "void": void, "currency": self.currency,
            "bets": lines, "totals": totals})
        self.settlements[self.round_no] = json.loads(payload)
        return topic, payload

    def rounds(self, count: int) -> list[tuple[str, bytes]]:
        out = []
        for _ in range(count):
            out += self.round()
        return out
