-- Each game's next deadline as a wall-clock instant (milliseconds since the
-- Unix epoch), written by the same append as the event after which it holds
-- (NULL: no timer runs, e.g. the clock is paused or the game is over). The
-- server keeps the deadlines of the games in play that are not loaded in
-- one timer structure and loads a game shortly before its deadline, so a
-- start-up reads this column instead of replaying every game in play.
--
-- Games in play written before this migration have no deadline recorded
-- yet: they are marked due at once (0), so the first start-up loads them
-- as every start-up used to, and their next append records the real one.
ALTER TABLE games ADD COLUMN deadline_wall_ms INTEGER;
UPDATE games SET deadline_wall_ms = 0 WHERE status = 'IN_PROGRESS';

-- The outages of the service: from the last heartbeat of the last replica
-- alive (`last_alive_wall_ms`, 0 if none was ever recorded) to the start-up
-- that found no replica alive (`resumed_wall_ms`). A game is loaded lazily,
-- perhaps after several outages: the time it did not run is the sum of the
-- outages between its last event and its load, not charged to the player
-- on move and recorded then (`ServiceResumed`, FIDE-6.11).
CREATE TABLE outages (
    resumed_wall_ms    INTEGER NOT NULL,
    last_alive_wall_ms INTEGER NOT NULL,
    PRIMARY KEY (resumed_wall_ms, last_alive_wall_ms)
);
