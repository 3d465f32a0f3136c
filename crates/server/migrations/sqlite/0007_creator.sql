-- The token that created each game (`auth::CallerId`: `tok-<id>`,
-- `cfg-<role>-<hmac>`), so that the cap on unfinished games per token can be
-- counted from the index in the transaction that creates a game. Games
-- created before this migration have none and count for nobody.
ALTER TABLE games ADD COLUMN creator TEXT;

-- The count of a creator's pending and in-progress games is a range scan of
-- this index, stopped at the cap.
CREATE INDEX games_creator_status ON games (creator, status) WHERE creator IS NOT NULL;
