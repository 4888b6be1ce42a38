"""The start-up anchor check of a table: its journal against what it already published (docs/mqtt.md, "Lock-out").

    check = AnchorCheck(journal_file, topics, wait_s, created=not journal_file.exists())
    check.start(journal, link, on_checked, on_failure)   # on a thread: once the link is connected,
                                                         # read the anchors on it, compare, call back

The anchors are the broker's retained `T/state` and the ledger's retained anchor, read on the table's
own MQTT connection. Until the check has passed the outbox sends nothing (service.py wires it to the
link only then), so a journal behind its anchor is locked out before anything it played leaves, and a
broker outage at start does not silence the table: it plays, `state.journal.anchor` = "unchecked".
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable

import msgspec

from .journal import Journal, JournalBehindAnchor, JournalError
from .journal.anchor import Anchor, behind, from_ledger, from_state
from .journal.archive import archived_hash
from .mqtt.contract import Topics
from .mqtt.link import LinkSettings
from .mqtt.retained import read_retained, read_retained_once

log = logging.getLogger(__name__)

NEW_EPOCH = "a supervisor must start a new epoch (`tablehw journal new-epoch`, docs/deploy.md §4)"


def anchors_in(topics: Topics, payloads: dict[str, bytes] | None) -> list[Anchor] | None:
    """The anchors among retained payloads ([] when none; None when the broker did not answer)."""
    if payloads is None:
        return None
    anchors = [from_state(payloads[topics.state])] if topics.state in payloads else []
    if topics.ledger_anchor in payloads:
        anchors.append(from_ledger(payloads[topics.ledger_anchor]))
    return [a for a in anchors if a is not None]


def read_anchors(settings: LinkSettings, topics: Topics, wait_s: float) -> list[Anchor] | None:
    """The anchors, on a connection of its own (for the CLI, the table stopped)."""
    return anchors_in(topics, read_retained_once(settings, [topics.state, topics.ledger_anchor], wait_s))


class AnchorCheck:
    """Compares the journal with the anchors read on the table's link, once it is connected."""

    def __init__(self, journal_file: Path, topics: Topics, wait_s: float, *, created: bool) -> None:
        self.journal_file, self.topics, self.wait_s, self.created = Path(journal_file), topics, wait_s, created
        self._stop = threading.Event()

    def compare(self, journal: Journal, anchors: list[Anchor]) -> None:
        """Raises `JournalBehindAnchor`; else marks the journal checked and journals what was compared."""
        if self.created and anchors:
            a = anchors[0]
            raise JournalBehindAnchor(f"{self.journal_file}: there was no journal at start, but {a.source} says "
                                      f"epoch {a.epoch} published up to seq {a.seq} (round {a.round}): the journal "
                                      f"was deleted; {NEW_EPOCH}")
        for anchor in anchors:
            reason = behind(journal, anchor, lambda n: archived_hash(self.journal_file.parent, journal, n))
            if reason:
                raise JournalBehindAnchor(f"{self.journal_file}: {reason}; {NEW_EPOCH}")
        journal.anchor_status = "checked"
        with journal.transaction() as txn:
            txn.record("anchor_checked", {"anchors": [msgspec.structs.asdict(a) for a in anchors]})
        log.info("journal anchor checked against %s", ", ".join(a.source for a in anchors) or "an empty broker")

    def start(self, journal: Journal, link: Any, on_checked: Callable[[], None],
              on_failure: Callable[[JournalError], None]) -> threading.Thread:
        """On a thread: wait for `link` to connect, read the anchors on it, then `on_checked()`, or
        `on_failure(error)` when the journal is behind (or the check could not be journalled)."""

        def run() -> None:
            while not self._stop.wait(0.1):
                if not link.connected:
                    continue
                anchors = anchors_in(self.topics, read_retained(link.client, [self.topics.state,
                                                                              self.topics.ledger_anchor], self.wait_s))
                if anchors is None:
                    continue  # the connection went while asking: ask again on the next one
                try:
                    self.compare(journal, anchors)
                except JournalError as exc:
                    on_failure(exc)
                else:
                    on_checked()
                return

        thread = threading.Thread(target=run, name="anchor-check", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
