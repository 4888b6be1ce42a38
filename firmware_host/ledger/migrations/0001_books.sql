-- The books, schema 1. Portable SQL, the same file for SQLite and PostgreSQL: times are ISO 8601 UTC
-- text with milliseconds and Z (sortable as text), money is BIGINT minor units, breakage a "num/den" text.
-- Every row is keyed by what the contract makes unique, so booking twice changes nothing.

-- Each journal epoch of each table, numbered in the order the ledger first booked it.
CREATE TABLE epochs (
    table_id TEXT NOT NULL,
    epoch TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    first_seq BIGINT NOT NULL,
    first_utc TEXT NOT NULL,
    booked_utc TEXT NOT NULL,
    PRIMARY KEY (table_id, epoch),
    UNIQUE (table_id, ordinal)
);

-- Every message booked, its exact bytes and their SHA-256: the source of every other table.
CREATE TABLE messages (
    table_id TEXT NOT NULL,
    epoch TEXT NOT NULL,
    seq BIGINT NOT NULL,
    prev_seq BIGINT NOT NULL,
    topic TEXT NOT NULL,
    type TEXT NOT NULL,
    round BIGINT,
    utc TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    payload TEXT NOT NULL,
    via TEXT NOT NULL,
    booked_by TEXT NOT NULL,
    booked_utc TEXT NOT NULL,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX messages_by_topic ON messages (table_id, epoch, topic, seq);

-- One row per settled round (a round number is never reused by a table, across epochs too).
CREATE TABLE rounds (
    table_id TEXT NOT NULL,
    round BIGINT NOT NULL,
    round_id TEXT NOT NULL,
    epoch TEXT NOT NULL,
    seq BIGINT NOT NULL,
    utc TEXT NOT NULL,
    void BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    bets INTEGER NOT NULL,
    staked BIGINT NOT NULL,
    paid BIGINT NOT NULL,
    returned BIGINT NOT NULL,
    kept BIGINT NOT NULL,
    breakage TEXT NOT NULL,
    PRIMARY KEY (table_id, round)
);
CREATE INDEX rounds_by_time ON rounds (utc);

-- Every bet line of every settlement, in the settlement's order.
CREATE TABLE bets (
    table_id TEXT NOT NULL,
    round BIGINT NOT NULL,
    line INTEGER NOT NULL,
    ticket TEXT NOT NULL,
    owner TEXT NOT NULL,
    bet TEXT NOT NULL,
    number INTEGER,
    numbers TEXT,
    stake BIGINT NOT NULL,
    result TEXT NOT NULL,
    paid BIGINT NOT NULL,
    returned BIGINT NOT NULL,
    kept BIGINT NOT NULL,
    breakage TEXT NOT NULL,
    point INTEGER,
    PRIMARY KEY (table_id, round, line)
);

-- Every result, void attempts included.
CREATE TABLE results (
    table_id TEXT NOT NULL,
    epoch TEXT NOT NULL,
    seq BIGINT NOT NULL,
    round BIGINT NOT NULL,
    attempt INTEGER NOT NULL,
    game TEXT NOT NULL,
    void BOOLEAN NOT NULL,
    reason TEXT,
    faces TEXT,
    total INTEGER,
    number INTEGER,
    cards TEXT,
    outcome TEXT,
    evidence_ref TEXT,
    evidence_sha256 TEXT,
    manual_who TEXT,
    manual_why TEXT,
    utc TEXT NOT NULL,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX results_by_round ON results (table_id, round);
CREATE INDEX results_by_time ON results (utc);

CREATE TABLE events (
    table_id TEXT NOT NULL,
    epoch TEXT NOT NULL,
    seq BIGINT NOT NULL,
    round BIGINT,
    kind TEXT NOT NULL,
    who TEXT,
    why TEXT,
    detail TEXT NOT NULL,
    utc TEXT NOT NULL,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX events_by_time ON events (utc);

-- Every state, with the journal chain point it carries (the anchor is chosen among these).
CREATE TABLE states (
    table_id TEXT NOT NULL,
    epoch TEXT NOT NULL,
    seq BIGINT NOT NULL,
    round BIGINT NOT NULL,
    phase TEXT NOT NULL,
    game TEXT,
    currency TEXT,
    records BIGINT,
    head TEXT,
    utc TEXT NOT NULL,
    booked_utc TEXT NOT NULL,
    PRIMARY KEY (table_id, epoch, seq)
);
CREATE INDEX states_by_booking ON states (booked_utc);

-- A message the books lack: the prev_seq a booked message names. Filled when it is booked.
CREATE TABLE gaps (
    table_id TEXT NOT NULL,
    epoch TEXT NOT NULL,
    missing_seq BIGINT NOT NULL,
    topic TEXT NOT NULL,
    found_by_seq BIGINT NOT NULL,
    detected_utc TEXT NOT NULL,
    filled_utc TEXT,
    filled_via TEXT,
    unfillable_utc TEXT,
    unfillable_reason TEXT,
    PRIMARY KEY (table_id, epoch, missing_seq)
);
CREATE INDEX gaps_open ON gaps (table_id, epoch, missing_seq) WHERE filled_utc IS NULL;

-- Whatever does not add up: one row per finding (the id is a hash of its kind and subject).
CREATE TABLE anomalies (
    anomaly_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    table_id TEXT,
    epoch TEXT,
    seq BIGINT,
    detected_utc TEXT NOT NULL,
    detected_by TEXT NOT NULL,
    detail TEXT NOT NULL,
    evidence TEXT,
    alarmed_utc TEXT
);
CREATE INDEX anomalies_to_alarm ON anomalies (detected_utc) WHERE alarmed_utc IS NULL;
CREATE INDEX anomalies_by_table ON anomalies (table_id, detected_utc);

-- The anchor per table: it only moves forward, by (round, epoch ordinal, seq).
CREATE TABLE anchors (
    table_id TEXT PRIMARY KEY,
    epoch TEXT NOT NULL,
    seq BIGINT NOT NULL,
    records BIGINT NOT NULL,
    head TEXT NOT NULL,
    round BIGINT NOT NULL,
    utc TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    updated_utc TEXT NOT NULL,
    published_utc TEXT
);

-- Duties one instance does at a time (the warden), held for a few seconds and renewed.
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_utc TEXT NOT NULL
);

-- Slot meter snapshots as the slots service publishes them (docs/sas.md), in credits.
CREATE TABLE slot_meters (
    site TEXT NOT NULL,
    epoch TEXT NOT NULL,
    seq BIGINT NOT NULL,
    machine TEXT NOT NULL,
    game INTEGER NOT NULL,
    digits INTEGER,
    poll TEXT,
    utc TEXT NOT NULL,
    meters TEXT NOT NULL,
    deltas TEXT NOT NULL,
    disabled BOOLEAN NOT NULL,
    sha256 TEXT NOT NULL,
    payload TEXT NOT NULL,
    booked_utc TEXT NOT NULL,
    PRIMARY KEY (site, epoch, seq)
);
CREATE INDEX slot_meters_by_machine ON slot_meters (machine, utc);
