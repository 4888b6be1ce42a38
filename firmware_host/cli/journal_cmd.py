"""`tablehw journal verify | new-epoch | archive --config FILE`: the supervisor's journal commands (docs/deploy.md §4)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..config import load_config
from ..journal import Journal, JournalError, load_key
from ..journal.archive import RotationPolicy, rotate, verify_archives
from ..journal.epochs import new_epoch
from ..journal.folder import holding, journal_path
from ..mqtt.contract import Topics
from ..service import link_settings
from ..service_config import MqttSection, StorageSection, storage_path
from ..startup import read_anchors


def register(subparsers) -> None:
    parser = subparsers.add_parser("journal", help="verify, archive or start a new epoch of a table's journal",
                                   description="The table's journal, for supervisors (docs/deploy.md §4).")
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    verify = sub.add_parser("verify", help="check the journal (and with --archives every archive file)")
    verify.add_argument("--archives", action="store_true", help="also walk every archive file of the epoch")
    epoch = sub.add_parser("new-epoch", help="keep the current journal aside and start a new epoch (after a "
                                             "lock-out); reads the anchors it supersedes from the broker")
    epoch.add_argument("--who", required=True, help="the supervisor (journalled)")
    epoch.add_argument("--why", required=True, help="the reason (journalled)")
    sub.add_parser("archive", help="archive the live journal's older part now (the table must be stopped)")
    for action in (verify, epoch, sub.choices["archive"]):
        action.add_argument("--config", required=True, help="the table's TOML config")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    if config.table is None:
        raise JournalError(f"{args.config}: no [table] section, so no journal")
    storage = config.storage or StorageSection()
    folder = storage_path(config.table.id, storage, os.environ.get("STATE_DIRECTORY"))
    key = load_key(storage.journal_key_file)
    if args.action == "new-epoch":
        topics = Topics((config.mqtt or MqttSection()).prefix, config.table.id)
        anchors = read_anchors(link_settings(config, None), topics, storage.anchor_wait_s)
        if anchors is None:
            raise JournalError("cannot reach the broker to read the anchors the new epoch supersedes; retry when "
                               "it is reachable")
        journal = new_epoch(folder, key, who=args.who, why=args.why, anchors=anchors)
        print(f"{config.table.id}: new epoch {journal.epoch}; rounds continue after {journal.round_base}")
        journal.close()
        return 0
    path = journal_path(folder)
    if not path.exists():
        raise JournalError(f"{path}: no journal")
    if args.action == "archive":
        with holding(folder, "archiving"):
            journal = Journal.open(path, key=key, create=False)
            try:
                policy = RotationPolicy(storage.journal_rotate_days, storage.journal_rotate_mb,
                                        storage.journal_keep_rounds, storage.journal_archive_days)
                written = rotate(journal, folder, policy, force=True)
            finally:
                journal.close()
        print(f"archived to {written}" if written else "nothing to archive yet (too few closed rounds, or table "
                                                        "messages not sent)")
        return 0
    journal = Journal.open(path, key=key, create=False)
    try:
        print(f"{path}: epoch {journal.epoch}, records {journal.base.records + 1}-{journal.head_seq}, messages "
              f"{journal.first_available}-{journal.last_seq}: ok ({'HMAC key' if journal.chain.keyed else 'no key'})")
        if args.archives:
            for line in verify_archives(Path(folder), journal):
                print(line)
    finally:
        journal.close()
    return 0
