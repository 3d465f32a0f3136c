-- What e-boards reported (ConnectBoard), kept before it is answered: a
-- board that reconnects, or a service that restarts, rebuilds its reading
-- of the board from these rows, and the primary key applies each
-- observation once. `report_json` is a record of `event_log::board`
-- (format `format`), never the wire message.
CREATE TABLE board_observations (
    game_id          TEXT   NOT NULL,
    device_id        BIGINT NOT NULL,
    device_seq       BIGINT NOT NULL,
    device_time_ms   BIGINT NOT NULL,
    format           BIGINT NOT NULL,
    report_json      TEXT   NOT NULL,
    received_wall_ms BIGINT NOT NULL,
    PRIMARY KEY (game_id, device_id, device_seq)
);
