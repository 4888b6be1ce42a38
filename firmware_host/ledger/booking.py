"""Booking: one batch of checked messages into the books, in one transaction, each message exactly once.

    booker = Booker("ledger-a")
    outcome = database.run(lambda session: booker.book(session, items, utc))
    booker.remember(outcome)                       # only after the commit

For the whole batch (a few statements, whatever the number of tables in it):
- each epoch is registered (numbered 1, 2, ... per table); a table's second epoch is an `epoch_change`;
- messages are inserted keyed by `(table, epoch, seq)`; one already booked with the same bytes is a
  duplicate (dropped), with other bytes a `seq_replayed` anomaly (the first booking stands, the other
  bytes are kept as evidence);
- new messages go, by type, into `results`, `events`, `states`, `rounds` + `bets` (a round settled a second
  time is `round_settled_twice`; totals that are not the sum of the bets `settlement_inconsistent`; a dice camera
  started on another calibration than the start before `calibration_changed`, calibrations.py);
- the new messages' `prev_seq` links and journal chains are checked (links.py): gaps opened and filled,
  contradictions reported.

Two instances may book the same messages at once: every insert is `ON CONFLICT DO NOTHING ... RETURNING`
on the key the contract makes unique, so each instance learns what it inserted itself and judges the
rest against what is stored (PostgreSQL makes the second insert wait for the first to commit). A
conflict the database reports (a deadlock, a racing new epoch) retries the whole batch.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

from .anomalies import Anomaly, record
from .calibrations import calibration_changes
from .database import Session
from .errors import BooksUnavailable
from .inbound import Refused, SlotMeters, TableMessage, sha256_hex
from .links import check_chains, link
log = logging.getLogger(__name__)


@dataclass
class BatchOutcome:
    booked: int = 0
    duplicates: int = 0
    gaps_opened: int = 0
    gaps_filled: int = 0
    anomalies: list[Anomaly] = field(default_factory=list)
    epochs_learned: set[tuple[str, str]] = field(default_factory=set)


def fraction(text: str) -> Fraction:
    num, _, den = text.partition("/")
    return Fraction(int(num), int(den or 1))


class Booker:
    """Books batches for one ledger instance; remembers which epochs are already registered."""

    def __init__(self, instance: str) -> None:
        self.instance = instance
        self.known_epochs: set[tuple[str, str]] = set()

    def remember(self, outcome: BatchOutcome) -> None:
        """Call after the batch's transaction committed."""
        self.known_epochs |= outcome.epochs_learned

    def book(self, session: Session, items: list[TableMessage | SlotMeters | Refused], utc: str) -> BatchOutcome:
        outcome = BatchOutcome()
        found: list[Anomaly] = []
        messages: list[TableMessage] = []
        slots: list[SlotMeters] = []
        for item in items:
            if isinstance(item, Refused):
                found.append(Anomaly(item.kind, item.table, item.epoch, item.seq,
                                     {"topic": item.topic, "problem": item.detail}, item.payload,
                                     subject=sha256_hex(item.payload)))
            elif isinstance(item, SlotMeters):
                slots.append(item)
            else:
                messages.append(item)
        messages = self._unique(messages, outcome, found)
        if messages:
            self._register_epochs(session, messages, utc, outcome, found)
            new = self._insert(session, messages, utc, outcome, found)
            if new:
                self._book_bodies(session, new, utc, found)
                outcome.gaps_opened, outcome.gaps_filled = link(session, new, utc, found)
                check_chains(session, [m for m in new if m.type == "state"], found)
        if slots:
            self._book_slots(session, slots, utc, outcome, found)
        record(session, found, self.instance, utc)
        outcome.anomalies = found
        return outcome

    # --- messages --------------------------------------------------------------------------------
    def _unique(self, messages: list[TableMessage], outcome: BatchOutcome, found: list[Anomaly]) -> list[TableMessage]:
        """The batch in key order, one message per key (the same key twice in one batch is judged here)."""
        out: list[TableMessage] = []
        for message in sorted(messages, key=lambda m: m.key):
            if out and out[-1].key == message.key:
                if out[-1].sha256 == message.sha256:
                    outcome.duplicates += 1
                else:
                    found.append(_replayed(message, out[-1].sha256, out[-1].topic))
                continue
            out.append(message)
        return out

    def _register_epochs(self, session: Session, messages: list[TableMessage], utc: str, outcome: BatchOutcome,
                         found: list[Anomaly]) -> None:
        first: dict[tuple[str, str], TableMessage] = {}
        for m in messages:
            if (m.table, m.epoch) not in self.known_epochs:
                first.setdefault((m.table, m.epoch), m)
        if not first:
            return
        registered = set(session.batched("SELECT table_id, epoch FROM epochs WHERE (table_id, epoch) IN "
                                         "(VALUES {values})", list(first)))
        for (table, epoch), m in first.items():
            if (table, epoch) not in registered:
                previous = session.one("SELECT epoch, ordinal FROM epochs WHERE table_id = ? ORDER BY ordinal DESC "
                                       "LIMIT 1", (table,))
                ordinal = previous[1] + 1 if previous else 1
                session.execute("INSERT INTO epochs (table_id, epoch, ordinal, first_seq, first_utc, booked_utc) "
                                "VALUES (?, ?, ?, ?, ?, ?)", (table, epoch, ordinal, m.seq, m.utc, utc))
                if previous:
                    last_seq, last_round = session.one("SELECT MAX(seq), MAX(round) FROM messages WHERE table_id = ? "
                                                       "AND epoch = ?", (table, previous[0]))
                    found.append(Anomaly("epoch_change", table, epoch, m.seq, {
                        "previous_epoch": previous[0], "previous_last_seq": last_seq,
                        "previous_last_round": last_round, "first_seq": m.seq, "first_utc": m.utc,
                        "ordinal": ordinal}))
            outcome.epochs_learned.add((table, epoch))

    def _insert(self, session: Session, messages: list[TableMessage], utc: str, outcome: BatchOutcome,
                found: list[Anomaly]) -> list[TableMessage]:
        """Insert the messages not booked yet; judge the others against the stored bytes. The new ones."""
        inserted = set(session.batched(
            "INSERT INTO messages (table_id, epoch, seq, prev_seq, topic, type, round, utc, sha256, payload, via, "
            "booked_by, booked_utc) VALUES {values} ON CONFLICT DO NOTHING RETURNING table_id, epoch, seq",
            [(m.table, m.epoch, m.seq, m.prev_seq, m.topic, m.type, m.round, m.utc, m.sha256, m.payload.decode(),
              m.via, self.instance, utc) for m in messages]))
        others = [m for m in messages if m.key not in inserted]
        if others:
            stored = {(t, e, s): (sha, topic) for t, e, s, sha, topic in session.batched(
                "SELECT table_id, epoch, seq, sha256, topic FROM messages WHERE (table_id, epoch, seq) IN "
                "(VALUES {values})", [m.key for m in others])}
            for m in others:
                sha, topic = stored.get(m.key, ("?", "?"))
                if sha == m.sha256:
                    outcome.duplicates += 1
                else:
                    found.append(_replayed(m, sha, topic))
        new = [m for m in messages if m.key in inserted]
        outcome.booked += len(new)
        return new

    def _book_bodies(self, session: Session, new: list[TableMessage], utc: str, found: list[Anomaly]) -> None:
        by_type: dict[str, list[TableMessage]] = defaultdict(list)
        for message in new:
            by_type[message.type].append(message)
        session.batched(
            "INSERT INTO results (table_id, epoch, seq, round, attempt, game, void, reason, faces, total, number, "
            "cards, outcome, evidence_ref, evidence_sha256, manual_who, manual_why, utc) VALUES {values} "
            "ON CONFLICT DO NOTHING", [_result_row(m) for m in by_type["result"]])
        session.batched(
            "INSERT INTO events (table_id, epoch, seq, round, kind, who, why, detail, utc) VALUES {values} "
            "ON CONFLICT DO NOTHING",
            [(m.table, m.epoch, m.seq, m.body.round, m.body.kind, m.body.who, m.body.why,
              json.dumps(m.body.detail, sort_keys=True), m.utc) for m in by_type["event"]])
        calibration_changes(session, by_type["event"], found)  # a dice camera started on another calibration
        session.batched(
            "INSERT INTO states (table_id, epoch, seq, round, phase, game, currency, records, head, utc, booked_utc) "
            "VALUES {values} ON CONFLICT DO NOTHING",
            [(m.table, m.epoch, m.seq, m.body.round, m.body.phase, m.body.game or None, m.body.currency or None,
              m.chain.records, m.chain.head, m.utc, utc) for m in by_type["state"]])
        if by_type["settlement"]:
            self._book_settlements(session, by_type["settlement"], found)

    def _book_settlements(self, session: Session, settlements: list[TableMessage], found: list[Anomaly]) -> None:
        inserted = set(session.batched(
            "INSERT INTO rounds (table_id, round, round_id, epoch, seq, utc, void, currency, bets, staked, paid, "
            "returned, kept, breakage) VALUES {values} ON CONFLICT DO NOTHING RETURNING table_id, round, seq",
            [(m.table, m.body.round, m.body.round_id, m.epoch, m.seq, m.utc, m.body.void, m.body.currency,
              len(m.body.bets), m.body.totals.staked, m.body.totals.paid, m.body.totals.returned, m.body.totals.kept,
              m.body.totals.breakage) for m in settlements]))
        refused = [m for m in settlements if (m.table, m.body.round, m.seq) not in inserted]
        if refused:
            first = {(t, r): (e, s) for t, r, e, s in session.batched(
                "SELECT table_id, round, epoch, seq FROM rounds WHERE (table_id, round) IN (VALUES {values})",
                sorted({(m.table, m.body.round) for m in refused}))}
            for m in refused:
                epoch, seq = first.get((m.table, m.body.round), (None, None))
                found.append(Anomaly("round_settled_twice", m.table, m.epoch, m.seq, {
                    "round": m.body.round, "booked_epoch": epoch, "booked_seq": seq}, m.payload))
        lines = []
        for m in settlements:
            if m in refused:
                continue
            problems = settlement_problems(m.body)
            if problems:
                found.append(Anomaly("settlement_inconsistent", m.table, m.epoch, m.seq,
                                     {"round": m.body.round, "problems": problems}))
            for number, line in enumerate(m.body.bets, start=1):
                lines.append((m.table, m.body.round, number, line.ticket, line.owner, line.bet, line.number,
                              json.dumps(line.numbers) if line.numbers else None, line.stake, line.result, line.paid,
                              line.returned, line.kept, line.breakage, line.point))
        session.batched(
            "INSERT INTO bets (table_id, round, line, ticket, owner, bet, number, numbers, stake, result, paid, "
            "returned, kept, breakage, point) VALUES {values} ON CONFLICT DO NOTHING", lines)

    # --- slot meters -----------------------------------------------------------------------------
    def _book_slots(self, session: Session, slots: list[SlotMeters], utc: str, outcome: BatchOutcome,
                    found: list[Anomaly]) -> None:
        inserted = set(session.batched(
            "INSERT INTO slot_meters (site, epoch, seq, machine, game, digits, poll, utc, meters, deltas, disabled, "
            "sha256, payload, booked_utc) VALUES {values} ON CONFLICT DO NOTHING RETURNING site, epoch, seq",
            [(s.site, s.epoch, s.seq, s.machine, s.body.game, s.body.digits, s.body.poll, s.body.utc,
              json.dumps(s.body.meters, sort_keys=True), json.dumps(s.body.deltas, sort_keys=True), s.body.disabled,
              s.sha256, s.payload.decode(), utc) for s in {(s.site, s.epoch, s.seq): s for s in slots}.values()]))
        for s in slots:
            key = (s.site, s.epoch, s.seq)
            if key in inserted:
                inserted.discard(key)
                outcome.booked += 1
                continue
            first = session.value("SELECT sha256 FROM slot_meters WHERE site = ? AND epoch = ? AND seq = ?", key)
            if first == s.sha256:
                outcome.duplicates += 1
            else:
                found.append(Anomaly("seq_replayed", None, s.epoch or None, s.seq, {
                    "site": s.site, "machine": s.machine, "booked_sha256": first, "other_sha256": s.sha256},
                    s.payload, subject=f"slots:{s.site}:{s.sha256}"))


def book_resiliently(database, booker: Booker, items: list, utc: str) -> BatchOutcome:
    """Book a batch; when the books refuse it for anything but being unreachable (a value out of their range,
    a payload they cannot store), book its messages one by one and turn each one refused into a `malformed`
    anomaly, so that one poisoned message never stops the floor's booking. `BooksUnavailable` propagates."""
    try:
        outcome = database.run(lambda s: booker.book(s, items, utc))
    except BooksUnavailable:
        raise
    except Exception:  # noqa: BLE001 - whatever the driver raised, the batch is rolled back and taken apart
        log.exception("books refused a batch of %d: booking its messages one by one", len(items))
        outcome = BatchOutcome()
        for item in items:
            try:
                one = database.run(lambda s: booker.book(s, [item], utc))
            except BooksUnavailable:
                raise
            except Exception as exc:  # noqa: BLE001
                refused = Refused("malformed", f"the books cannot store it: {str(exc).splitlines()[0]}",
                                  getattr(item, "topic", "?"), getattr(item, "payload", b""),
                                  getattr(item, "table", None), getattr(item, "epoch", None),
                                  getattr(item, "seq", None))
                one = database.run(lambda s: booker.book(s, [refused], utc))
            booker.remember(one)
            outcome.booked += one.booked
            outcome.duplicates += one.duplicates
            outcome.gaps_opened += one.gaps_opened
            outcome.gaps_filled += one.gaps_filled
            outcome.anomalies += one.anomalies
    booker.remember(outcome)
    return outcome


def settlement_problems(body) -> list[str]:
    """What does not add up in a settlement: totals against the sum of its bets, negative money."""
    problems = []
    totals = body.totals
    for name in ("staked", "paid", "returned", "kept"):
        column = "stake" if name == "staked" else name
        summed = sum(getattr(line, column) for line in body.bets)
        if summed != getattr(totals, name):
            problems.append(f"totals.{name} {getattr(totals, name)} but the bets sum to {summed}")
        if any(getattr(line, column) < 0 for line in body.bets) or getattr(totals, name) < 0:
            problems.append(f"negative {name}")
    try:
        if sum((fraction(line.breakage) for line in body.bets), Fraction(0)) != fraction(totals.breakage):
            problems.append(f"totals.breakage {totals.breakage} is not the sum of the bets' breakage")
    except (ValueError, ZeroDivisionError):
        problems.append("a breakage that is not a fraction num/den")
    return problems


def _result_row(m: TableMessage) -> tuple:
    b = m.body
    return (m.table, m.epoch, m.seq, b.round, b.attempt, b.game, b.void, b.reason,
            json.dumps(b.faces) if b.faces is not None else None, b.total, b.number,
            json.dumps(b.cards, sort_keys=True) if b.cards is not None else None, json.dumps(b.outcome, sort_keys=True),
            b.evidence.ref if b.evidence else None, b.evidence.sha256 if b.evidence else None,
            b.manual.who if b.manual else None, b.manual.why if b.manual else None, m.utc)


def _replayed(message: TableMessage, booked_sha: str, booked_topic: str) -> Anomaly:
    return Anomaly("seq_replayed", message.table, message.epoch, message.seq, {
        "booked_sha256": booked_sha, "booked_topic": booked_topic, "other_sha256": message.sha256,
        "other_topic": message.topic, "via": message.via}, message.payload, subject=message.sha256)
