-- Server replicas sharing the database announce themselves here: each one
-- upserts its row every few seconds, and a replica whose heartbeat is too
-- old is presumed gone (its games can be taken over).
CREATE TABLE replicas (
    id           TEXT COLLATE "C" NOT NULL,
    -- The replica's last heartbeat (Unix milliseconds, its own clock).
    seen_wall_ms BIGINT NOT NULL,
    CONSTRAINT replicas_pkey PRIMARY KEY (id)
);
