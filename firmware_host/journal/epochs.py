"""A supervisor's new epoch: the old journal is kept aside for the inspector, a new one continues the rounds.

    new_epoch(storage, key, who="sup-2", why="journal restored from backup was behind", anchors=[...])

The new journal's first record (`epoch_started`) says who and why, which anchors it supersedes, and
what the old file held; its rounds continue after the highest round any of them knows, so a
`round_id` never repeats. Consumers see the new `epoch` on every payload (docs/mqtt.md, "Epochs").
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import msgspec

from ..clock import SystemClock
from .anchor import Anchor
from .errors import JournalError
from .folder import holding, journal_path
from .rows import Base
from .store import Journal

log = logging.getLogger(__name__)

SUPERSEDED_FOLDER = "superseded"


def new_epoch(storage: Path, key: bytes | None, *, who: str, why: str, anchors: list[Anchor],
              clock: Any = None) -> Journal:
    """Move the current journal (if any) aside and start a new epoch's journal; returns it (open)."""
    if not who.strip() or not why.strip():
        raise JournalError("a new epoch needs --who and --why (they are journalled)")
    clock = clock or SystemClock()
    with holding(storage, "starting a new epoch"):
        path = journal_path(storage)
        previous = _previous(path, key)
        superseded = list(previous.pop("superseded", []))
        for epoch in [previous.get("epoch"), *(a.epoch for a in anchors)]:
            if epoch and epoch not in superseded:
                superseded.append(epoch)
        round_base = max([previous.get("last_round") or 0, *(a.round for a in anchors)])
        if path.exists():
            previous["file"] = _move_aside(path, storage, clock.utc())
        opened = {"who": who, "why": why, "supersedes": [msgspec.structs.asdict(a) for a in anchors],
                  "previous_journal": previous or None}
        journal = Journal.start_epoch(path, key=key, clock=clock, opened=opened,
                                      base=Base(0, "", 0, round_base=round_base, superseded=superseded))
    log.warning("new journal epoch %s by %s (%s): rounds continue after %d; superseded %s", journal.epoch, who, why,
                round_base, ", ".join(superseded) or "nothing")
    return journal


def _previous(path: Path, key: bytes | None) -> dict[str, Any]:
    """What can still be read of the old journal (nothing when it is unreadable or absent)."""
    if not path.exists():
        return {}
    try:
        old = Journal(path, key=key, create=False)
    except JournalError as exc:
        return {"unreadable": str(exc)}
    try:
        rounds = old.rounds(1)
        return {"epoch": old.epoch, "records": old.head_seq, "last_seq": old.last_seq,
                "last_round": rounds[0] if rounds else old.round_base, "superseded": old.base.superseded}
    except Exception as exc:  # a damaged file may fail anywhere in a read: keep what was learnt
        return {"epoch": old.epoch, "unreadable": str(exc)}
    finally:
        old.close()


def _move_aside(path: Path, storage: Path, utc: str) -> str:
    """journal.sqlite (with its -wal and -shm) -> superseded/journal-<utc>.sqlite; the new name."""
    folder = Path(storage) / SUPERSEDED_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    stamp = utc.replace(":", "").replace("-", "").replace(".", "")
    target = folder / f"journal-{stamp}.sqlite"
    for suffix in ("-wal", "-shm", ""):
        source = Path(f"{path}{suffix}")
        if source.exists():
            os.replace(source, Path(f"{target}{suffix}"))
    return str(target.relative_to(storage))
