"""prev_seq links and journal chains: the gaps a batch reveals and fills, the links and chains that contradict.

- a message whose predecessor on its topic (`prev_seq`) is not booked opens a row in `gaps`; booking the
  missing message fills it;
- on one topic, each message's `prev_seq` must be the seq of the booked message just before it, and
  name a message of the same topic (`chain_conflict` otherwise);
- within an epoch `state.journal` only grows: fewer records than an earlier state is `chain_behind`, the
  same length with another head `chain_forked`.
"""

from __future__ import annotations

from collections import defaultdict

from .anomalies import Anomaly
from .database import Session
from .inbound import TableMessage


def link(session: Session, new: list[TableMessage], utc: str, found: list[Anomaly]) -> tuple[int, int]:
    """Open the gaps these messages reveal, fill the gaps they close, report contradicting links; how many
    gaps were opened and filled."""
    prevs = sorted({(m.table, m.epoch, m.prev_seq) for m in new if m.prev_seq > 0})
    topic_of = {(t, e, s): topic for t, e, s, topic in session.batched(
        "SELECT table_id, epoch, seq, topic FROM messages WHERE (table_id, epoch, seq) IN (VALUES {values})",
        prevs)}
    opened = []
    for m in new:
        if m.prev_seq == 0:
            continue
        topic = topic_of.get((m.table, m.epoch, m.prev_seq))
        if topic is None:
            opened.append((m.table, m.epoch, m.prev_seq, m.topic, m.seq, utc))
        elif topic != m.topic:
            found.append(Anomaly("chain_conflict", m.table, m.epoch, m.seq, {
                "topic": m.topic, "prev_seq": m.prev_seq, "prev_topic": topic}, subject="prev"))
    session.batched("INSERT INTO gaps (table_id, epoch, missing_seq, topic, found_by_seq, detected_utc) "
                    "VALUES {values} ON CONFLICT DO NOTHING", opened)
    filled = 0
    by_key = {m.key: m for m in new}
    for via in sorted({m.via for m in new}):
        closed = session.batched(
            "UPDATE gaps SET filled_utc = ?, filled_via = ? WHERE filled_utc IS NULL AND "
            "(table_id, epoch, missing_seq) IN (VALUES {values}) RETURNING table_id, epoch, missing_seq, topic",
            [m.key for m in new if m.via == via], lead=(utc, via))
        for table, epoch, missing, topic in closed:
            if by_key[(table, epoch, missing)].topic != topic:
                found.append(Anomaly("chain_conflict", table, epoch, missing, {
                    "topic": by_key[(table, epoch, missing)].topic, "named_as_prev_on": topic}, subject="fill"))
        filled += len(closed)
    _check_links(session, new, found)
    return len(opened), filled

def _check_links(session: Session, new: list[TableMessage], found: list[Anomaly]) -> None:
    """On each topic, every message's prev_seq must be the seq of the booked message just before it."""
    spans: dict[tuple[str, str, str], list[int]] = {}
    for m in new:
        low, high = spans.setdefault((m.table, m.epoch, m.topic), [m.seq, m.seq])
        spans[(m.table, m.epoch, m.topic)] = [min(low, m.prev_seq, m.seq), max(high, m.seq)]
    ends = session.batched(  # each span runs on to the next message booked after it on its topic
        "SELECT span.column1, span.column2, span.column3, span.column4, COALESCE((SELECT MIN(n.seq) FROM "
        "messages n WHERE n.table_id = span.column1 AND n.epoch = span.column2 AND n.topic = span.column3 AND "
        "n.seq > span.column5), span.column5) FROM (VALUES {values}) AS span",
        [(t, e, p, low, high) for (t, e, p), (low, high) in spans.items()])
    rows = session.batched(
        "SELECT m.table_id, m.epoch, m.topic, m.seq, m.prev_seq FROM (VALUES {values}) AS span JOIN messages m "
        "ON m.table_id = span.column1 AND m.epoch = span.column2 AND m.topic = span.column3 AND "
        "m.seq >= span.column4 AND m.seq <= span.column5", ends)
    by_topic: dict[tuple[str, str, str], list[tuple[int, int]]] = defaultdict(list)
    for table, epoch, topic, seq, prev in rows:
        by_topic[(table, epoch, topic)].append((seq, prev))
    new_keys = {m.key for m in new}
    for (table, epoch, topic), links in by_topic.items():
        links.sort()
        for (a_seq, _), (b_seq, b_prev) in zip(links, links[1:]):
            if b_prev < a_seq and ((table, epoch, a_seq) in new_keys or (table, epoch, b_seq) in new_keys):
                found.append(Anomaly("chain_conflict", table, epoch, b_seq, {
                    "topic": topic, "prev_seq": b_prev, "booked_between": a_seq}, subject=f"between:{a_seq}"))

def check_chains(session: Session, states: list[TableMessage], found: list[Anomaly]) -> None:
    """Within an epoch the journal chain only grows: records never fall, one length has one head."""
    if not states:
        return
    spans: dict[tuple[str, str], list[int]] = {}
    for m in states:
        low, high = spans.setdefault((m.table, m.epoch), [m.seq, m.seq])
        spans[(m.table, m.epoch)] = [min(low, m.seq), max(high, m.seq)]
    ends = session.batched(  # each span widened to the states booked just before and just after it
        "SELECT span.column1, span.column2, COALESCE((SELECT MAX(n.seq) FROM states n WHERE n.table_id = "
        "span.column1 AND n.epoch = span.column2 AND n.seq < span.column3), span.column3), COALESCE((SELECT "
        "MIN(n.seq) FROM states n WHERE n.table_id = span.column1 AND n.epoch = span.column2 AND "
        "n.seq > span.column4), span.column4) FROM (VALUES {values}) AS span",
        [(t, e, low, high) for (t, e), (low, high) in spans.items()])
    rows = session.batched(
        "SELECT s.table_id, s.epoch, s.seq, s.records, s.head FROM (VALUES {values}) AS span JOIN states s "
        "ON s.table_id = span.column1 AND s.epoch = span.column2 AND s.seq >= span.column3 AND "
        "s.seq <= span.column4", ends)
    chains: dict[tuple[str, str], list[tuple[int, int, str]]] = defaultdict(list)
    for table, epoch, seq, records, head in rows:
        chains[(table, epoch)].append((seq, records, head))
    new_keys = {m.key for m in states}
    for (table, epoch), points in chains.items():
        points.sort()
        for (a_seq, a_records, a_head), (b_seq, b_records, b_head) in zip(points, points[1:]):
            if (table, epoch, a_seq) not in new_keys and (table, epoch, b_seq) not in new_keys:
                continue
            detail = {"earlier_seq": a_seq, "earlier_records": a_records, "earlier_head": a_head,
                      "later_seq": b_seq, "later_records": b_records, "later_head": b_head}
            if b_records < a_records:
                found.append(Anomaly("chain_behind", table, epoch, b_seq, detail, subject=str(a_seq)))
            elif b_records == a_records and b_head != a_head:
                found.append(Anomaly("chain_forked", table, epoch, b_seq, detail, subject=str(a_seq)))
