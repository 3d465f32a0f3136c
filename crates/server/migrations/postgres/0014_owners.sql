-- Games partitioned among the replicas of a shared database (issue 18,
-- point 3). A game in play is run by one replica, its owner: the owner's
-- table judges its acts and runs its timers; the other replicas forward
-- acts to it. A replica owns games while its lease holds: each heartbeat
-- (every 250 ms) extends `alive_until`, on the database's clock so that
-- replicas never compare their own clocks. When a lease runs out, the
-- survivors take the dead replica's games in play over (see
-- crates/server/src/hall.rs). A game nobody owns yet (a new one, or one
-- from before this migration) goes to the first replica that loads it.

-- The replica that runs the game (NULL: nobody yet).
ALTER TABLE games ADD COLUMN owner TEXT COLLATE "C";
-- The games in play of a replica, found when it dies.
CREATE INDEX games_owner_in_play ON games (owner) WHERE status = 'IN_PROGRESS';

-- Where the other replicas reach a replica's gRPC service (to forward the
-- acts on its games), and until when its lease holds.
ALTER TABLE replicas ADD COLUMN address TEXT;
ALTER TABLE replicas ADD COLUMN alive_until TIMESTAMPTZ;

-- The append function of 0013 with the fence: an append of a replica
-- (`p_owner`, NULL for a writer that is no replica, such as a tool) lands
-- only on games it owns; for the others the outcome is 'moved', with the
-- owner as detail. With the compare-and-set on last_seq, a replica whose
-- lease ran out can never append after the replica that took its game
-- over read the log.
DROP FUNCTION arbiter_append_batch(TEXT[], BIGINT[], TEXT[], TEXT[], INT[], BIGINT[], TEXT[], TEXT[],
                                   BIGINT[], BIGINT[], TEXT[], TEXT[], BIGINT[], TEXT[], BIGINT[],
                                   TEXT[], TEXT[], BIGINT[]);

CREATE FUNCTION arbiter_append_batch(
    p_game_ids    TEXT[],
    p_expected    BIGINT[],
    p_statuses    TEXT[],
    p_results     TEXT[],
    p_counts      INT[],
    p_seqs        BIGINT[],
    p_request_ids TEXT[],
    p_actors      TEXT[],
    p_at_ms       BIGINT[],
    p_wall_ms     BIGINT[],
    p_events      TEXT[],
    p_rulings     TEXT[],
    p_formats     BIGINT[],
    p_views       TEXT[],
    p_view_formats BIGINT[],
    p_request_scopes TEXT[],
    p_request_sha256s TEXT[],
    p_deadlines   BIGINT[],
    p_owner       TEXT
) RETURNS TABLE (o_index INT, o_outcome TEXT, o_detail TEXT)
LANGUAGE plpgsql AS $$
DECLARE
    v_game TEXT;
    v_first INT := 1;
    v_last INT;
    v_last_seq BIGINT;
    v_constraint TEXT;
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_game_ids, 1), 0) LOOP
        v_game := p_game_ids[i];
        v_last := v_first + p_counts[i] - 1;
        v_last_seq := p_seqs[v_last];
        o_index := i;
        o_outcome := 'ok';
        o_detail := NULL;
        BEGIN
            -- The compare-and-set on last_seq serialises the writers of a
            -- game: it matches for the first append that saw a given
            -- last_seq and for no other. A concurrent writer's uncommitted
            -- update makes it wait, then re-check against the committed row.
            -- The game's update time is the wall time of its last event.
            UPDATE games
               SET last_seq = v_last_seq, status = p_statuses[i], result = p_results[i],
                   updated_wall_ms = p_wall_ms[v_last], view_json = p_views[i],
                   view_format = p_view_formats[i], deadline_wall_ms = p_deadlines[i]
             WHERE id = v_game AND last_seq = p_expected[i]
               AND (p_owner IS NULL OR owner = p_owner);
            IF FOUND THEN
                INSERT INTO game_events
                       (game_id, seq, request_id, actor, at_ms, wall_ms, event_json, rulings_json, format,
                        request_scope, request_sha256)
                SELECT v_game, e.seq, e.request_id, e.actor, e.at_ms, e.wall_ms, e.event_json, e.rulings_json,
                       e.format, e.request_scope, e.request_sha256
                  FROM unnest(p_seqs[v_first:v_last], p_request_ids[v_first:v_last],
                              p_actors[v_first:v_last], p_at_ms[v_first:v_last],
                              p_wall_ms[v_first:v_last], p_events[v_first:v_last],
                              p_rulings[v_first:v_last], p_formats[v_first:v_last],
                              p_request_scopes[v_first:v_last], p_request_sha256s[v_first:v_last])
                       AS e (seq, request_id, actor, at_ms, wall_ms, event_json, rulings_json, format,
                             request_scope, request_sha256);
                PERFORM pg_notify('arbiter_events', v_game || ':' || v_last_seq);
            ELSIF NOT EXISTS (SELECT 1 FROM games WHERE id = v_game) THEN
                o_outcome := 'not_found';
            ELSIF p_owner IS NOT NULL
                  AND EXISTS (SELECT 1 FROM games WHERE id = v_game AND owner IS DISTINCT FROM p_owner) THEN
                -- The fence: another replica took the game over (its
                -- owner's lease ran out); this writer's view of it is stale.
                o_outcome := 'moved';
                SELECT owner INTO o_detail FROM games WHERE id = v_game;
            ELSE
                -- A retried request usually comes back with the stale
                -- expected seq it was first sent with; reporting the
                -- duplicate rather than a conflict lets the caller find the
                -- original answer.
                SELECT r.request_id INTO o_detail
                  FROM unnest(p_request_ids[v_first:v_last], p_request_scopes[v_first:v_last])
                       WITH ORDINALITY AS r (request_id, request_scope, n)
                 WHERE EXISTS (SELECT 1 FROM game_events AS e
                                WHERE e.game_id = v_game AND e.request_id = r.request_id
                                  AND coalesce(e.request_scope, '') = coalesce(r.request_scope, ''))
                 ORDER BY r.n
                 LIMIT 1;
                o_outcome := CASE WHEN o_detail IS NULL THEN 'conflict' ELSE 'duplicate' END;
            END IF;
        EXCEPTION
            WHEN unique_violation THEN
                GET STACKED DIAGNOSTICS v_constraint = CONSTRAINT_NAME;
                IF v_constraint = 'game_events_request' THEN
                    -- The first event whose request id was used before: in
                    -- the log, or by an earlier event of the same append.
                    o_outcome := 'duplicate';
                    SELECT r.request_id INTO o_detail
                      FROM unnest(p_request_ids[v_first:v_last], p_request_scopes[v_first:v_last])
                           WITH ORDINALITY AS r (request_id, request_scope, n)
                     WHERE EXISTS (SELECT 1 FROM game_events AS e
                                    WHERE e.game_id = v_game AND e.request_id = r.request_id
                                      AND coalesce(e.request_scope, '') = coalesce(r.request_scope, ''))
                        OR EXISTS (SELECT 1
                                     FROM unnest(p_request_ids[v_first:(v_first + r.n - 2)::INT],
                                                 p_request_scopes[v_first:(v_first + r.n - 2)::INT])
                                          AS p (request_id, request_scope)
                                    WHERE p.request_id = r.request_id
                                      AND coalesce(p.request_scope, '') = coalesce(r.request_scope, ''))
                     ORDER BY r.n
                     LIMIT 1;
                ELSIF v_constraint = 'game_events_pkey' THEN
                    -- Unreachable while last_seq matches the log, but the key
                    -- is the final word on who appended first.
                    o_outcome := 'conflict';
                ELSE
                    o_outcome := 'invalid';
                    o_detail := SQLERRM;
                END IF;
            WHEN foreign_key_violation THEN
                o_outcome := 'not_found';
            WHEN integrity_constraint_violation THEN
                o_outcome := 'invalid';
                o_detail := SQLERRM;
        END;
        RETURN NEXT;
        v_first := v_last + 1;
    END LOOP;
END;
$$;
