"""The journal: one SQLite file (WAL, synchronous=FULL) of chained critical records and the outbox.

Everything the service must not lose is written here *before* it is acted on or published:
accepted bets, readings, verdicts, results, settlements, dealer and supervisor actions (as
*records*) and every outgoing MQTT message (as *outbox* rows). A transaction commits records and
messages together, so a result is never published without being journalled and never journalled
without being published.

    journal = Journal.open("/var/lib/tablehw/craps-1/journal.sqlite", key=load_key(key_file))
    with journal.transaction() as txn:            # BEGIN IMMEDIATE ... COMMIT (fsync)
        txn.record("bet_accepted", {"ticket": "t-1", ...}, round=42)
        txn.publish("tablehw/tables/craps-1/result", payload, retain=True)
    for record in journal.records(kind="settlement", round=42): record.data()

Modules: `store` (the file, transactions, reading), `chain` (checksums and the key), `verify` (the
walk that checks a journal or an archive), `anchor` (comparing the journal with what it published),
`archive` (rotation into sealed period files), `epochs` (a supervisor's new epoch).
"""

from .chain import Chain, load_key
from .errors import JournalBehindAnchor, JournalCorrupt, JournalError, JournalMissing, StorageFailure
from .store import Journal, MessageProperties, OutgoingMessage, Record, Transaction, connect, read_messages

__all__ = ["Chain", "Journal", "JournalBehindAnchor", "JournalCorrupt", "JournalError", "JournalMissing",
           "MessageProperties", "OutgoingMessage", "Record", "StorageFailure", "Transaction", "connect", "load_key",
           "read_messages"]
