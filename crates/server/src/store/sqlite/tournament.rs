//! [`TournamentStore`] on SQLite: reads from the read pool, writes as jobs
//! of the single writer (each job in its own savepoint, so a round and its
//! games commit together or not at all).

use sqlx::Row;
use sqlx::sqlite::{SqliteConnection, SqliteRow};

use super::{Reply, SqliteStore, Work, apply_create_game, classify, code, sqlite_code, unavailable};
use crate::store::tournament::{
    AlertAck, GameSeat, Requested, RoundGame, RoundRow, TournamentRequest, TournamentRow, TournamentStore,
    round_name,
};
use crate::store::{RequestOrigin, StoreError};

/// A tournament-level write, run by the writer.
#[derive(Debug)]
pub(super) enum TournamentWrite {
    Create { row: TournamentRow, request: Option<(String, RequestOrigin)> },
    Update { row: TournamentRow, request: Option<(String, RequestOrigin)> },
    CreateRound { round: RoundRow, games: Vec<RoundGame>, request: Option<(String, RequestOrigin)> },
    StartRound { tournament_id: String, number: i64, wall_ms: i64 },
    Acknowledge { tournament_id: String, round: i64, ack: AlertAck },
}

fn owned(request: Requested<'_>) -> Option<(String, RequestOrigin)> {
    request.map(|(id, origin)| (id.to_owned(), origin.clone()))
}

const TOURNAMENT_COLUMNS: &str = "id, creator, created_wall_ms, updated_wall_ms, version, format, spec_json";
const ROUND_COLUMNS: &str = "tournament_id, number, created_wall_ms, started_wall_ms, format, spec_json";

fn tournament_from_row(row: &SqliteRow) -> Result<TournamentRow, sqlx::Error> {
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

fn round_from_row(row: &SqliteRow) -> Result<RoundRow, sqlx::Error> {
    Ok(RoundRow {
        tournament_id: row.try_get(0)?,
        number: row.try_get(1)?,
        created_wall_ms: row.try_get(2)?,
        started_wall_ms: row.try_get(3)?,
        format: row.try_get(4)?,
        spec_json: row.try_get(5)?,
    })
}

impl TournamentStore for SqliteStore {
    async fn create_tournament(&self, row: &TournamentRow, request: Requested<'_>) -> Result<(), StoreError> {
        if row.version != 1 {
            return Err(StoreError::Invalid(format!("a new tournament has version 1, not {}", row.version)));
        }
        self.submit(
            Work::Tournament(TournamentWrite::Create { row: row.clone(), request: owned(request) }),
            Reply::Unit,
        )
        .await
    }

    async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, StoreError> {
        let sql = format!("SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.inner.read)
            .await
            .map_err(unavailable)?;
        row.as_ref().map(tournament_from_row).transpose().map_err(unavailable)
    }

    async fn list_tournaments(
        &self,
        after_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        let sql = format!("SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id > ?1 ORDER BY id LIMIT ?2");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(after_id.unwrap_or(""))
            .bind(i64::from(limit))
            .fetch_all(&self.inner.read)
            .await
            .map_err(unavailable)?;
        rows.iter().map(tournament_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn update_tournament(&self, row: &TournamentRow, request: Requested<'_>) -> Result<(), StoreError> {
        self.submit(
            Work::Tournament(TournamentWrite::Update { row: row.clone(), request: owned(request) }),
            Reply::Unit,
        )
        .await
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
        let write = TournamentWrite::CreateRound {
            round: round.clone(),
            games: games.to_vec(),
            request: owned(request),
        };
        self.submit(Work::Tournament(write), Reply::Unit).await
    }

    async fn round(&self, tournament_id: &str, number: i64) -> Result<Option<RoundRow>, StoreError> {
        let sql = format!("SELECT {ROUND_COLUMNS} FROM rounds WHERE tournament_id = ?1 AND number = ?2");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(tournament_id)
            .bind(number)
            .fetch_optional(&self.inner.read)
            .await
            .map_err(unavailable)?;
        row.as_ref().map(round_from_row).transpose().map_err(unavailable)
    }

    async fn rounds(&self, tournament_id: &str) -> Result<Vec<RoundRow>, StoreError> {
        let sql = format!("SELECT {ROUND_COLUMNS} FROM rounds WHERE tournament_id = ?1 ORDER BY number");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(tournament_id)
            .fetch_all(&self.inner.read)
            .await
            .map_err(unavailable)?;
        rows.iter().map(round_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn start_round(&self, tournament_id: &str, number: i64, wall_ms: i64) -> Result<i64, StoreError> {
        let write = TournamentWrite::StartRound { tournament_id: tournament_id.to_owned(), number, wall_ms };
        let text = self.submit(Work::Tournament(write), Reply::Text).await?;
        text.parse().map_err(|_| StoreError::Unavailable(format!("unreadable round start {text:?}")))
    }

    async fn acknowledge_alert(
        &self,
        tournament_id: &str,
        round: i64,
        ack: &AlertAck,
    ) -> Result<AlertAck, StoreError> {
        let write =
            TournamentWrite::Acknowledge { tournament_id: tournament_id.to_owned(), round, ack: ack.clone() };
        let text = self.submit(Work::Tournament(write), Reply::Text).await?;
        let (wall_ms, actor) = text
            .split_once(' ')
            .and_then(|(ms, actor)| Some((ms.parse().ok()?, actor.to_owned())))
            .ok_or_else(|| StoreError::Unavailable(format!("unreadable acknowledgement {text:?}")))?;
        Ok(AlertAck { alert_id: ack.alert_id.clone(), actor, wall_ms })
    }

    async fn alert_acks(&self, tournament_id: &str, round: i64) -> Result<Vec<AlertAck>, StoreError> {
        let rows = sqlx::query(
            "SELECT alert_id, actor, wall_ms FROM alert_acks WHERE tournament_id = ?1 AND round_number = ?2",
        )
        .bind(tournament_id)
        .bind(round)
        .fetch_all(&self.inner.read)
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
            "SELECT tournament_id, round_number, board, white, black FROM round_games WHERE game_id = ?1",
        )
        .bind(game_id)
        .fetch_optional(&self.inner.read)
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
            "SELECT request_sha256, target FROM tournament_requests WHERE request_scope = ?1 AND request_id = ?2",
        )
        .bind(scope)
        .bind(request_id)
        .fetch_optional(&self.inner.read)
        .await
        .map_err(unavailable)?;
        row.map(|row| Ok(TournamentRequest { sha256: row.try_get(0)?, target: row.try_get(1)? }))
            .transpose()
            .map_err(unavailable)
    }
}

/// Runs one write inside the writer's job savepoint. The answer is text
/// (the writer's replies are): the round's start for `StartRound`, empty
/// otherwise.
pub(super) async fn apply(
    conn: &mut SqliteConnection,
    write: &TournamentWrite,
) -> Result<String, StoreError> {
    match write {
        TournamentWrite::Create { row, request } => {
            let inserted = sqlx::query(
                "INSERT INTO tournaments (id, creator, created_wall_ms, updated_wall_ms, version, format, spec_json) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .bind(row.id.as_str())
            .bind(row.creator.as_str())
            .bind(row.created_wall_ms)
            .bind(row.updated_wall_ms)
            .bind(row.version)
            .bind(row.format)
            .bind(row.spec_json.as_str())
            .execute(&mut *conn)
            .await;
            match inserted {
                Ok(_) => {}
                Err(e) if matches!(sqlite_code(&e), Some(code::PRIMARY_KEY | code::UNIQUE)) => {
                    // A retried creation finds its request first.
                    record_request(conn, request.as_ref(), "").await?;
                    return Err(StoreError::ResourceExists(format!("events/{}", row.id)));
                }
                Err(e) => return Err(classify(e)),
            }
            record_request(conn, request.as_ref(), &format!("events/{}", row.id)).await?;
            Ok(String::new())
        }
        TournamentWrite::Update { row, request } => {
            let updated = sqlx::query(
                "UPDATE tournaments SET version = ?2, updated_wall_ms = ?3, format = ?4, spec_json = ?5 \
                 WHERE id = ?1 AND version = ?2 - 1",
            )
            .bind(row.id.as_str())
            .bind(row.version)
            .bind(row.updated_wall_ms)
            .bind(row.format)
            .bind(row.spec_json.as_str())
            .execute(&mut *conn)
            .await
            .map_err(classify)?;
            if updated.rows_affected() == 0 {
                let exists = sqlx::query("SELECT 1 FROM tournaments WHERE id = ?1")
                    .bind(row.id.as_str())
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(classify)?;
                return Err(match exists {
                    Some(_) => StoreError::Conflict {
                        game_id: format!("events/{}", row.id),
                        expected: row.version - 1,
                    },
                    None => StoreError::ResourceNotFound(format!("events/{}", row.id)),
                });
            }
            record_request(conn, request.as_ref(), &format!("events/{}", row.id)).await?;
            Ok(String::new())
        }
        TournamentWrite::CreateRound { round, games, request } => {
            let name = round_name(&round.tournament_id, round.number);
            let inserted = sqlx::query(
                "INSERT INTO rounds (tournament_id, number, created_wall_ms, started_wall_ms, format, spec_json) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .bind(round.tournament_id.as_str())
            .bind(round.number)
            .bind(round.created_wall_ms)
            .bind(round.started_wall_ms)
            .bind(round.format)
            .bind(round.spec_json.as_str())
            .execute(&mut *conn)
            .await;
            match inserted {
                Ok(_) => {}
                Err(e) if matches!(sqlite_code(&e), Some(code::PRIMARY_KEY | code::UNIQUE)) => {
                    record_request(conn, request.as_ref(), "").await?;
                    return Err(StoreError::ResourceExists(name));
                }
                Err(e) if sqlite_code(&e) == Some(code::FOREIGN_KEY) => {
                    return Err(StoreError::ResourceNotFound(format!("events/{}", round.tournament_id)));
                }
                Err(e) => return Err(classify(e)),
            }
            for RoundGame { board, white, black, game } in games {
                apply_create_game(conn, game, None, None).await?;
                sqlx::query(
                    "INSERT INTO round_games (game_id, tournament_id, round_number, board, white, black) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .bind(game.id.as_str())
                .bind(round.tournament_id.as_str())
                .bind(round.number)
                .bind(*board)
                .bind(*white)
                .bind(*black)
                .execute(&mut *conn)
                .await
                .map_err(classify)?;
            }
            record_request(conn, request.as_ref(), &name).await?;
            Ok(String::new())
        }
        TournamentWrite::Acknowledge { tournament_id, round, ack } => {
            let inserted = sqlx::query(
                "INSERT INTO alert_acks (tournament_id, round_number, alert_id, actor, wall_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
            )
            .bind(tournament_id.as_str())
            .bind(*round)
            .bind(ack.alert_id.as_str())
            .bind(ack.actor.as_str())
            .bind(ack.wall_ms)
            .execute(&mut *conn)
            .await;
            match inserted {
                Ok(_) => {}
                Err(e) if sqlite_code(&e) == Some(code::FOREIGN_KEY) => {
                    return Err(StoreError::ResourceNotFound(round_name(tournament_id, *round)));
                }
                Err(e) => return Err(classify(e)),
            }
            let (actor, wall_ms): (String, i64) = sqlx::query_as(
                "SELECT actor, wall_ms FROM alert_acks WHERE tournament_id = ?1 AND round_number = ?2 AND alert_id = ?3",
            )
            .bind(tournament_id.as_str())
            .bind(*round)
            .bind(ack.alert_id.as_str())
            .fetch_one(&mut *conn)
            .await
            .map_err(classify)?;
            Ok(format!("{wall_ms} {actor}"))
        }
        TournamentWrite::StartRound { tournament_id, number, wall_ms } => {
            sqlx::query(
                "UPDATE rounds SET started_wall_ms = ?3 \
                 WHERE tournament_id = ?1 AND number = ?2 AND started_wall_ms IS NULL",
            )
            .bind(tournament_id.as_str())
            .bind(*number)
            .bind(*wall_ms)
            .execute(&mut *conn)
            .await
            .map_err(classify)?;
            let start: Option<Option<i64>> = sqlx::query_scalar(
                "SELECT started_wall_ms FROM rounds WHERE tournament_id = ?1 AND number = ?2",
            )
            .bind(tournament_id.as_str())
            .bind(*number)
            .fetch_optional(&mut *conn)
            .await
            .map_err(classify)?;
            match start.flatten() {
                Some(start) => Ok(start.to_string()),
                None => Err(StoreError::ResourceNotFound(round_name(tournament_id, *number))),
            }
        }
    }
}

/// Records a request with what it did. With an empty `target` (the write
/// failed because its resource exists) only checks whether the request id
/// was used in its scope: a retry is then told it is a duplicate, which
/// sends the caller to the original answer.
async fn record_request(
    conn: &mut SqliteConnection,
    request: Option<&(String, RequestOrigin)>,
    target: &str,
) -> Result<(), StoreError> {
    let Some((request_id, origin)) = request else { return Ok(()) };
    if target.is_empty() {
        let used =
            sqlx::query("SELECT 1 FROM tournament_requests WHERE request_scope = ?1 AND request_id = ?2")
                .bind(origin.scope.as_str())
                .bind(request_id.as_str())
                .fetch_optional(&mut *conn)
                .await
                .map_err(classify)?;
        return match used {
            Some(_) => Err(StoreError::DuplicateRequest { request_id: request_id.clone() }),
            None => Ok(()),
        };
    }
    let recorded = sqlx::query(
        "INSERT INTO tournament_requests (request_scope, request_id, request_sha256, target) VALUES (?1, ?2, ?3, ?4)",
    )
    .bind(origin.scope.as_str())
    .bind(request_id.as_str())
    .bind(origin.sha256.as_str())
    .bind(target)
    .execute(&mut *conn)
    .await;
    match recorded {
        Ok(_) => Ok(()),
        Err(e) if matches!(sqlite_code(&e), Some(code::PRIMARY_KEY | code::UNIQUE)) => {
            Err(StoreError::DuplicateRequest { request_id: request_id.clone() })
        }
        Err(e) => Err(classify(e)),
    }
}
