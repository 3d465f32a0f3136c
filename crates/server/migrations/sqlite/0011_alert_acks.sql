-- Acknowledgements of the alerts of a round (WatchRound, AcknowledgeAlert):
-- the first acknowledgement of an alert stands. Alerts themselves are not
-- stored: they are derived from the games' logs (and, for e-boards and low
-- time, from what the service sees now).
CREATE TABLE alert_acks (
    tournament_id TEXT    NOT NULL,
    round_number  INTEGER NOT NULL,
    alert_id      TEXT    NOT NULL,
    actor         TEXT    NOT NULL,
    wall_ms       INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, round_number, alert_id),
    FOREIGN KEY (tournament_id, round_number) REFERENCES rounds (tournament_id, number)
);
