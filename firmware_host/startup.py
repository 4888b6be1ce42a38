"""The start-up checks of a table: its journal against the anchors held outside the Pi (docs/mqtt.md, "Lock-out").

    check = AnchorCheck(journal_file, link_settings, topics, wait_s)
    check.before_open()      # no journal file: refused (JournalBehindAnchor) if anything was published
    check.after_open(journal)  # True: compared and matched; False: broker unreachable (check later)
    check.watch(journal, on_checked, on_behind)   # the later check, on a thread, once the broker answers

A journal behind its anchor raises `JournalBehindAnchor` with the reason. When the broker cannot be
reached the table plays (a broker outage must not silence a table) but its MQTT link stays down, so
nothing it plays is published before the check has run; `state.journal.anchor` says "unchecked" until then.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable

import msgspec

from .journal import Journal, JournalBehindAnchor, JournalError
from .journal.anchor import Anchor, behind, from_ledger, from_state
from .journal.archive import archived_hash
from .mqtt.contract import Topics
from .mqtt.link import LinkSettings
from .mqtt.retained import read_retained

log = logging.getLogger(__name__)

NEW_EPOCH = "a supervisor must start a new epoch (`tablehw journal new-epoch`, docs/deploy.md §4)"


class AnchorCheck:
    """Reads the retained `T/state` and the ledger's anchor (bounded wait) and compares them with the journal."""

    def __init__(self, journal_file: Path, settings: LinkSettings, topics: Topics, wait_s: float) -> None:
        self.journal_file, self.settings, self.topics, self.wait_s = Path(journal_file), settings, topics, wait_s
        self._anchors: list[Anchor] | None = None
        self._stop = threading.Event()

    def read(self) -> list[Anchor] | None:
        """The anchors the broker holds for this table ([] when none); None when it cannot be reached."""
        payloads = read_retained(self.settings, [self.topics.state, self.topics.ledger_anchor], self.wait_s)
        if payloads is None:
            return None
        anchors = [from_state(payloads[self.topics.state])] if self.topics.state in payloads else []
        if self.topics.ledger_anchor in payloads:
            anchors.append(from_ledger(payloads[self.topics.ledger_anchor]))
        return [a for a in anchors if a is not None]

    def before_open(self) -> bool:
        """There is no journal file: True when a new one may be created (the broker answered and holds no
        anchor); False when the broker cannot be reached. Raises `JournalBehindAnchor` when the table had
        published before: its journal was deleted."""
        self._anchors = self.read()
        if self._anchors is None:
            return False
        if self._anchors:
            a = self._anchors[0]
            raise JournalBehindAnchor(f"{self.journal_file}: no journal, but {a.source} says epoch {a.epoch} "
                                      f"published up to seq {a.seq} (round {a.round}): the journal was deleted; "
                                      f"{NEW_EPOCH}")
        return True

    def after_open(self, journal: Journal) -> bool:
        """Compare (reading the anchors unless `before_open` did); True when checked, False when the broker
        cannot be reached. Raises `JournalBehindAnchor`."""
        anchors = self._anchors if self._anchors is not None else self.read()
        if anchors is None:
            log.error("table %s: the broker cannot be reached: the journal's anchor is unchecked; the table plays "
                      "and publishes nothing until the check has run", self.topics.base)
            return False
        self.compare(journal, anchors)
        return True

    def compare(self, journal: Journal, anchors: list[Anchor]) -> None:
        for anchor in anchors:
            reason = behind(journal, anchor, lambda n: archived_hash(self.journal_file.parent, journal, n))
            if reason:
                raise JournalBehindAnchor(f"{self.journal_file}: {reason}; {NEW_EPOCH}")
        journal.anchor_status = "checked"
        with journal.transaction() as txn:
            txn.record("anchor_checked", {"anchors": [msgspec.structs.asdict(a) for a in anchors]})
        log.info("journal anchor checked against %s", ", ".join(a.source for a in anchors) or "an empty broker")

    def watch(self, journal: Journal, on_checked: Callable[[], None], on_failure: Callable[[JournalError], None],
              retry_s: float = 5.0) -> threading.Thread:
        """Retry on a thread until the broker answers, then call `on_checked()`, or `on_failure(error)` when
        the journal is behind (`JournalBehindAnchor`) or the check could not be journalled (`StorageFailure`)."""

        def run() -> None:
            while not self._stop.wait(retry_s):
                anchors = self.read()
                if anchors is None:
                    continue
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
