-- The read model (see src/event_log/mod.rs, GameView): each game's row holds
-- the game as a reader sees it after its last event, written by the same
-- append as the event, so that lists and reads of finished games answer
-- from the index without replaying the log. Rows written before this
-- migration have none (NULL); the server rebuilds theirs from the log once.
ALTER TABLE games ADD COLUMN view_json TEXT;
ALTER TABLE games ADD COLUMN view_format INTEGER CHECK (view_format IS NULL OR view_format >= 1);
