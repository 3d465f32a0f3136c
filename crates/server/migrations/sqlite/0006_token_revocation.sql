-- Role tokens can be revoked (`arbiterd token revoke`): the row stays, so
-- `arbiterd token list` still shows who had it and when it ended, and a
-- revoked token never authenticates again.
ALTER TABLE tokens ADD COLUMN revoked_wall_ms INTEGER;
