-- Revocations of player tokens (RevokePlayerTokens), one row per colour and
-- revocation. A game's player tokens start at generation 0 (no row); each
-- revocation of a colour adds the next generation, and only the token of
-- the highest generation is accepted (see `auth`). The rows are the whole
-- history: who revoked (the request's scope names the caller) and when.
CREATE TABLE player_token_revocations (
    game_id         TEXT    NOT NULL REFERENCES games (id),
    color           TEXT    NOT NULL CHECK (color IN ('white', 'black')),
    generation      INTEGER NOT NULL CHECK (generation >= 1),
    revoked_wall_ms INTEGER NOT NULL,
    -- The request id and its scope and fingerprint, if the request had one
    -- (all three or none): a retry is answered with the generations it gave.
    request_scope   TEXT,
    request_id      TEXT,
    request_sha256  TEXT,
    PRIMARY KEY (game_id, color, generation)
);

-- A request id makes one revocation per scope and game (of one colour or
-- both: one row per colour).
CREATE UNIQUE INDEX player_token_revocations_request
    ON player_token_revocations (game_id, request_scope, request_id, color)
    WHERE request_id IS NOT NULL;
