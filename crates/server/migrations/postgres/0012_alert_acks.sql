-- Acknowledgements of the alerts of a round (WatchRound, AcknowledgeAlert):
-- the first acknowledgement of an alert stands. Alerts themselves are not
-- stored: they are derived from the games' logs (and, for e-boards and low
-- time, from what the service sees now).
CREATE TABLE alert_acks (
    tournament_id TEXT COLLATE "C" NOT NULL,
    round_number  BIGINT NOT NULL,
    alert_id      TEXT COLLATE "C" NOT NULL,
    actor         TEXT    NOT NULL,
    wall_ms       BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, round_number, alert_id),
    FOREIGN KEY (tournament_id, round_number) REFERENCES rounds (tournament_id, number)
);
