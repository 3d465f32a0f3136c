//! [`TournamentStore`] on PostgreSQL: every write is one transaction on the
//! pool, so a round and its games commit together or not at all, also
//! between replicas.

use sqlx::Row;
use sqlx::postgres::{PgConnection, PgRow};

use super::{PostgresStore, classify, constraint, insert_game_row, unavailable, unique_violation};
use crate::store::StoreError;
use crate::store::tournament::{
    AlertAck, GameSeat, Requested, RoundGame, RoundRow, TournamentRequest, TournamentRow, TournamentStore,
    round_name,
};

/// SQLSTATE `foreign_key_violation`.
const FOREIGN_KEY: &str = "23503";

const TOURNAMENT_COLUMNS: &str = "id, creator, created_wall_ms, updated_wall_ms, version, format, spec_json";
const ROUND_COLUMNS: &str = "tournament_id, number, created_wall_ms, started_wall_ms, format, spec_json";

fn tournament_from_row(row: &PgRow) -> Result<TournamentRow, sqlx::Error> {
    Ok(TournamentRow {
        id: row.try_get(0)?,
        creator: row.try_get(1)?,
        created_wall_ms: row.try_get(2)?,
        updated_wall_ms: row.try_get(3)?,
        version: row.try_get(4)?,
        format: row.try_get(5)?,
        spec_json: row.try_get(6)?,
    })
}

fn round_from_row(row: &PgRow) -> Result<RoundRow, sqlx::Error> {
    Ok(RoundRow {
        tournament_id: row.try_get(0)?,
        number: row.try_get(1)?,
        created_wall_ms: row.try_get(2)?,
        started_wall_ms: row.try_get(3)?,
        format: row.try_get(4)?,
        spec_json: row.try_get(5)?,
    })
}

fn is_foreign_key(e: &sqlx::Error) -> bool {
    e.as_database_error().and_then(|db| db.code()).as_deref() == Some(FOREIGN_KEY)
}

impl PostgresStore {
    /// Whether this scope already used this request id.
    async fn request_used(&self, request: Requested<'_>) -> Result<bool, StoreError> {
        let Some((request_id, origin)) = request else { return Ok(false) };
        let used =
            sqlx::query("SELECT 1 FROM tournament_requests WHERE request_scope = $1 AND request_id = $2")
                .bind(origin.scope.as_str())
                .bind(request_id)
                .fetch_optional(&self.inner.pool)
                .await
                .map_err(classify)?;
        Ok(used.is_some())
    }

    /// The error for a write whose resource exists: a retried request is a
    /// duplicate (its caller then finds the original answer).
    async fn exists_or_duplicate(&self, request: Requested<'_>, name: String) -> StoreError {
        match self.request_used(request).await {
            Ok(true) => StoreError::DuplicateRequest {
                request_id: request.map(|r| r.0.to_owned()).unwrap_or_default(),
            },
            Ok(false) => StoreError::ResourceExists(name),
            Err(e) => e,
        }
    }
}

/// Records a request with what it did, in the caller's transaction.
async fn record_request(
    conn: &mut PgConnection,
    request: Requested<'_>,
    target: &str,
) -> Result<(), StoreError> {
    let Some((request_id, origin)) = request else { return Ok(()) };
    let recorded = sqlx::query(
        "INSERT INTO tournament_requests (request_scope, request_id, request_sha256, target) VALUES ($1, $2, $3, $4)",
    )
    .bind(origin.scope.as_str())
    .bind(request_id)
    .bind(origin.sha256.as_str())
    .bind(target)
    .execute(conn)
    .await;
    match recorded {
        Ok(_) => Ok(()),
        Err(e) if unique_violation(&e) == Some(constraint::TOURNAMENT_REQUESTS_PKEY) => {
            Err(StoreError::DuplicateRequest { request_id: request_id.to_owned() })
        }
        Err(e) => Err(classify(e)),
    }
}

impl TournamentStore for PostgresStore {
    async fn create_tournament(&self, row: &TournamentRow, request: Requested<'_>) -> Result<(), StoreError> {
        if row.version != 1 {
            return Err(StoreError::Invalid(format!("a new tournament has version 1, not {}", row.version)));
        }
        let mut tx = self.inner.pool.begin().await.map_err(classify)?;
        let inserted = sqlx::query(
            "INSERT INTO tournaments (id, creator, created_wall_ms, updated_wall_ms, version, format, spec_json) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(row.id.as_str())
        .bind(row.creator.as_str())
        .bind(row.created_wall_ms)
        .bind(row.updated_wall_ms)
        .bind(row.version)
        .bind(row.format)
        .bind(row.spec_json.as_str())
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(e) if unique_violation(&e) == Some(constraint::TOURNAMENTS_PKEY) => {
                drop(tx);
                return Err(self.exists_or_duplicate(request, format!("events/{}", row.id)).await);
            }
            Err(e) => return Err(classify(e)),
        }
        record_request(&mut tx, request, &format!("events/{}", row.id)).await?;
        tx.commit().await.map_err(classify)
    }

    async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, StoreError> {
        let sql = format!("SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.inner.pool)
            .await
            .map_err(unavailable)?;
        row.as_ref().map(tournament_from_row).transpose().map_err(unavailable)
    }

    async fn list_tournaments(
        &self,
        after_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        let sql = format!("SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id > $1 ORDER BY id LIMIT $2");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(after_id.unwrap_or(""))
            .bind(i64::from(limit))
            .fetch_all(&self.inner.pool)
            .await
            .map_err(unavailable)?;
        rows.iter().map(tournament_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn update_tournament(&self, row: &TournamentRow, request: Requested<'_>) -> Result<(), StoreError> {
        let mut tx = self.inner.pool.begin().await.map_err(classify)?;
        let updated = sqlx::query(
            "UPDATE tournaments SET version = $2, updated_wall_ms = $3, format = $4, spec_json = $5 \
             WHERE id = $1 AND version = $2 - 1",
        )
        .bind(row.id.as_str())
        .bind(row.version)
        .bind(row.updated_wall_ms)
        .bind(row.format)
        .bind(row.spec_json.as_str())
        .execute(&mut *tx)
        .await
        .map_err(classify)?;
        if updated.rows_affected() == 0 {
            drop(tx);
            let exists = self.tournament(&row.id).await?;
            return Err(match exists {
                Some(_) if self.request_used(request).await? => StoreError::DuplicateRequest {
                    request_id: request.map(|r| r.0.to_owned()).unwrap_or_default(),
                },
                Some(_) => {
                    StoreError::Conflict { game_id: format!("events/{}", row.id), expected: row.version - 1 }
                }
                None => StoreError::ResourceNotFound(format!("events/{}", row.id)),
            });
        }
        record_request(&mut tx, request, &format!("events/{}", row.id)).await?;
        tx.commit().await.map_err(classify)
    }

    async fn create_round(
        &self,
        round: &RoundRow,
        games: &[RoundGame],
        request: Requested<'_>,
    ) -> Result<(), StoreError> {
        if let Some(game) = games.iter().map(|g| &g.game).find(|g| g.last_seq != 0) {
            return Err(StoreError::Invalid(format!(
                "a new game starts with last_seq 0, not {}",
                game.last_seq
            )));
        }
        let name = round_name(&round.tournament_id, round.number);
        let mut tx = self.inner.pool.begin().await.map_err(classify)?;
        let inserted = sqlx::query(
            "INSERT INTO rounds (tournament_id, number, created_wall_ms, started_wall_ms, format, spec_json) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(round.tournament_id.as_str())
        .bind(round.number)
        .bind(round.created_wall_ms)
        .bind(round.started_wall_ms)
        .bind(round.format)
        .bind(round.spec_json.as_str())
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(e) if unique_violation(&e) == Some(constraint::ROUNDS_PKEY) => {
                drop(tx);
                return Err(self.exists_or_duplicate(request, name).await);
            }
            Err(e) if is_foreign_key(&e) => {
                return Err(StoreError::ResourceNotFound(format!("events/{}", round.tournament_id)));
            }
            Err(e) => return Err(classify(e)),
        }
        for RoundGame { board, white, black, game } in games {
            match insert_game_row(&mut tx, game).await {
                Ok(_) => {}
                Err(e) if unique_violation(&e) == Some(constraint::GAMES_PKEY) => {
                    return Err(StoreError::AlreadyExists(game.id.clone()));
                }
                Err(e) => return Err(classify(e)),
            }
            sqlx::query(
                "INSERT INTO round_games (game_id, tournament_id, round_number, board, white, black) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(game.id.as_str())
            .bind(round.tournament_id.as_str())
            .bind(round.number)
            .bind(*board)
            .bind(*white)
            .bind(*black)
            .execute(&mut *tx)
            .await
            .map_err(classify)?;
        }
        record_request(&mut tx, request, &name).await?;
        tx.commit().await.map_err(classify)
    }

    async fn round(&self, tournament_id: &str, number: i64) -> Result<Option<RoundRow>, StoreError> {
        let sql = format!("SELECT {ROUND_COLUMNS} FROM rounds WHERE tournament_id = $1 AND number = $2");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(tournament_id)
            .bind(number)
            .fetch_optional(&self.inner.pool)
            .await
            .map_err(unavailable)?;
        row.as_ref().map(round_from_row).transpose().map_err(unavailable)
    }

    async fn rounds(&self, tournament_id: &str) -> Result<Vec<RoundRow>, StoreError> {
        let sql = format!("SELECT {ROUND_COLUMNS} FROM rounds WHERE tournament_id = $1 ORDER BY number");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(tournament_id)
            .fetch_all(&self.inner.pool)
            .await
            .map_err(unavailable)?;
        rows.iter().map(round_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn start_round(&self, tournament_id: &str, number: i64, wall_ms: i64) -> Result<i64, StoreError> {
        // One statement: the first start stands, between replicas too.
        let start: Option<Option<i64>> = sqlx::query_scalar(
            "UPDATE rounds SET started_wall_ms = coalesce(started_wall_ms, $3) \
             WHERE tournament_id = $1 AND number = $2 RETURNING started_wall_ms",
        )
        .bind(tournament_id)
        .bind(number)
        .bind(wall_ms)
        .fetch_optional(&self.inner.pool)
        .await
        .map_err(classify)?;
        start.flatten().ok_or_else(|| StoreError::ResourceNotFound(round_name(tournament_id, number)))
    }

    async fn acknowledge_alert(
        &self,
        tournament_id: &str,
        round: i64,
        ack: &AlertAck,
    ) -> Result<AlertAck, StoreError> {
        // One statement: the first acknowledgement stands, between replicas
        // too (the no-op update makes the existing row come back).
        let row = sqlx::query(
            "INSERT INTO alert_acks (tournament_id, round_number, alert_id, actor, wall_ms) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (tournament_id, round_number, alert_id) DO UPDATE SET actor = alert_acks.actor \
             RETURNING actor, wall_ms",
        )
        .bind(tournament_id)
        .bind(round)
        .bind(ack.alert_id.as_str())
        .bind(ack.actor.as_str())
        .bind(ack.wall_ms)
        .fetch_one(&self.inner.pool)
        .await;
        match row {
            Ok(row) => Ok(AlertAck {
                alert_id: ack.alert_id.clone(),
                actor: row.try_get(0).map_err(unavailable)?,
                wall_ms: row.try_get(1).map_err(unavailable)?,
            }),
            Err(e) if is_foreign_key(&e) => {
                Err(StoreError::ResourceNotFound(round_name(tournament_id, round)))
            }
            Err(e) => Err(classify(e)),
        }
    }

    async fn alert_acks(&self, tournament_id: &str, round: i64) -> Result<Vec<AlertAck>, StoreError> {
        let rows = sqlx::query(
            "SELECT alert_id, actor, wall_ms FROM alert_acks WHERE tournament_id = $1 AND round_number = $2",
        )
        .bind(tournament_id)
        .bind(round)
        .fetch_all(&self.inner.pool)
        .await
        .map_err(unavailable)?;
        rows.iter()
            .map(|row| {
                Ok(AlertAck { alert_id: row.try_get(0)?, actor: row.try_get(1)?, wall_ms: row.try_get(2)? })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(unavailable)
    }

    async fn round_of_game(&self, game_id: &str) -> Result<Option<GameSeat>, StoreError> {
        let row = sqlx::query(
            "SELECT tournament_id, round_number, board, white, black FROM round_games WHERE game_id = $1",
        )
        .bind(game_id)
        .fetch_optional(&self.inner.pool)
        .await
        .map_err(unavailable)?;
        row.map(|row| {
            Ok(GameSeat {
                tournament_id: row.try_get(0)?,
                round: row.try_get(1)?,
                board: row.try_get(2)?,
                white: row.try_get(3)?,
                black: row.try_get(4)?,
            })
        })
        .transpose()
        .map_err(unavailable)
    }

    async fn tournament_request(
        &self,
        scope: &str,
        request_id: &str,
    ) -> Result<Option<TournamentRequest>, StoreError> {
        let row = sqlx::query(
            "SELECT request_sha256, target FROM tournament_requests WHERE request_scope = $1 AND request_id = $2",
        )
        .bind(scope)
        .bind(request_id)
        .fetch_optional(&self.inner.pool)
        .await
        .map_err(unavailable)?;
        row.map(|row| Ok(TournamentRequest { sha256: row.try_get(0)?, target: row.try_get(1)? }))
            .transpose()
            .map_err(unavailable)
    }
}
