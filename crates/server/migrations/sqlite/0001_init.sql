-- The embedded SQLite schema of the Arbiter store (see src/store/mod.rs for
-- the invariants it serves).

-- One row per game: its creation request, tournament labels (the ListGames
-- filters), the opaque spec the server rebuilds the game from, and the state
-- kept by the appends.
CREATE TABLE games (
    id              TEXT    PRIMARY KEY NOT NULL,
    -- A request id is used at most once among game creations; NULLs are
    -- distinct in a UNIQUE column, so games created without one never clash.
    request_id      TEXT    UNIQUE,
    created_wall_ms INTEGER NOT NULL,
    event_name      TEXT    NOT NULL,
    round           TEXT    NOT NULL,
    white           TEXT    NOT NULL,
    black           TEXT    NOT NULL,
    spec_json       TEXT    NOT NULL,
    status          TEXT    NOT NULL,
    result          TEXT,
    last_seq        INTEGER NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
    updated_wall_ms INTEGER NOT NULL
);

-- ListGames filters by tournament (event, then round) and by status, and
-- always pages in id order, so the id closes both indexes: a filtered page
-- is an index range scan that needs no sort.
CREATE INDEX games_event_round_id ON games (event_name, round, id);
CREATE INDEX games_status_id ON games (status, id);

-- The append-only log. The primary key (game_id, seq) is the arbiter
-- between concurrent writers and serves the reads (a game's events in seq
-- order). It stays a rowid table: event and ruling payloads are often a few
-- hundred bytes, too large for WITHOUT ROWID to pay off, and rowid order is
-- insertion order, so the table itself only ever grows at its end.
CREATE TABLE game_events (
    game_id      TEXT    NOT NULL REFERENCES games (id),
    seq          INTEGER NOT NULL CHECK (seq >= 1),
    request_id   TEXT,
    actor        TEXT    NOT NULL,
    at_ms        INTEGER NOT NULL,
    wall_ms      INTEGER NOT NULL,
    event_json   TEXT    NOT NULL,
    rulings_json TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- A request id appears at most once per game; most events (timer flags,
-- service events) carry none and stay out of the index.
CREATE UNIQUE INDEX game_events_request ON game_events (game_id, request_id)
    WHERE request_id IS NOT NULL;

-- Role tokens, stored as the SHA-256 of their secret.
CREATE TABLE tokens (
    id              TEXT    PRIMARY KEY NOT NULL,
    secret_sha256   TEXT    NOT NULL,
    role            TEXT    NOT NULL,
    label           TEXT    NOT NULL,
    created_wall_ms INTEGER NOT NULL
);

-- Small settings shared by every process using the database (server key...).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
