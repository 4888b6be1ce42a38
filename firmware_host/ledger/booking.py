"""Booking: one batch of checked messages into the books, in one transaction, each message exactly once.

    booker = Booker("ledger-a")
    outcome = database.run(lambda session: booker.book(session, items, utc))
    booker.remember(outcome)                       # only after the commit

Per table and epoch, in seq order:
- the epoch is registered (numbered 1, 2, ... per table); a table's second epoch is an `epoch_change`;
- a `(table, epoch, seq)` already booked with the same bytes is a duplicate (dropped); with other bytes a
  `seq_replayed` anomaly (the first booking stands, the other bytes are kept as evidence);
- new messages go into `messages` and, by type, `results`, `events`, `states`, `rounds` + `bets` (a round
  settled a second time is `round_settled_twice`; totals that are not the sum of the bets
  `settlement_inconsistent`);
- `prev_seq` links: a message whose predecessor on its topic is not booked opens a gap; booking the
  missing message fills it; links that contradict each other are a `chain_conflict`;
- `state.journal` must not go back within an epoch (`chain_behind`, `chain_forked`).

Two instances may book the same batch at once: every insert is `ON CONFLICT DO NOTHING` on the key the
contract makes unique, and PostgreSQL's read-committed re-check after the insert catches a racing
replay. A conflict the database reports (deadlock, racing new epoch) retries the whole batch.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

from .anomalies import Anomaly, record
from .database import Session
from .inbound import Refused, SlotMeters, TableMessage, sha256_hex


@dataclass
class BatchOutcome:
    booked: int = 0
    duplicates: int = 0
    gaps_opened: int = 0
    gaps_filled: int = 0
    anomalies: list[Anomaly] = field(default_factory=list)
    epochs_learned: set[tuple[str, str]] = field(default_factory=set)


def marks(count: int) -> str:
    """`(?, ?, ...)` for an IN list."""
    return "(" + ", ".join("?" * count) + ")"


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
        groups: dict[tuple[str, str], list[TableMessage]] = defaultdict(list)
        for message in self._unique(messages, outcome, found):
            groups[(message.table, message.epoch)].append(message)
        for (table, epoch), group in sorted(groups.items()):
            self._book_group(session, table, epoch, group, utc, outcome, found)
        self._book_slots(session, slots, utc, outcome, found)
        record(session, found, self.instance, utc)
        outcome.anomalies = found
        return outcome

    # --- table messages --------------------------------------------------------------------------
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

    def _book_group(self, session: Session, table: str, epoch: str, group: list[TableMessage], utc: str,
                    outcome: BatchOutcome, found: list[Anomaly]) -> None:
        if (table, epoch) not in self.known_epochs:
            self._register_epoch(session, table, epoch, group[0], utc, outcome, found)
        seqs = [m.seq for m in group]
        booked = {seq: (sha, topic) for seq, sha, topic in session.all(
            f"SELECT seq, sha256, topic FROM messages WHERE table_id = ? AND epoch = ? AND seq IN {marks(len(seqs))}",
            (table, epoch, *seqs))}
        new: list[TableMessage] = []
        for message in group:
            if message.seq not in booked:
                new.append(message)
            elif booked[message.seq][0] == message.sha256:
                outcome.duplicates += 1
            else:
                found.append(_replayed(message, *booked[message.seq]))
        if not new:
            return
        session.executemany(
            "INSERT INTO messages (table_id, epoch, seq, prev_seq, topic, type, round, utc, sha256, payload, via, "
            "booked_by, booked_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(table, epoch, m.seq, m.prev_seq, m.topic, m.type, m.round, m.utc, m.sha256, m.payload.decode(), m.via,
              self.instance, utc) for m in new])
        if session.dialect == "postgresql":  # another instance may have booked a key between the read and the insert
            stored = dict(session.all(f"SELECT seq, sha256 FROM messages WHERE table_id = ? AND epoch = ? AND seq IN "
                                      f"{marks(len(new))}", (table, epoch, *[m.seq for m in new])))
            raced = [m for m in new if stored.get(m.seq) != m.sha256]
            found.extend(_replayed(m, stored.get(m.seq, "?"), m.topic) for m in raced)
            new = [m for m in new if m not in raced]
        outcome.booked += len(new)
        self._book_bodies(session, table, epoch, new, utc, found)
        self._link(session, table, epoch, new, utc, outcome, found)
        self._check_chain(session, table, epoch, [m for m in new if m.type == "state"], found)

    def _register_epoch(self, session: Session, table: str, epoch: str, first: TableMessage, utc: str,
                        outcome: BatchOutcome, found: list[Anomaly]) -> None:
        if session.one("SELECT 1 FROM epochs WHERE table_id = ? AND epoch = ?", (table, epoch)) is None:
            previous = session.one("SELECT epoch, ordinal FROM epochs WHERE table_id = ? ORDER BY ordinal DESC LIMIT 1",
                                   (table,))
            ordinal = previous[1] + 1 if previous else 1
            session.execute("INSERT INTO epochs (table_id, epoch, ordinal, first_seq, first_utc, booked_utc) "
                            "VALUES (?, ?, ?, ?, ?, ?)", (table, epoch, ordinal, first.seq, first.utc, utc))
            if previous:
                last_seq, last_round = session.one("SELECT MAX(seq), MAX(round) FROM messages WHERE table_id = ? "
                                                   "AND epoch = ?", (table, previous[0]))
                found.append(Anomaly("epoch_change", table, epoch, first.seq, {
                    "previous_epoch": previous[0], "previous_last_seq": last_seq, "previous_last_round": last_round,
                    "first_seq": first.seq, "first_utc": first.utc, "ordinal": ordinal}))
        outcome.epochs_learned.add((table, epoch))

    def _book_bodies(self, session: Session, table: str, epoch: str, new: list[TableMessage], utc: str,
                     found: list[Anomaly]) -> None:
        by_type: dict[str, list[TableMessage]] = defaultdict(list)
        for message in new:
            by_type[message.type].append(message)
        session.executemany(
            "INSERT INTO results (table_id, epoch, seq, round, attempt, game, void, reason, faces, total, number, "
            "cards, outcome, evidence_ref, evidence_sha256, manual_who, manual_why, utc) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [_result_row(table, epoch, m) for m in by_type["result"]])
        session.executemany(
            "INSERT INTO events (table_id, epoch, seq, round, kind, who, why, detail, utc) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(table, epoch, m.seq, m.body.round, m.body.kind, m.body.who, m.body.why,
              json.dumps(m.body.detail, sort_keys=True), m.utc) for m in by_type["event"]])
        session.executemany(
            "INSERT INTO states (table_id, epoch, seq, round, phase, game, currency, records, head, utc, booked_utc) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(table, epoch, m.seq, m.body.round, m.body.phase, m.body.game or None, m.body.currency or None,
              m.chain.records, m.chain.head, m.utc, utc) for m in by_type["state"]])
        if by_type["settlement"]:
            self._book_settlements(session, table, epoch, by_type["settlement"], found)

    def _book_settlements(self, session: Session, table: str, epoch: str, settlements: list[TableMessage],
                          found: list[Anomaly]) -> None:
        session.executemany(
            "INSERT INTO rounds (table_id, round, round_id, epoch, seq, utc, void, currency, bets, staked, paid, "
            "returned, kept, breakage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [(table, m.body.round, m.body.round_id, epoch, m.seq, m.utc, m.body.void, m.body.currency,
              len(m.body.bets), m.body.totals.staked, m.body.totals.paid, m.body.totals.returned, m.body.totals.kept,
              m.body.totals.breakage) for m in settlements])
        rounds = sorted({m.body.round for m in settlements})
        owner = {r: (e, s) for r, e, s in session.all(
            f"SELECT round, epoch, seq FROM rounds WHERE table_id = ? AND round IN {marks(len(rounds))}",
            (table, *rounds))}
        lines = []
        for m in settlements:
            first = owner.get(m.body.round)
            if first != (epoch, m.seq):
                found.append(Anomaly("round_settled_twice", table, epoch, m.seq, {
                    "round": m.body.round, "booked_epoch": first[0] if first else None,
                    "booked_seq": first[1] if first else None}, m.payload))
                continue
            problems = settlement_problems(m.body)
            if problems:
                found.append(Anomaly("settlement_inconsistent", table, epoch, m.seq,
                                     {"round": m.body.round, "problems": problems}))
            for number, line in enumerate(m.body.bets, start=1):
                lines.append((table, m.body.round, number, line.ticket, line.owner, line.bet, line.number,
                              json.dumps(line.numbers) if line.numbers else None, line.stake, line.result, line.paid,
                              line.returned, line.kept, line.breakage, line.point))
        session.executemany(
            "INSERT INTO bets (table_id, round, line, ticket, owner, bet, number, numbers, stake, result, paid, "
            "returned, kept, breakage, point) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING", lines)

    def _link(self, session: Session, table: str, epoch: str, new: list[TableMessage], utc: str,
              outcome: BatchOutcome, found: list[Anomaly]) -> None:
        """Open the gaps these messages reveal, fill the gaps they close, report contradicting links."""
        prevs = sorted({m.prev_seq for m in new if m.prev_seq > 0})
        topic_of = dict(session.all(f"SELECT seq, topic FROM messages WHERE table_id = ? AND epoch = ? AND seq IN "
                                    f"{marks(len(prevs))}", (table, epoch, *prevs))) if prevs else {}
        opened = []
        for m in new:
            if m.prev_seq == 0:
                continue
            topic = topic_of.get(m.prev_seq)
            if topic is None:
                opened.append((table, epoch, m.prev_seq, m.topic, m.seq, utc))
            elif topic != m.topic:
                found.append(Anomaly("chain_conflict", table, epoch, m.seq, {
                    "topic": m.topic, "prev_seq": m.prev_seq, "prev_topic": topic}, subject="prev"))
        session.executemany("INSERT INTO gaps (table_id, epoch, missing_seq, topic, found_by_seq, detected_utc) "
                            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", opened)
        outcome.gaps_opened += len(opened)
        seqs = [m.seq for m in new]
        open_gaps = session.all(f"SELECT missing_seq, topic FROM gaps WHERE table_id = ? AND epoch = ? AND "
                                f"missing_seq IN {marks(len(seqs))} AND filled_utc IS NULL", (table, epoch, *seqs))
        if open_gaps:
            by_seq = {m.seq: m for m in new}
            for missing, topic in open_gaps:
                if by_seq[missing].topic != topic:
                    found.append(Anomaly("chain_conflict", table, epoch, missing, {
                        "topic": by_seq[missing].topic, "named_as_prev_on": topic}, subject="fill"))
            session.executemany("UPDATE gaps SET filled_utc = ?, filled_via = ? WHERE table_id = ? AND epoch = ? "
                                "AND missing_seq = ? AND filled_utc IS NULL",
                                [(utc, by_seq[missing].via, table, epoch, missing) for missing, _ in open_gaps])
            outcome.gaps_filled += len(open_gaps)
        by_topic: dict[str, list[TableMessage]] = defaultdict(list)
        for m in new:
            by_topic[m.topic].append(m)
        for topic, messages in by_topic.items():
            self._check_links(session, table, epoch, topic, messages, found)

    def _check_links(self, session: Session, table: str, epoch: str, topic: str, messages: list[TableMessage],
                     found: list[Anomaly]) -> None:
        """On one topic, each message's prev_seq must be the seq of the booked message just before it."""
        low = min(min(m.prev_seq for m in messages), min(m.seq for m in messages))
        high = max(m.seq for m in messages)
        rows = session.all("SELECT seq, prev_seq FROM messages WHERE table_id = ? AND epoch = ? AND topic = ? AND "
                           "seq >= ? AND seq <= ? ORDER BY seq LIMIT 5001", (table, epoch, topic, low, high))
        if len(rows) > 5000:
            return  # a prev_seq reaching this far back is itself reported as a gap or a conflict elsewhere
        after = session.one("SELECT seq, prev_seq FROM messages WHERE table_id = ? AND epoch = ? AND topic = ? AND "
                            "seq > ? ORDER BY seq LIMIT 1", (table, epoch, topic, high))
        rows += [after] if after else []
        new = {m.seq for m in messages}
        for (a_seq, _), (b_seq, b_prev) in zip(rows, rows[1:]):
            if b_prev < a_seq and (a_seq in new or b_seq in new):
                found.append(Anomaly("chain_conflict", table, epoch, b_seq, {
                    "topic": topic, "prev_seq": b_prev, "booked_between": a_seq}, subject=f"between:{a_seq}"))

    def _check_chain(self, session: Session, table: str, epoch: str, states: list[TableMessage],
                     found: list[Anomaly]) -> None:
        """Within an epoch the journal chain only grows: records never fall, one length has one head."""
        if not states:
            return
        low, high = min(m.seq for m in states), max(m.seq for m in states)
        rows = session.all(
            "SELECT seq, records, head FROM states WHERE table_id = ? AND epoch = ? AND seq >= COALESCE((SELECT "
            "MAX(seq) FROM states WHERE table_id = ? AND epoch = ? AND seq < ?), ?) AND seq <= COALESCE((SELECT "
            "MIN(seq) FROM states WHERE table_id = ? AND epoch = ? AND seq > ?), ?) ORDER BY seq",
            (table, epoch, table, epoch, low, low, table, epoch, high, high))
        new = {m.seq for m in states}
        for (a_seq, a_records, a_head), (b_seq, b_records, b_head) in zip(rows, rows[1:]):
            if not (a_seq in new or b_seq in new):
                continue
            detail = {"earlier_seq": a_seq, "earlier_records": a_records, "earlier_head": a_head,
                      "later_seq": b_seq, "later_records": b_records, "later_head": b_head}
            if b_records < a_records:
                found.append(Anomaly("chain_behind", table, epoch, b_seq, detail, subject=str(a_seq)))
            elif b_records == a_records and b_head != a_head:
                found.append(Anomaly("chain_forked", table, epoch, b_seq, detail, subject=str(a_seq)))

    # --- slot meters -----------------------------------------------------------------------------
    def _book_slots(self, session: Session, slots: list[SlotMeters], utc: str, outcome: BatchOutcome,
                    found: list[Anomaly]) -> None:
        for s in slots:
            inserted = session.execute(
                "INSERT INTO slot_meters (site, epoch, seq, machine, game, digits, poll, utc, meters, deltas, disabled, "
                "sha256, payload, booked_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (s.site, s.epoch, s.seq, s.machine, s.body.game, s.body.digits, s.body.poll, s.body.utc,
                 json.dumps(s.body.meters, sort_keys=True), json.dumps(s.body.deltas, sort_keys=True),
                 s.body.disabled, s.sha256, s.payload.decode(), utc))
            if inserted:
                outcome.booked += 1
                continue
            first = session.value("SELECT sha256 FROM slot_meters WHERE site = ? AND epoch = ? AND seq = ?",
                                  (s.site, s.epoch, s.seq))
            if first == s.sha256:
                outcome.duplicates += 1
            else:
                found.append(Anomaly("seq_replayed", None, s.epoch or None, s.seq, {
                    "site": s.site, "machine": s.machine, "booked_sha256": first, "other_sha256": s.sha256},
                    s.payload, subject=f"slots:{s.site}:{s.sha256}"))


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


def _result_row(table: str, epoch: str, m: TableMessage) -> tuple:
    b = m.body
    return (table, epoch, m.seq, b.round, b.attempt, b.game, b.void, b.reason,
            json.dumps(b.faces) if b.faces is not None else None, b.total, b.number,
            json.dumps(b.cards, sort_keys=True) if b.cards is not None else None, json.dumps(b.outcome, sort_keys=True),
            b.evidence.ref if b.evidence else None, b.evidence.sha256 if b.evidence else None,
            b.manual.who if b.manual else None, b.manual.why if b.manual else None, m.utc)


def _replayed(message: TableMessage, booked_sha: str, booked_topic: str) -> Anomaly:
    return Anomaly("seq_replayed", message.table, message.epoch, message.seq, {
        "booked_sha256": booked_sha, "booked_topic": booked_topic, "other_sha256": message.sha256,
        "other_topic": message.topic, "via": message.via}, message.payload, subject=message.sha256)
