//! The embedded SQLite backend.
//!
//! # Design
//!
//! SQLite allows one writer at a time and every durable commit costs an
//! `fsync` (the database runs with `synchronous = FULL`, so an acknowledged
//! append survives a power cut). Committing each append on its own would cap
//! the service at a few hundred appends per second, so writes go through
//! **group commit**:
//!
//! - a single writer task owns the only write connection; `append`,
//!   `create_game`, `insert_token` and `meta_get_or_insert` send their work
//!   with a oneshot reply over a bounded channel;
//! - the writer takes everything queued (up to [`MAX_BATCH`] jobs), runs it
//!   in one `BEGIN IMMEDIATE ... COMMIT` transaction, each job inside its own
//!   `SAVEPOINT` (a one-event append needs none, see `append_chunk_sql`), so
//!   a job that fails (conflict, duplicate request id, unknown game) is
//!   rolled back alone and the others still commit;
//! - callers are answered only after `COMMIT` returned, so an `Ok` always
//!   means "on disk". If anything fails at the database level (disk full,
//!   I/O error, busy), the whole batch is rolled back, every caller of the
//!   batch gets [`StoreError::Unavailable`], and the writer carries on with
//!   the next batch, reconnecting if the connection is left in doubt.
//!
//! Reads use a separate pool: in WAL mode readers see the last committed
//! state without waiting for the writer.
//!
//! After each commit the writer announces the batch's appends to the
//! store's subscribers (see [`EventStore::subscribe`]), before answering
//! their callers. It only knows of its own appends: another process writing
//! the same file goes unannounced, which is why several replicas need the
//! PostgreSQL backend.
//!
//! Two things keep the writer fast enough for thousands of appends per
//! second on a small machine:
//!
//! - sqlx runs each SQLite connection on a thread of its own, so every
//!   statement is a round trip between threads, which costs more than
//!   SQLite's work on it. Runs of one-event appends (one move each, the bulk
//!   of the traffic) are therefore sent as chunks of up to 64 appends in one
//!   multi-statement command (see `append_chunk_sql`);
//! - copying the WAL back into the database (a checkpoint) writes and syncs
//!   the database file. A background task does it every 200 ms on its own
//!   connection, alongside the writer; the writer only completes it once
//!   the WAL reaches 160 MB, which is what lets SQLite start the WAL afresh.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, Connection, Executor, Row, SqlSafeStr, SqlStr};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_stream::StreamExt;

use super::{
    Append, CreationRequest, EventRow, EventStore, GameFilter, GameRow, InPlay, MAX_LIST_ROWS,
    ObservationRow, PlayerTokenRevocation, RequestOrigin, RevocationRequest, SUBSCRIPTION_CAPACITY,
    StoreError, StoredView, TokenRow, UnknownStatus, stored_view, validate_append,
};

mod tournament;

/// The most jobs committed in one transaction. Large enough to amortise the
/// commit's `fsync` over a thousand busy games, small enough that one batch
/// stays a few milliseconds of work, which bounds the latency of the jobs
/// queued behind it.
pub const MAX_BATCH: usize = 512;

/// Jobs waiting for the writer before senders are made to wait: this is the
/// back-pressure that keeps a stalled disk from turning into unbounded memory.
const QUEUE_CAPACITY: usize = 4 * MAX_BATCH;

/// How long a connection waits for a lock held by another process (another
/// tool or replica opening the same file) before reporting `SQLITE_BUSY`.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Read connections. Reads are short index lookups and the machine has few
/// cores; a handful lets them overlap with each other and with the writer.
const READ_CONNECTIONS: u32 = 4;

/// How long a read waits for a free connection before giving up.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// How often the background checkpointer copies the WAL into the database.
/// A checkpoint run by the writer itself would stall every append queued
/// behind it (it writes and syncs the database file); run from another
/// connection it proceeds alongside the writer's commits.
const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(200);

/// WAL length (pages) at which the writer checkpoints after a commit. The
/// background checkpointer normally leaves little for it to copy; this
/// checkpoint is what lets the next transaction rewind the WAL to its start
/// (a background one rarely finishes between two batches under load), and
/// it keeps the WAL bounded if the checkpointer falls behind. It stalls the
/// writer for the copy and the `fsync` of the database file (5 to 13 ms on
/// the development VM), and a move writes about 12 KiB of WAL: at 6,000
/// moves a second, 10,000 pages came round every 0.55 s, often enough to
/// put these stalls in the p99 of the moves. 40,000 pages are 160 MB with
/// the default 4 KiB pages.
const WRITER_AUTOCHECKPOINT_PAGES: &str = "40000";

/// A rewound WAL file larger than this is truncated (bytes). Above the
/// WAL's usual length (see [`WRITER_AUTOCHECKPOINT_PAGES`]), so that a
/// busy WAL is reused rather than cut and grown again.
const WAL_SIZE_LIMIT: &str = "201326592";

/// Embedded migrations: `migrations/sqlite/*.sql`, applied in order on open.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/sqlite");

/// SQLite's extended result codes that the store tells apart.
mod code {
    /// `SQLITE_CONSTRAINT`, the primary code of every constraint violation.
    pub const CONSTRAINT: i32 = 19;
    /// `SQLITE_CONSTRAINT_CHECK`.
    pub const CHECK: i32 = 275;
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
    pub const FOREIGN_KEY: i32 = 787;
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    pub const PRIMARY_KEY: i32 = 1555;
    /// `SQLITE_CONSTRAINT_UNIQUE` (a UNIQUE column or index).
    pub const UNIQUE: i32 = 2067;
}

/// The columns of a [`GameRow`], in the order [`game_from_row`] reads them.
macro_rules! game_columns {
    () => {
        "id, request_id, created_wall_ms, event_name, round, white, black, spec_json, status, result, \
         last_seq, updated_wall_ms, spec_format, view_json, view_format, creator"
    };
}

/// The columns of an [`EventRow`], in the order [`event_from_row`] reads them.
macro_rules! event_columns {
    () => {
        "game_id, seq, request_id, actor, at_ms, wall_ms, event_json, rulings_json, format, request_scope, \
         request_sha256"
    };
}

/// The embedded SQLite store. Cloning is cheap and every clone talks to the
/// same writer and read pool.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// The writer's queue. The writer stops once every sender is gone or
    /// after a [`Message::Close`].
    writer: mpsc::Sender<Message>,
    read: SqlitePool,
    /// Where the writer announces committed appends (see
    /// [`EventStore::subscribe`]); subscribers get receivers from it.
    appended: broadcast::Sender<(String, i64)>,
}

impl SqliteStore {
    /// Opens (creating it if missing) the database at `url`, such as
    /// `sqlite://arbiter.db` or `sqlite::memory:`, and applies the
    /// migrations.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a malformed URL,
    /// [`StoreError::Unavailable`] if the database cannot be opened or
    /// migrated.
    pub async fn open(url: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|e| StoreError::Invalid(format!("malformed SQLite URL: {e}")))?;
        Self::open_with(options.create_if_missing(true)).await
    }

    /// Opens the database described by `options` (which may carry extra
    /// pragmas, e.g. `max_page_count` to exercise a full disk). The store
    /// overrides the settings its guarantees depend on: WAL journal,
    /// `synchronous = FULL`, foreign keys and a busy timeout.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] if the database cannot be opened or
    /// migrated.
    pub async fn open_with(options: SqliteConnectOptions) -> Result<SqliteStore, StoreError> {
        let options = options
            // WAL lets the read pool work while the writer commits, and turns
            // a commit into one sequential write plus one fsync of the log.
            .journal_mode(SqliteJournalMode::Wal)
            // FULL syncs the WAL at every commit: an acknowledged append
            // survives power loss (NORMAL would only survive a crash).
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);

        // The writer connection is opened first: it creates the file, switches
        // it to WAL and applies the migrations before any reader looks at it.
        // Its result channel holds a whole append chunk, so the connection's
        // thread never waits for the writer task to catch up mid-chunk.
        let writer_options = options
            .clone()
            .row_buffer_size(CHUNK_SIZES[0] * STATEMENTS_PER_APPEND + STATEMENTS_PER_APPEND)
            .pragma("wal_autocheckpoint", WRITER_AUTOCHECKPOINT_PAGES)
            .pragma("journal_size_limit", WAL_SIZE_LIMIT);
        let mut conn = SqliteConnection::connect_with(&writer_options).await.map_err(unavailable)?;
        MIGRATOR
            .run(&mut conn)
            .await
            .map_err(|e| StoreError::Unavailable(format!("migrating the SQLite database: {e}")))?;

        // Readers keep their connections for the life of the store: for an
        // in-memory database (a shared-cache name) the data lives only as
        // long as some connection to it is open.
        let read = SqlitePoolOptions::new()
            .max_connections(READ_CONNECTIONS)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options.clone().pragma("query_only", "ON"))
            .await
            .map_err(unavailable)?;

        // An in-memory database has no WAL (its journal mode stays
        // `memory`), hence nothing to checkpoint.
        let journal_mode: String =
            sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&mut conn).await.map_err(unavailable)?;
        let wal = journal_mode.eq_ignore_ascii_case("wal");

        let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
        let chunks = CHUNK_SIZES.iter().map(|&size| append_chunk_sql(size)).collect();
        let checkpointer = wal.then(|| {
            let (stop, stopped) = oneshot::channel();
            (stop, tokio::spawn(checkpointer(options.clone(), stopped)))
        });
        let (appended, _) = broadcast::channel(SUBSCRIPTION_CAPACITY);
        let writer = Writer {
            conn: Some(conn),
            options: writer_options,
            chunks,
            checkpointer,
            appended: appended.clone(),
        };
        tokio::spawn(writer.run(receiver));
        Ok(SqliteStore { inner: Arc::new(Inner { writer: sender, read, appended }) })
    }

    /// Queues a job for the writer and waits for its answer, which comes only
    /// after the job's transaction committed (or failed).
    async fn submit<T>(
        &self,
        work: Work,
        reply: impl FnOnce(oneshot::Sender<Result<T, StoreError>>) -> Reply,
    ) -> Result<T, StoreError> {
        let (sender, answer) = oneshot::channel();
        self.inner
            .writer
            .send(Message::Job(Job { work, reply: reply(sender) }))
            .await
            .map_err(|_| writer_stopped())?;
        answer.await.map_err(|_| writer_stopped())?
    }
}

fn writer_stopped() -> StoreError {
    StoreError::Unavailable("the SQLite writer has stopped".to_owned())
}

impl EventStore for SqliteStore {
    async fn create_game(&self, game: &GameRow) -> Result<(), StoreError> {
        if game.last_seq != 0 {
            return Err(StoreError::Invalid(format!(
                "a new game starts with last_seq 0, not {}",
                game.last_seq
            )));
        }
        self.submit(Work::CreateGame { game: game.clone(), request: None, cap: None }, Reply::Unit).await
    }

    async fn create_game_capped(&self, game: &GameRow, max_open: u64) -> Result<(), StoreError> {
        if game.last_seq != 0 {
            return Err(StoreError::Invalid(format!(
                "a new game starts with last_seq 0, not {}",
                game.last_seq
            )));
        }
        self.submit(Work::CreateGame { game: game.clone(), request: None, cap: Some(max_open) }, Reply::Unit)
            .await
    }

    async fn create_requested_game(
        &self,
        game: &GameRow,
        request_id: &str,
        origin: &RequestOrigin,
        cap: Option<u64>,
    ) -> Result<(), StoreError> {
        if game.last_seq != 0 {
            return Err(StoreError::Invalid(format!(
                "a new game starts with last_seq 0, not {}",
                game.last_seq
            )));
        }
        let request = Some((request_id.to_owned(), origin.clone()));
        self.submit(Work::CreateGame { game: game.clone(), request, cap }, Reply::Unit).await
    }

    async fn creation_request(
        &self,
        scope: &str,
        request_id: &str,
    ) -> Result<Option<CreationRequest>, StoreError> {
        let row = sqlx::query(
            "SELECT game_id, request_sha256 FROM creation_requests WHERE request_scope = ?1 AND request_id = ?2",
        )
        .bind(scope)
        .bind(request_id)
        .fetch_optional(&self.inner.read)
        .await
        .map_err(unavailable)?;
        row.map(|row| Ok(CreationRequest { game_id: row.try_get(0)?, sha256: row.try_get(1)? }))
            .transpose()
            .map_err(unavailable)
    }

    async fn game(&self, id: &str) -> Result<Option<GameRow>, StoreError> {
        let row = sqlx::query(concat!("SELECT ", game_columns!(), " FROM games WHERE id = ?1"))
            .bind(id)
            .fetch_optional(&self.inner.read)
            .await
            .map_err(unavailable)?;
        row.as_ref().map(game_from_row).transpose().map_err(unavailable)
    }

    async fn game_by_request(&self, request_id: &str) -> Result<Option<GameRow>, StoreError> {
        let row = sqlx::query(concat!("SELECT ", game_columns!(), " FROM games WHERE request_id = ?1"))
            .bind(request_id)
            .fetch_optional(&self.inner.read)
            .await
            .map_err(unavailable)?;
        row.as_ref().map(game_from_row).transpose().map_err(unavailable)
    }

    async fn list_games(&self, filter: &GameFilter) -> Result<Vec<GameRow>, StoreError> {
        // The statement is assembled from fixed fragments only (every value
        // is a bound parameter), one variant per combination of filters, so
        // that each variant can use the matching index; a single statement
        // with `?1 IS NULL OR ...` terms would defeat the planner.
        let mut sql = String::from(concat!("SELECT ", game_columns!(), " FROM games WHERE 1 = 1"));
        if filter.event_name.is_some() {
            sql.push_str(" AND event_name = ?");
        }
        if filter.round.is_some() {
            sql.push_str(" AND round = ?");
        }
        if filter.status.is_some() {
            sql.push_str(" AND status = ?");
        }
        if filter.after_id.is_some() {
            sql.push_str(" AND id > ?");
        }
        sql.push_str(" ORDER BY id LIMIT ?");

        let mut query = sqlx::query(AssertSqlSafe(sql));
        let status = filter.status.map(|s| s.as_str());
        for value in
            [filter.event_name.as_deref(), filter.round.as_deref(), status, filter.after_id.as_deref()]
                .into_iter()
                .flatten()
        {
            query = query.bind(value);
        }
        let rows = query
            .bind(i64::from(filter.limit.clamp(1, MAX_LIST_ROWS)))
            .fetch_all(&self.inner.read)
            .await
            .map_err(unavailable)?;
        rows.iter().map(game_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn games_without_view(&self, after_id: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar("SELECT id FROM games WHERE view_json IS NULL AND status <> 'IN_PROGRESS' AND id > ?1 ORDER BY id LIMIT ?2")
            .bind(after_id)
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.inner.read)
            .await
            .map_err(unavailable)
    }

    async fn put_view(&self, game_id: &str, last_seq: i64, view: &StoredView) -> Result<(), StoreError> {
        let work = Work::PutView { game_id: game_id.to_owned(), last_seq, view: view.clone() };
        self.submit(work, Reply::Unit).await
    }

    async fn games_in_play(&self) -> Result<Vec<InPlay>, StoreError> {
        let rows: Vec<(String, Option<i64>, i64)> = sqlx::query_as(
            "SELECT id, deadline_wall_ms, updated_wall_ms FROM games WHERE status = 'IN_PROGRESS' ORDER BY id",
        )
        .fetch_all(&self.inner.read)
        .await
        .map_err(unavailable)?;
        Ok(rows.into_iter().map(InPlay::from).collect())
    }

    async fn pending_created_before(
        &self,
        cutoff_wall_ms: i64,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar(
            "SELECT id FROM games WHERE status = 'PENDING' AND created_wall_ms < ?1 \
             ORDER BY created_wall_ms, id LIMIT ?2",
        )
        .bind(cutoff_wall_ms)
        .bind(i64::from(limit))
        .fetch_all(&self.inner.read)
        .await
        .map_err(unavailable)
    }

    async fn events(&self, game_id: &str, after_seq: i64, limit: u32) -> Result<Vec<EventRow>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            event_columns!(),
            " FROM game_events WHERE game_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"
        ))
        .bind(game_id)
        .bind(after_seq)
        .bind(i64::from(limit))
        .fetch_all(&self.inner.read)
        .await
        .map_err(unavailable)?;
        rows.iter().map(event_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn event_by_request(
        &self,
        game_id: &str,
        request_id: &str,
    ) -> Result<Option<EventRow>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            event_columns!(),
            " FROM game_events WHERE game_id = ?1 AND request_id = ?2 ORDER BY seq LIMIT 1"
        ))
        .bind(game_id)
        .bind(request_id)
        .fetch_optional(&self.inner.read)
        .await
        .map_err(unavailable)?;
        row.as_ref().map(event_from_row).transpose().map_err(unavailable)
    }

    async fn append(&self, append: Append) -> Result<(), StoreError> {
        // Contract violations are caught here, before queueing, so they never
        // occupy a slot in a batch.
        validate_append(&append)?;
        self.submit(Work::Append(append), Reply::Unit).await
    }

    async fn insert_token(&self, token: &TokenRow) -> Result<(), StoreError> {
        self.submit(Work::InsertToken(token.clone()), Reply::Unit).await
    }

    async fn keep_observation(&self, row: &ObservationRow) -> Result<bool, StoreError> {
        Ok(self.submit(Work::KeepObservation(row.clone()), Reply::Text).await? == "kept")
    }

    async fn observations(
        &self,
        game_id: &str,
        device_id: i64,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<ObservationRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT game_id, device_id, device_seq, device_time_ms, format, report_json, received_wall_ms \
             FROM board_observations WHERE game_id = ?1 AND device_id = ?2 AND device_seq > ?3 \
             ORDER BY device_seq LIMIT ?4",
        )
        .bind(game_id)
        .bind(device_id)
        .bind(after_seq)
        .bind(i64::from(limit.min(MAX_LIST_ROWS)))
        .fetch_all(&self.inner.read)
        .await
        .map_err(unavailable)?;
        rows.iter().map(observation_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn token(&self, id: &str) -> Result<Option<TokenRow>, StoreError> {
        let row =
            sqlx::query(
                "SELECT id, secret_sha256, role, label, created_wall_ms, revoked_wall_ms FROM tokens WHERE id = ?1",
            )
                .bind(id)
                .fetch_optional(&self.inner.read)
                .await
                .map_err(unavailable)?;
        row.as_ref().map(token_from_row).transpose().map_err(unavailable)
    }

    async fn token_count(&self) -> Result<u64, StoreError> {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tokens")
            .fetch_one(&self.inner.read)
            .await
            .map_err(unavailable)?;
        u64::try_from(count).map_err(|e| StoreError::Unavailable(format!("token count {count}: {e}")))
    }

    async fn tokens(&self) -> Result<Vec<TokenRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, secret_sha256, role, label, created_wall_ms, revoked_wall_ms FROM tokens \
             ORDER BY created_wall_ms, id",
        )
        .fetch_all(&self.inner.read)
        .await
        .map_err(unavailable)?;
        rows.iter().map(token_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn player_token_generations(&self, game_id: &str) -> Result<[u32; 2], StoreError> {
        let rows = sqlx::query(
            "SELECT color, MAX(generation) FROM player_token_revocations WHERE game_id = ?1 GROUP BY color",
        )
        .bind(game_id)
        .fetch_all(&self.inner.read)
        .await
        .map_err(unavailable)?;
        let rows = rows
            .iter()
            .map(|row| Ok((row.try_get::<String, _>(0)?, row.try_get::<i64, _>(1)?)))
            .collect::<Result<Vec<_>, sqlx::Error>>()
            .map_err(unavailable)?;
        super::generations_from_rows(rows)
    }

    async fn revoke_player_tokens(&self, revocation: &PlayerTokenRevocation) -> Result<[u32; 2], StoreError> {
        let answer = self.submit(Work::RevokePlayerTokens(revocation.clone()), Reply::Text).await?;
        super::decode_generations(&answer)
    }

    async fn revocation_request(
        &self,
        game_id: &str,
        scope: &str,
        request_id: &str,
    ) -> Result<Option<RevocationRequest>, StoreError> {
        let rows = sqlx::query(
            "SELECT color, generation, request_sha256 FROM player_token_revocations \
             WHERE game_id = ?1 AND request_scope = ?2 AND request_id = ?3",
        )
        .bind(game_id)
        .bind(scope)
        .bind(request_id)
        .fetch_all(&self.inner.read)
        .await
        .map_err(unavailable)?;
        let rows = rows
            .iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
            .collect::<Result<Vec<(String, i64, String)>, sqlx::Error>>()
            .map_err(unavailable)?;
        super::revocation_from_rows(rows)
    }

    async fn revoke_token(&self, id: &str, now_wall_ms: i64) -> Result<bool, StoreError> {
        let work = Work::RevokeToken { id: id.to_owned(), now_wall_ms };
        Ok(self.submit(work, Reply::Text).await? == "revoked")
    }

    async fn meta_get(&self, key: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT value FROM meta WHERE key = ?1")
            .bind(key)
            .fetch_optional(&self.inner.read)
            .await
            .map_err(unavailable)
    }

    async fn meta_delete(&self, key: &str) -> Result<(), StoreError> {
        self.submit(Work::MetaDelete(key.to_owned()), Reply::Unit).await
    }

    async fn meta_get_or_insert(&self, key: &str, default: &str) -> Result<String, StoreError> {
        let work = Work::Meta { key: key.to_owned(), default: default.to_owned() };
        self.submit(work, Reply::Text).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        // A store whose writer is gone can still read but cannot serve, so it
        // is not ready.
        if self.inner.writer.is_closed() {
            return Err(writer_stopped());
        }
        sqlx::query("SELECT 1").execute(&self.inner.read).await.map_err(unavailable)?;
        Ok(())
    }

    async fn close(&self) {
        let (ack, done) = oneshot::channel();
        // The writer handles the close request after everything queued before
        // it, so waiting for the acknowledgement flushes the queue. If the
        // writer is already gone there is nothing left to flush.
        if self.inner.writer.send(Message::Close(ack)).await.is_ok() {
            let _ = done.await;
        }
        self.inner.read.close().await;
    }

    fn subscribe(&self) -> broadcast::Receiver<(String, i64)> {
        self.inner.appended.subscribe()
    }

    async fn heartbeat(&self, replica_id: &str, now_wall_ms: i64) -> Result<(), StoreError> {
        let work = Work::Heartbeat { replica_id: replica_id.to_owned(), now_wall_ms };
        self.submit(work, Reply::Unit).await
    }

    async fn live_replicas(&self, now_wall_ms: i64, max_age_ms: i64) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar("SELECT id FROM replicas WHERE seen_wall_ms >= ?1 ORDER BY id")
            .bind(now_wall_ms.saturating_sub(max_age_ms))
            .fetch_all(&self.inner.read)
            .await
            .map_err(unavailable)
    }

    async fn record_outage(&self, last_alive_wall_ms: i64, resumed_wall_ms: i64) -> Result<(), StoreError> {
        self.submit(Work::Outage { last_alive_wall_ms, resumed_wall_ms }, Reply::Unit).await
    }

    async fn outages(&self) -> Result<Vec<(i64, i64)>, StoreError> {
        sqlx::query_as("SELECT last_alive_wall_ms, resumed_wall_ms FROM outages ORDER BY resumed_wall_ms")
            .fetch_all(&self.inner.read)
            .await
            .map_err(unavailable)
    }

    async fn last_heartbeat(&self) -> Result<Option<i64>, StoreError> {
        sqlx::query_scalar("SELECT MAX(seen_wall_ms) FROM replicas")
            .fetch_one(&self.inner.read)
            .await
            .map_err(unavailable)
    }
}

/// A message to the writer.
#[expect(
    clippy::large_enum_variant,
    reason = "nearly every message is a job; boxing it would only add an allocation per append"
)]
enum Message {
    Job(Job),
    /// Flush what is queued, close the connection, then acknowledge.
    Close(oneshot::Sender<()>),
}

/// One write, run in its own savepoint of a batch.
struct Job {
    work: Work,
    reply: Reply,
}

enum Work {
    Append(Append),
    /// A game, the `CreateGame` request (its id and origin) that makes it,
    /// and the cap on its creator's unfinished games.
    CreateGame {
        game: GameRow,
        request: Option<(String, RequestOrigin)>,
        cap: Option<u64>,
    },
    PutView {
        game_id: String,
        last_seq: i64,
        view: StoredView,
    },
    InsertToken(TokenRow),
    KeepObservation(ObservationRow),
    RevokeToken {
        id: String,
        now_wall_ms: i64,
    },
    RevokePlayerTokens(PlayerTokenRevocation),
    Meta {
        key: String,
        default: String,
    },
    MetaDelete(String),
    Heartbeat {
        replica_id: String,
        now_wall_ms: i64,
    },
    Outage {
        last_alive_wall_ms: i64,
        resumed_wall_ms: i64,
    },
    /// A write of a tournament or round (see `tournament`).
    Tournament(tournament::TournamentWrite),
}

/// Where a job's answer goes. Every job produces a `String` internally (the
/// meta value, empty for the others) so that batches stay homogeneous.
enum Reply {
    Unit(oneshot::Sender<Result<(), StoreError>>),
    Text(oneshot::Sender<Result<String, StoreError>>),
}

impl Reply {
    fn send(self, outcome: Result<String, StoreError>) {
        // A caller that stopped waiting (its request was cancelled) just
        // misses the answer; the write itself stands.
        match self {
            Reply::Unit(sender) => {
                let _ = sender.send(outcome.map(drop));
            }
            Reply::Text(sender) => {
                let _ = sender.send(outcome);
            }
        }
    }
}

/// The task that owns the write connection.
struct Writer {
    /// `None` after a failure left the connection in doubt; the next batch
    /// opens a new one.
    conn: Option<SqliteConnection>,
    options: SqliteConnectOptions,
    /// [`append_chunk_sql`] for each of [`CHUNK_SIZES`].
    chunks: Vec<SqlStr>,
    /// The background [`checkpointer`] (file databases only) and its stop
    /// signal: it lives as long as the writer.
    checkpointer: Option<(oneshot::Sender<()>, tokio::task::JoinHandle<()>)>,
    /// Committed appends are announced here (see [`EventStore::subscribe`]).
    appended: broadcast::Sender<(String, i64)>,
}

impl Writer {
    async fn run(mut self, mut receiver: mpsc::Receiver<Message>) {
        let mut messages = Vec::with_capacity(MAX_BATCH);
        let mut acks = Vec::new();
        // `recv_many` returns 0 only once the queue is closed (every sender
        // dropped, or a close request) and drained.
        while receiver.recv_many(&mut messages, MAX_BATCH).await > 0 {
            let mut jobs = Vec::with_capacity(messages.len());
            for message in messages.drain(..) {
                match message {
                    Message::Job(job) => jobs.push(job),
                    Message::Close(ack) => {
                        // New requests are refused from now on; those
                        // already queued are still served.
                        receiver.close();
                        acks.push(ack);
                    }
                }
            }
            if !jobs.is_empty() {
                self.run_batch(jobs).await;
            }
        }
        // The checkpointer stops first, so that the writer's connection is
        // the last to close: SQLite then checkpoints the whole WAL and
        // removes it.
        if let Some((stop, checkpointer)) = self.checkpointer.take() {
            let _ = stop.send(());
            if let Err(e) = checkpointer.await {
                tracing::warn!(error = %e, "the SQLite checkpointer failed");
            }
        }
        if let Some(conn) = self.conn.take()
            && let Err(e) = conn.close().await
        {
            tracing::warn!(error = %e, "closing the SQLite write connection");
        }
        for ack in acks {
            let _ = ack.send(());
        }
    }

    /// Runs the jobs in one transaction and answers them once it is settled.
    async fn run_batch(&mut self, jobs: Vec<Job>) {
        match self.try_batch(&jobs).await {
            Ok(outcomes) => {
                for (job, outcome) in jobs.into_iter().zip(outcomes) {
                    // The batch is committed: announce its appends before
                    // answering them, so that a caller whose append returned
                    // finds the notification already queued for its own
                    // subscribers. Sending fails only when nobody listens.
                    if outcome.is_ok()
                        && let Work::Append(append) = &job.work
                        && let Some(last) = append.events.last()
                    {
                        let _ = self.appended.send((append.game_id.clone(), last.seq));
                    }
                    job.reply.send(outcome);
                }
            }
            Err(reason) => {
                tracing::error!(jobs = jobs.len(), %reason, "SQLite write batch failed and was rolled back");
                self.roll_back().await;
                for job in jobs {
                    job.reply.send(Err(StoreError::Unavailable(reason.clone())));
                }
            }
        }
    }

    /// Runs the jobs, each in a savepoint, and commits. `Ok` holds one
    /// outcome per job and means the transaction committed; `Err` means
    /// nothing of the batch may be assumed written.
    async fn try_batch(&mut self, jobs: &[Job]) -> Result<Vec<Result<String, StoreError>>, String> {
        if self.conn.is_none() {
            let conn = SqliteConnection::connect_with(&self.options)
                .await
                .map_err(|e| format!("reopening the SQLite write connection: {e}"))?;
            tracing::info!("reopened the SQLite write connection");
            self.conn = Some(conn);
        }
        let conn = self.conn.as_mut().ok_or_else(|| "no SQLite write connection".to_owned())?;

        // IMMEDIATE takes the write lock now rather than at the first write,
        // so another process holding it makes us wait (busy timeout) instead
        // of failing halfway through the batch.
        let started = std::time::Instant::now();
        exec(conn, "BEGIN IMMEDIATE").await?;
        let mut outcomes = Vec::with_capacity(jobs.len());
        while outcomes.len() < jobs.len() {
            let rest = &jobs[outcomes.len()..];
            // Runs of one-event appends (the bulk of the traffic: one move
            // each) go in chunks, everything else one job at a time.
            let run: Vec<_> = rest.iter().map_while(one_event_append).take(CHUNK_SIZES[0]).collect();
            match CHUNK_SIZES.iter().zip(&self.chunks).find(|(size, _)| **size <= run.len()) {
                Some((&size, sql)) => run_append_chunk(conn, sql, &run[..size], &mut outcomes).await?,
                None => outcomes.push(run_job(conn, &rest[0].work).await?),
            }
        }
        let committing = std::time::Instant::now();
        exec(conn, "COMMIT").await?;
        tracing::trace!(
            jobs = jobs.len(),
            work_us = committing.duration_since(started).as_micros(),
            commit_us = committing.elapsed().as_micros(),
            "committed a batch"
        );
        Ok(outcomes)
    }

    /// Rolls back whatever is left of a failed batch. If even that fails, the
    /// connection's state is unknown, so it is dropped (closing a connection
    /// rolls back its transaction) and the next batch opens a fresh one.
    async fn roll_back(&mut self) {
        let Some(conn) = self.conn.as_mut() else { return };
        match sqlx::query("ROLLBACK").execute(&mut *conn).await {
            Ok(_) => {}
            // SQLite already rolled the transaction back itself (it does on
            // some I/O and disk-full errors) or it never began.
            Err(e) if !may_leave_transaction_open(&e) => {}
            Err(e) => {
                tracing::warn!(error = %e, "rollback failed; dropping the SQLite write connection");
                self.conn = None;
            }
        }
    }
}

/// Copies committed WAL pages into the database file every
/// [`CHECKPOINT_INTERVAL`], on a connection of its own, until `stop` fires
/// (or its sender, the writer, is gone). `PASSIVE` never waits for (nor
/// blocks) the writer or the readers; whatever it cannot copy now it copies
/// next time.
async fn checkpointer(options: SqliteConnectOptions, mut stop: oneshot::Receiver<()>) {
    let mut conn: Option<SqliteConnection> = None;
    let mut ticks = tokio::time::interval(CHECKPOINT_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = &mut stop => break,
        }
        if conn.is_none() {
            match SqliteConnection::connect_with(&options).await {
                Ok(opened) => conn = Some(opened),
                Err(e) => {
                    tracing::warn!(error = %e, "opening the SQLite checkpoint connection");
                    continue;
                }
            }
        }
        let Some(open) = conn.as_mut() else { continue };
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)").execute(&mut *open).await {
            // A disk error here also shows up in the writer's commits; start
            // afresh next time.
            tracing::warn!(error = %e, "SQLite checkpoint failed");
            conn = None;
        }
    }
    if let Some(conn) = conn
        && let Err(e) = conn.close().await
    {
        tracing::warn!(error = %e, "closing the SQLite checkpoint connection");
    }
}

/// Whether a failed `ROLLBACK` may have left a transaction open. Only
/// "cannot rollback - no transaction is active" (plain `SQLITE_ERROR`) proves
/// there is none.
fn may_leave_transaction_open(e: &sqlx::Error) -> bool {
    sqlite_code(e) != Some(1)
}

/// Executes statements without arguments, reducing an error to a reason.
async fn exec(conn: &mut SqliteConnection, sql: &'static str) -> Result<(), String> {
    sqlx::query(sql).execute(conn).await.map(drop).map_err(|e| format!("{sql}: {e}"))
}

/// Runs one job in its own savepoint. `Err` is a database failure that
/// abandons the batch; a refused job is an `Ok(Err(refusal))` whose writes
/// were rolled back.
async fn run_job(conn: &mut SqliteConnection, work: &Work) -> Result<Result<String, StoreError>, String> {
    exec(conn, "SAVEPOINT job").await?;
    match apply(conn, work).await {
        Ok(value) => {
            exec(conn, "RELEASE job").await?;
            Ok(Ok(value))
        }
        Err(StoreError::Unavailable(reason)) => Err(reason),
        Err(refusal) => {
            exec(conn, "ROLLBACK TO job; RELEASE job").await?;
            Ok(Err(refusal))
        }
    }
}

async fn apply(conn: &mut SqliteConnection, work: &Work) -> Result<String, StoreError> {
    match work {
        Work::Append(append) => apply_append(conn, append).await.map(|()| String::new()),
        Work::CreateGame { game, request, cap } => {
            apply_create_game(conn, game, request.as_ref(), *cap).await.map(|()| String::new())
        }
        Work::PutView { game_id, last_seq, view } => {
            apply_put_view(conn, game_id, *last_seq, view).await.map(|()| String::new())
        }
        Work::InsertToken(token) => apply_insert_token(conn, token).await.map(|()| String::new()),
        Work::KeepObservation(row) => apply_keep_observation(conn, row).await,
        Work::RevokeToken { id, now_wall_ms } => apply_revoke_token(conn, id, *now_wall_ms).await,
        Work::RevokePlayerTokens(revocation) => apply_revoke_player_tokens(conn, revocation).await,
        Work::Meta { key, default } => apply_meta(conn, key, default).await,
        Work::MetaDelete(key) => {
            sqlx::query("DELETE FROM meta WHERE key = ?1")
                .bind(key)
                .execute(&mut *conn)
                .await
                .map_err(classify)?;
            Ok(String::new())
        }
        Work::Heartbeat { replica_id, now_wall_ms } => {
            apply_heartbeat(conn, replica_id, *now_wall_ms).await.map(|()| String::new())
        }
        Work::Outage { last_alive_wall_ms, resumed_wall_ms } => {
            sqlx::query(
                "INSERT OR IGNORE INTO outages (last_alive_wall_ms, resumed_wall_ms) VALUES (?1, ?2)",
            )
            .bind(*last_alive_wall_ms)
            .bind(*resumed_wall_ms)
            .execute(&mut *conn)
            .await
            .map_err(classify)?;
            Ok(String::new())
        }
        Work::Tournament(write) => tournament::apply(conn, write).await,
    }
}

/// Chunk sizes for runs of one-event appends, largest first. A run is cut
/// greedily (a run of 70 is 64 + 4 + 1 + 1), so any run takes a handful of
/// round trips, and only these few statements are ever prepared and cached.
const CHUNK_SIZES: [usize; 4] = [64, 16, 4, 1];

/// Statements per append in a chunk (see [`append_chunk_sql`]).
const STATEMENTS_PER_APPEND: usize = 3;

/// The SQL of a chunk of `size` one-event appends: for each, in one string,
///
/// ```sql
/// INSERT INTO game_events (...) VALUES (<game>,
///     CASE (SELECT last_seq FROM games WHERE id = <game>) WHEN <expected> THEN <seq> ELSE 0 END, ...);
/// UPDATE games SET last_seq = <seq>, ... WHERE id = <game> AND last_seq = <expected>;
/// UPDATE games SET status = <status>, result = <result>
///     WHERE id = <game> AND last_seq = <seq> AND (status IS NOT <status> OR result IS NOT <result>);
/// ```
///
/// This is the compare-and-set of [`apply_append`], sent to the
/// connection's thread as one command instead of one per statement: the
/// round trips, not SQLite, are what limits a batch.
///
/// The event is inserted first and carries the compare-and-set: when the
/// game's `last_seq` is not the one the append expects (or there is no such
/// game), the event gets seq 0, which `CHECK (seq >= 1)` refuses. A refused
/// statement leaves nothing behind (SQLite undoes a failed statement alone),
/// and the append's other statements come after it, so a refusal needs no
/// savepoint to undo: the chunk stops right at the refused append, the
/// appends before it written, exactly as if they had run one by one. Once
/// the event is in, the two `UPDATE`s cannot miss: the writer holds the
/// database's only write lock, and the primary key (game_id, seq) would
/// refuse a second event with the same seq anyway. The status and result
/// are written by an `UPDATE` of their own that matches only when they
/// change (see [`apply_append`]).
///
/// The placeholders are anonymous and bound in order of appearance (see
/// [`run_append_chunk`]): sqlx numbers anonymous placeholders across the
/// statements of a string, but takes every number a statement skips (`?12`
/// without `?1..?11`) for an anonymous placeholder, which scrambles `?NNN`
/// placeholders in all but the first append of a chunk.
fn append_chunk_sql(size: usize) -> SqlStr {
    const APPEND: &str = concat!(
        "INSERT INTO game_events (",
        event_columns!(),
        ") VALUES (?, CASE (SELECT last_seq FROM games WHERE id = ?) WHEN ? THEN ? ELSE 0 END, \
         ?, ?, ?, ?, ?, ?, ?, ?, ?); ",
        "UPDATE games SET last_seq = ?, updated_wall_ms = ?, view_json = ?, view_format = ?, \
         deadline_wall_ms = ? ",
        "WHERE id = ? AND last_seq = ?; ",
        "UPDATE games SET status = ?, result = ? ",
        "WHERE id = ? AND last_seq = ? AND (status IS NOT ? OR result IS NOT ?); ",
    );
    // The string repeats the fixed text above; every value is bound.
    AssertSqlSafe(Arc::<str>::from(APPEND.repeat(size))).into_sql_str()
}

/// The append and its event, if the job is a one-event append (the kind
/// that goes in chunks).
fn one_event_append(job: &Job) -> Option<(&Append, &EventRow)> {
    match &job.work {
        Work::Append(append) => match append.events.as_slice() {
            [event] => Some((append, event)),
            _ => None,
        },
        _ => None,
    }
}

/// Runs a chunk of one-event appends (see [`append_chunk_sql`]) and pushes
/// their outcomes. If one is refused, the chunk stops there: its outcome is
/// pushed and the appends after it are left for the caller to run again.
async fn run_append_chunk(
    conn: &mut SqliteConnection,
    sql: &SqlStr,
    appends: &[(&Append, &EventRow)],
    outcomes: &mut Vec<Result<String, StoreError>>,
) -> Result<(), String> {
    let mut query = sqlx::query(sql.clone());
    for (append, event) in appends {
        query = query
            // INSERT INTO game_events VALUES (game_id, seq if the game's
            // last_seq is the expected one, request_id, actor, at_ms,
            // wall_ms, event_json, rulings_json, format, request_scope,
            // request_sha256)
            .bind(append.game_id.as_str())
            .bind(append.game_id.as_str())
            .bind(append.expected_last_seq)
            .bind(event.seq)
            .bind(event.request_id.as_deref())
            .bind(event.actor.as_str())
            .bind(event.at_ms)
            .bind(event.wall_ms)
            .bind(event.event_json.as_str())
            .bind(event.rulings_json.as_str())
            .bind(event.format)
            .bind(event.origin.as_ref().map(|o| o.scope.as_str()))
            .bind(event.origin.as_ref().map(|o| o.sha256.as_str()))
            // UPDATE games SET last_seq, updated_wall_ms, view_json,
            // view_format, deadline_wall_ms WHERE id, last_seq
            .bind(event.seq)
            .bind(event.wall_ms)
            .bind(append.view.as_ref().map(|v| v.json.as_str()))
            .bind(append.view.as_ref().map(|v| v.format))
            .bind(append.deadline_wall_ms)
            .bind(append.game_id.as_str())
            .bind(append.expected_last_seq)
            // UPDATE games SET status, result WHERE id, last_seq, and
            // status or result differ
            .bind(append.status.as_str())
            .bind(append.result.as_deref())
            .bind(append.game_id.as_str())
            .bind(event.seq)
            .bind(append.status.as_str())
            .bind(append.result.as_deref());
    }
    // The connection's thread runs the statements one after the other and
    // stops at the first error; count how far it got.
    let mut results = conn.execute_many(query);
    let mut statements = 0;
    let failure = loop {
        match results.next().await {
            Some(Ok(_)) => statements += 1,
            Some(Err(e)) => break Some(e),
            None => break None,
        }
    };
    drop(results);

    let released = statements / STATEMENTS_PER_APPEND;
    outcomes.extend(std::iter::repeat_with(|| Ok(String::new())).take(released));
    let Some(e) = failure else {
        return if released == appends.len() {
            Ok(())
        } else {
            Err(format!("an append chunk stopped after {statements} statements without an error"))
        };
    };
    let (append, event) =
        appends.get(released).ok_or_else(|| format!("an append chunk failed after its end: {e}"))?;
    let code = sqlite_code(&e);
    if code.is_none_or(|code| code & 0xff != code::CONSTRAINT) || statements % STATEMENTS_PER_APPEND != 0 {
        // The database itself failed, or an UPDATE did after its event was
        // written: the whole batch is abandoned.
        return Err(e.to_string());
    }
    // The INSERT was refused, and with it the whole append: nothing of it
    // is written, so the refusal can be looked into at once.
    let refusal = if code == Some(code::CHECK) {
        // The event's seq is at least 1 (checked before queueing), so this
        // is the compare-and-set failing.
        explain_failed_update(conn, append).await
    } else {
        insert_error(e, append, event)
    };
    if let StoreError::Unavailable(reason) = refusal {
        return Err(reason);
    }
    outcomes.push(Err(refusal));
    Ok(())
}

async fn apply_append(conn: &mut SqliteConnection, append: &Append) -> Result<(), StoreError> {
    let last = append.events.last().ok_or_else(|| StoreError::Invalid("append without events".to_owned()))?;
    // The status and result are only written when they change: naming a
    // column in an UPDATE rewrites the entries of every index on it (two
    // on the status), which would cost every move two index updates for a
    // value that changes twice in a game. Same compare-and-set as below.
    sqlx::query(
        "UPDATE games SET status = ?1, result = ?2 WHERE id = ?3 AND last_seq = ?4 \
         AND (status IS NOT ?1 OR result IS NOT ?2)",
    )
    .bind(append.status.as_str())
    .bind(append.result.as_deref())
    .bind(append.game_id.as_str())
    .bind(append.expected_last_seq)
    .execute(&mut *conn)
    .await
    .map_err(classify)?;
    // The compare-and-set on last_seq is what serialises writers: it fails
    // for every append but the first that saw a given last_seq. The game's
    // update time is the wall time of its last event.
    let updated = sqlx::query(
        "UPDATE games SET last_seq = ?1, updated_wall_ms = ?2, view_json = ?5, view_format = ?6, \
         deadline_wall_ms = ?7 WHERE id = ?3 AND last_seq = ?4",
    )
    .bind(last.seq)
    .bind(last.wall_ms)
    .bind(append.game_id.as_str())
    .bind(append.expected_last_seq)
    .bind(append.view.as_ref().map(|v| v.json.as_str()))
    .bind(append.view.as_ref().map(|v| v.format))
    .bind(append.deadline_wall_ms)
    .execute(&mut *conn)
    .await
    .map_err(classify)?;
    if updated.rows_affected() == 0 {
        return Err(explain_failed_update(conn, append).await);
    }

    for event in &append.events {
        sqlx::query(concat!(
            "INSERT INTO game_events (",
            event_columns!(),
            ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
        ))
        .bind(event.game_id.as_str())
        .bind(event.seq)
        .bind(event.request_id.as_deref())
        .bind(event.actor.as_str())
        .bind(event.at_ms)
        .bind(event.wall_ms)
        .bind(event.event_json.as_str())
        .bind(event.rulings_json.as_str())
        .bind(event.format)
        .bind(event.origin.as_ref().map(|o| o.scope.as_str()))
        .bind(event.origin.as_ref().map(|o| o.sha256.as_str()))
        .execute(&mut *conn)
        .await
        .map_err(|e| insert_error(e, append, event))?;
    }
    Ok(())
}

/// Maps an error of inserting `event`, one of the events of `append`.
fn insert_error(e: sqlx::Error, append: &Append, event: &EventRow) -> StoreError {
    match sqlite_code(&e) {
        Some(code::UNIQUE) => {
            StoreError::DuplicateRequest { request_id: event.request_id.clone().unwrap_or_default() }
        }
        // Unreachable while last_seq matches the log, but the key is the
        // final word on who appended first.
        Some(code::PRIMARY_KEY) => {
            StoreError::Conflict { game_id: append.game_id.clone(), expected: append.expected_last_seq }
        }
        Some(code::FOREIGN_KEY) => StoreError::NotFound(append.game_id.clone()),
        _ => classify(e),
    }
}

/// Why the compare-and-set on `last_seq` matched no row: no such game, a
/// retry of an append that already went through, or another writer first.
async fn explain_failed_update(conn: &mut SqliteConnection, append: &Append) -> StoreError {
    let exists = sqlx::query("SELECT 1 FROM games WHERE id = ?1")
        .bind(append.game_id.as_str())
        .fetch_optional(&mut *conn)
        .await;
    match exists {
        Err(e) => return classify(e),
        Ok(None) => return StoreError::NotFound(append.game_id.clone()),
        Ok(Some(_)) => {}
    }
    // A retried request usually comes back with the stale expected_last_seq
    // it was first sent with; reporting the duplicate rather than a conflict
    // lets the caller find the original answer.
    for event in &append.events {
        let Some(request_id) = event.request_id.as_deref() else { continue };
        let scope = event.origin.as_ref().map(|o| o.scope.as_str());
        let used = sqlx::query(
            "SELECT 1 FROM game_events WHERE game_id = ?1 AND request_id = ?2 \
             AND coalesce(request_scope, '') = coalesce(?3, '')",
        )
        .bind(append.game_id.as_str())
        .bind(request_id)
        .bind(scope)
        .fetch_optional(&mut *conn)
        .await;
        match used {
            Err(e) => return classify(e),
            Ok(Some(_)) => return StoreError::DuplicateRequest { request_id: request_id.to_owned() },
            Ok(None) => {}
        }
    }
    StoreError::Conflict { game_id: append.game_id.clone(), expected: append.expected_last_seq }
}

async fn apply_put_view(
    conn: &mut SqliteConnection,
    game_id: &str,
    last_seq: i64,
    view: &StoredView,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE games SET view_json = ?1, view_format = ?2 WHERE id = ?3 AND last_seq = ?4")
        .bind(view.json.as_str())
        .bind(view.format)
        .bind(game_id)
        .bind(last_seq)
        .execute(&mut *conn)
        .await
        .map_err(classify)?;
    Ok(())
}

async fn apply_create_game(
    conn: &mut SqliteConnection,
    game: &GameRow,
    request: Option<&(String, RequestOrigin)>,
    cap: Option<u64>,
) -> Result<(), StoreError> {
    if let (Some(cap), Some(creator)) = (cap, &game.creator) {
        // The single writer runs this and the insert back to back, so no
        // other creation can slip between the count and the insert. The
        // count stops at the cap: its cost does not grow with a backlog.
        let open: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM (SELECT 1 FROM games WHERE creator = ?1 \
             AND status IN ('PENDING', 'IN_PROGRESS') LIMIT ?2)",
        )
        .bind(creator.as_str())
        .bind(i64::try_from(cap).unwrap_or(i64::MAX))
        .fetch_one(&mut *conn)
        .await
        .map_err(classify)?;
        let open = u64::try_from(open).unwrap_or(0);
        if open >= cap {
            return Err(StoreError::TooManyOpen { creator: creator.clone(), open });
        }
    }
    let inserted = sqlx::query(concat!(
        "INSERT INTO games (",
        game_columns!(),
        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
    ))
    .bind(game.id.as_str())
    .bind(game.request_id.as_deref())
    .bind(game.created_wall_ms)
    .bind(game.event_name.as_str())
    .bind(game.round.as_str())
    .bind(game.white.as_str())
    .bind(game.black.as_str())
    .bind(game.spec_json.as_str())
    .bind(game.status.as_str())
    .bind(game.result.as_deref())
    .bind(game.last_seq)
    .bind(game.updated_wall_ms)
    .bind(game.spec_format)
    .bind(game.view.as_ref().map(|v| v.json.as_str()))
    .bind(game.view.as_ref().map(|v| v.format))
    .bind(game.creator.as_deref())
    .execute(&mut *conn)
    .await;
    let Err(e) = inserted else {
        let Some((request_id, origin)) = request else { return Ok(()) };
        // The game exists now, so the request's row can point at it; its
        // key decides between two creations with one id in one scope (the
        // job's savepoint then takes the game back).
        let recorded = sqlx::query(
            "INSERT INTO creation_requests (request_scope, request_id, request_sha256, game_id) \
             VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(origin.scope.as_str())
        .bind(request_id.as_str())
        .bind(origin.sha256.as_str())
        .bind(game.id.as_str())
        .execute(&mut *conn)
        .await;
        return match recorded {
            Ok(_) => Ok(()),
            Err(e) if matches!(sqlite_code(&e), Some(code::PRIMARY_KEY | code::UNIQUE)) => {
                Err(StoreError::DuplicateRequest { request_id: request_id.clone() })
            }
            Err(e) => Err(classify(e)),
        };
    };
    match sqlite_code(&e) {
        Some(code::UNIQUE) => {
            Err(StoreError::DuplicateRequest { request_id: game.request_id.clone().unwrap_or_default() })
        }
        // The id is taken. If the request id is too, this is most likely a
        // retried creation, and the duplicate request is the useful answer.
        Some(code::PRIMARY_KEY) => {
            if let Some((request_id, origin)) = request {
                let used = sqlx::query(
                    "SELECT 1 FROM creation_requests WHERE request_scope = ?1 AND request_id = ?2",
                )
                .bind(origin.scope.as_str())
                .bind(request_id.as_str())
                .fetch_optional(&mut *conn)
                .await
                .map_err(classify)?;
                if used.is_some() {
                    return Err(StoreError::DuplicateRequest { request_id: request_id.clone() });
                }
            }
            if let Some(request_id) = &game.request_id {
                let used = sqlx::query("SELECT 1 FROM games WHERE request_id = ?1")
                    .bind(request_id.as_str())
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(classify)?;
                if used.is_some() {
                    return Err(StoreError::DuplicateRequest { request_id: request_id.clone() });
                }
            }
            Err(StoreError::AlreadyExists(game.id.clone()))
        }
        _ => Err(classify(e)),
    }
}

async fn apply_insert_token(conn: &mut SqliteConnection, token: &TokenRow) -> Result<(), StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO tokens (id, secret_sha256, role, label, created_wall_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .bind(token.id.as_str())
    .bind(token.secret_sha256.as_str())
    .bind(token.role.as_str())
    .bind(token.label.as_str())
    .bind(token.created_wall_ms)
    .execute(&mut *conn)
    .await;
    match inserted {
        Ok(_) => Ok(()),
        // `AlreadyExists` names games; a reused token id is the caller's
        // mistake (ids are random), so it is reported as invalid.
        Err(e) if sqlite_code(&e) == Some(code::PRIMARY_KEY) => {
            Err(StoreError::Invalid(format!("token id {} is already taken", token.id)))
        }
        Err(e) => Err(classify(e)),
    }
}

/// Keeps a board's report: "kept", or "" if the device's number is
/// already kept for the game (the first report stands).
async fn apply_keep_observation(
    conn: &mut SqliteConnection,
    row: &ObservationRow,
) -> Result<String, StoreError> {
    let done = sqlx::query(
        "INSERT OR IGNORE INTO board_observations \
         (game_id, device_id, device_seq, device_time_ms, format, report_json, received_wall_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .bind(&row.game_id)
    .bind(row.device_id)
    .bind(row.device_seq)
    .bind(row.device_time_ms)
    .bind(row.format)
    .bind(&row.report_json)
    .bind(row.received_wall_ms)
    .execute(&mut *conn)
    .await
    .map_err(classify)?;
    Ok(if done.rows_affected() == 1 { "kept".to_owned() } else { String::new() })
}

fn observation_from_row(row: &SqliteRow) -> Result<ObservationRow, sqlx::Error> {
    Ok(ObservationRow {
        game_id: row.try_get(0)?,
        device_id: row.try_get(1)?,
        device_seq: row.try_get(2)?,
        device_time_ms: row.try_get(3)?,
        format: row.try_get(4)?,
        report_json: row.try_get(5)?,
        received_wall_ms: row.try_get(6)?,
    })
}

/// Revokes a live token: "revoked", or "" if there is none to revoke.
async fn apply_revoke_token(
    conn: &mut SqliteConnection,
    id: &str,
    now_wall_ms: i64,
) -> Result<String, StoreError> {
    let done =
        sqlx::query("UPDATE tokens SET revoked_wall_ms = ?2 WHERE id = ?1 AND revoked_wall_ms IS NULL")
            .bind(id)
            .bind(now_wall_ms)
            .execute(&mut *conn)
            .await
            .map_err(classify)?;
    Ok(if done.rows_affected() == 1 { "revoked".to_owned() } else { String::new() })
}

/// Runs in the writer's transaction, so revocations of a game (also by
/// other processes, which wait for the write lock) take turns: each reads
/// the generation the one before wrote.
async fn apply_revoke_player_tokens(
    conn: &mut SqliteConnection,
    revocation: &PlayerTokenRevocation,
) -> Result<String, StoreError> {
    let game = &revocation.game_id;
    let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM games WHERE id = ?1")
        .bind(game)
        .fetch_optional(&mut *conn)
        .await
        .map_err(classify)?;
    if exists.is_none() {
        return Err(StoreError::NotFound(game.clone()));
    }
    let (request_id, scope, sha256) = match &revocation.request {
        Some((id, origin)) => (Some(id.as_str()), Some(origin.scope.as_str()), Some(origin.sha256.as_str())),
        None => (None, None, None),
    };
    if let (Some(id), Some(scope)) = (request_id, scope) {
        let used: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM player_token_revocations WHERE game_id = ?1 AND request_scope = ?2 AND request_id = ?3",
        )
        .bind(game)
        .bind(scope)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(classify)?;
        if used.is_some() {
            return Err(StoreError::DuplicateRequest { request_id: id.to_owned() });
        }
    }
    for (color, revoked) in [("white", revocation.white), ("black", revocation.black)] {
        if !revoked {
            continue;
        }
        sqlx::query(
            "INSERT INTO player_token_revocations \
             (game_id, color, generation, revoked_wall_ms, request_scope, request_id, request_sha256) \
             SELECT ?1, ?2, COALESCE(MAX(generation), 0) + 1, ?3, ?4, ?5, ?6 \
             FROM player_token_revocations WHERE game_id = ?1 AND color = ?2",
        )
        .bind(game)
        .bind(color)
        .bind(revocation.revoked_wall_ms)
        .bind(scope)
        .bind(request_id)
        .bind(sha256)
        .execute(&mut *conn)
        .await
        .map_err(classify)?;
    }
    let rows = sqlx::query(
        "SELECT color, MAX(generation) FROM player_token_revocations WHERE game_id = ?1 GROUP BY color",
    )
    .bind(game)
    .fetch_all(&mut *conn)
    .await
    .map_err(classify)?;
    let rows = rows
        .iter()
        .map(|row| Ok((row.try_get::<String, _>(0)?, row.try_get::<i64, _>(1)?)))
        .collect::<Result<Vec<_>, sqlx::Error>>()
        .map_err(classify)?;
    Ok(super::encode_generations(super::generations_from_rows(rows)?))
}

async fn apply_meta(conn: &mut SqliteConnection, key: &str, default: &str) -> Result<String, StoreError> {
    // Both statements run in the writer's transaction, so concurrent callers
    // (and other processes, which wait for the write lock) all read the value
    // of whoever inserted first.
    sqlx::query("INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)")
        .bind(key)
        .bind(default)
        .execute(&mut *conn)
        .await
        .map_err(classify)?;
    sqlx::query_scalar("SELECT value FROM meta WHERE key = ?1")
        .bind(key)
        .fetch_one(&mut *conn)
        .await
        .map_err(classify)
}

async fn apply_heartbeat(
    conn: &mut SqliteConnection,
    replica_id: &str,
    now_wall_ms: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO replicas (id, seen_wall_ms) VALUES (?1, ?2) \
         ON CONFLICT (id) DO UPDATE SET seen_wall_ms = excluded.seen_wall_ms",
    )
    .bind(replica_id)
    .bind(now_wall_ms)
    .execute(&mut *conn)
    .await
    .map(drop)
    .map_err(classify)
}

/// The SQLite extended result code of a database error.
fn sqlite_code(e: &sqlx::Error) -> Option<i32> {
    e.as_database_error()?.code()?.parse().ok()
}

/// Maps an error that no caller-specific rule explained. Constraint
/// violations are the caller's data breaking the schema (and only undo the
/// job); anything else is the database failing (and abandons the batch).
fn classify(e: sqlx::Error) -> StoreError {
    match sqlite_code(&e) {
        Some(code) if code & 0xff == code::CONSTRAINT => StoreError::Invalid(e.to_string()),
        _ => unavailable(e),
    }
}

/// Disk full, I/O errors, busy or locked database, closed pool, crashed
/// worker thread, undecodable row: the store cannot serve this now.
fn unavailable(e: sqlx::Error) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

fn game_from_row(row: &SqliteRow) -> Result<GameRow, sqlx::Error> {
    Ok(GameRow {
        id: row.try_get(0)?,
        request_id: row.try_get(1)?,
        created_wall_ms: row.try_get(2)?,
        event_name: row.try_get(3)?,
        round: row.try_get(4)?,
        white: row.try_get(5)?,
        black: row.try_get(6)?,
        spec_json: row.try_get(7)?,
        status: row.try_get::<String, _>(8)?.parse().map_err(|e: UnknownStatus| {
            sqlx::Error::ColumnDecode { index: "status".to_owned(), source: Box::new(e) }
        })?,
        result: row.try_get(9)?,
        last_seq: row.try_get(10)?,
        updated_wall_ms: row.try_get(11)?,
        spec_format: row.try_get(12)?,
        view: stored_view(row.try_get(13)?, row.try_get(14)?),
        creator: row.try_get(15)?,
    })
}

fn event_from_row(row: &SqliteRow) -> Result<EventRow, sqlx::Error> {
    Ok(EventRow {
        game_id: row.try_get(0)?,
        seq: row.try_get(1)?,
        request_id: row.try_get(2)?,
        actor: row.try_get(3)?,
        at_ms: row.try_get(4)?,
        wall_ms: row.try_get(5)?,
        event_json: row.try_get(6)?,
        rulings_json: row.try_get(7)?,
        format: row.try_get(8)?,
        origin: RequestOrigin::from_columns(row.try_get(9)?, row.try_get(10)?),
    })
}

fn token_from_row(row: &SqliteRow) -> Result<TokenRow, sqlx::Error> {
    Ok(TokenRow {
        id: row.try_get(0)?,
        secret_sha256: row.try_get(1)?,
        role: row.try_get(2)?,
        label: row.try_get(3)?,
        created_wall_ms: row.try_get(4)?,
        revoked_wall_ms: row.try_get(5)?,
    })
}
