-- Request ids are scoped to their caller and method (see "Request ids" in
-- docs/api.md): a request id names one request of one caller, so another
-- caller, or another method, reusing it makes an independent request, and
-- the same caller reusing it for a different request is refused.
--
-- Each event caused by a request carries the request's scope (the caller
-- and the method, `<caller> <method>`) and the SHA-256 of the request
-- without its id (its fingerprint). Rows written before this migration have
-- neither (NULL): the server matches them by request id and actor only, as
-- the release that wrote them did.
ALTER TABLE game_events ADD COLUMN request_scope TEXT;
ALTER TABLE game_events ADD COLUMN request_sha256 TEXT;

-- A request id appears at most once per game and scope. Rows without a
-- scope (older rows, or a writer that gives none) share the empty scope, so
-- among themselves the rule of 0001 holds unchanged.
DROP INDEX game_events_request;
CREATE UNIQUE INDEX game_events_request ON game_events (game_id, coalesce(request_scope, ''), request_id)
    WHERE request_id IS NOT NULL;

-- Each CreateGame that carried a request id, by scope: the game it created
-- and the fingerprint of the request. `games.request_id` is kept for games
-- created before this migration (the server no longer matches it: it does
-- not say who created the game) and is NULL for newer ones.
CREATE TABLE creation_requests (
    request_scope  TEXT NOT NULL,
    request_id     TEXT NOT NULL,
    request_sha256 TEXT NOT NULL,
    game_id        TEXT NOT NULL REFERENCES games (id),
    PRIMARY KEY (request_scope, request_id)
);
