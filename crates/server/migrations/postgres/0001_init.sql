-- The PostgreSQL schema of the Arbiter store: the same tables, keys and
-- indexes as migrations/sqlite (see src/store/mod.rs for the invariants they
-- serve). The store tells errors apart by constraint name, so every
-- constraint is named explicitly here.
--
-- Keys and filtered labels use the "C" collation: ListGames pages by
-- `id > after ORDER BY id`, which must be plain byte order as in SQLite
-- whatever the database's default collation is (and byte comparisons are
-- the cheapest in the indexes).

-- One row per game: its creation request, tournament labels (the ListGames
-- filters), the opaque spec the server rebuilds the game from, and the state
-- kept by the appends.
CREATE TABLE games (
    id              TEXT COLLATE "C" NOT NULL,
    -- A request id is used at most once among game creations; NULLs are
    -- distinct in a UNIQUE constraint, so games created without one never
    -- clash.
    request_id      TEXT COLLATE "C",
    created_wall_ms BIGINT NOT NULL,
    event_name      TEXT COLLATE "C" NOT NULL,
    round           TEXT COLLATE "C" NOT NULL,
    white           TEXT NOT NULL,
    black           TEXT NOT NULL,
    spec_json       TEXT NOT NULL,
    status          TEXT COLLATE "C" NOT NULL,
    result          TEXT,
    -- The compare-and-set of every append: `UPDATE ... WHERE last_seq =
    -- expected` serialises the writers of a game, whichever process they
    -- run in.
    last_seq        BIGINT NOT NULL DEFAULT 0,
    updated_wall_ms BIGINT NOT NULL,
    CONSTRAINT games_pkey PRIMARY KEY (id),
    CONSTRAINT games_request_id_key UNIQUE (request_id),
    CONSTRAINT games_last_seq_check CHECK (last_seq >= 0)
);

-- ListGames filters by tournament (event, then round) and by status, and
-- always pages in id order, so the id closes both indexes: a filtered page
-- is an index range scan that needs no sort.
CREATE INDEX games_event_round_id ON games (event_name, round, id);
CREATE INDEX games_status_id ON games (status, id);

-- The append-only log. The primary key (game_id, seq) is the final arbiter
-- between concurrent writers and serves the reads (a game's events in seq
-- order).
CREATE TABLE game_events (
    game_id      TEXT COLLATE "C" NOT NULL,
    seq          BIGINT NOT NULL,
    request_id   TEXT COLLATE "C",
    actor        TEXT NOT NULL,
    at_ms        BIGINT NOT NULL,
    wall_ms      BIGINT NOT NULL,
    -- JSON written by the server and opaque to the store: TEXT keeps it
    -- byte for byte (JSONB would normalise it) and costs no parsing.
    event_json   TEXT NOT NULL,
    rulings_json TEXT NOT NULL,
    CONSTRAINT game_events_pkey PRIMARY KEY (game_id, seq),
    CONSTRAINT game_events_game_id_fkey FOREIGN KEY (game_id) REFERENCES games (id),
    CONSTRAINT game_events_seq_check CHECK (seq >= 1)
);

-- A request id appears at most once per game; most events (timer flags,
-- service events) carry none and stay out of the index.
CREATE UNIQUE INDEX game_events_request ON game_events (game_id, request_id)
    WHERE request_id IS NOT NULL;

-- Role tokens, stored as the SHA-256 of their secret.
CREATE TABLE tokens (
    id              TEXT COLLATE "C" NOT NULL,
    secret_sha256   TEXT NOT NULL,
    role            TEXT NOT NULL,
    label           TEXT NOT NULL,
    created_wall_ms BIGINT NOT NULL,
    CONSTRAINT tokens_pkey PRIMARY KEY (id)
);

-- Small settings shared by every process using the database (server key...).
CREATE TABLE meta (
    key   TEXT COLLATE "C" NOT NULL,
    value TEXT NOT NULL,
    CONSTRAINT meta_pkey PRIMARY KEY (key)
);
