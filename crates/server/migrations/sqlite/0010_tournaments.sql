-- Events and rounds (`events/{event}`, `events/{event}/rounds/{round}`),
-- called tournaments here because an event is an entry of a game's log.
-- Each is one document written by the server (`spec_json` in format
-- `format`, opaque to the store); see src/store/tournament.rs for the
-- invariants.

-- A tournament's document changes by compare-and-set on `version`.
CREATE TABLE tournaments (
    id              TEXT    PRIMARY KEY NOT NULL,
    creator         TEXT    NOT NULL,
    created_wall_ms INTEGER NOT NULL,
    updated_wall_ms INTEGER NOT NULL,
    version         INTEGER NOT NULL CHECK (version >= 1),
    format          INTEGER NOT NULL,
    spec_json       TEXT    NOT NULL
);

-- A round and its games are inserted in one transaction; the key makes a
-- round number a one-time thing.
CREATE TABLE rounds (
    tournament_id   TEXT    NOT NULL REFERENCES tournaments (id),
    number          INTEGER NOT NULL CHECK (number >= 1),
    created_wall_ms INTEGER NOT NULL,
    started_wall_ms INTEGER,
    format          INTEGER NOT NULL,
    spec_json       TEXT    NOT NULL,
    PRIMARY KEY (tournament_id, number)
);

-- Each tournament-level request that carried a request id, by scope (the
-- caller and the method): its fingerprint and the resource it created or
-- changed, recorded with the change itself.
CREATE TABLE tournament_requests (
    request_scope  TEXT NOT NULL,
    request_id     TEXT NOT NULL,
    request_sha256 TEXT NOT NULL,
    target         TEXT NOT NULL,
    PRIMARY KEY (request_scope, request_id)
);

-- The games of each round, with their board numbers, written with the
-- round: a game's round (`Game.round_name`) is one lookup by its id, and a
-- round's games one range of the second index.
CREATE TABLE round_games (
    game_id       TEXT    PRIMARY KEY NOT NULL REFERENCES games (id),
    tournament_id TEXT    NOT NULL,
    round_number  INTEGER NOT NULL,
    board         INTEGER NOT NULL,
    -- The start numbers of White and Black.
    white         INTEGER NOT NULL,
    black         INTEGER NOT NULL,
    FOREIGN KEY (tournament_id, round_number) REFERENCES rounds (tournament_id, number)
);
CREATE UNIQUE INDEX round_games_board ON round_games (tournament_id, round_number, board);
