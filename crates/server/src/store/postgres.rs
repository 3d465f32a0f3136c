//! The PostgreSQL backend, for several server replicas sharing one database.
//!
//! # Design
//!
//! Correctness comes from the database alone, never from this process: the
//! compare-and-set `UPDATE games ... WHERE last_seq = expected` and the keys
//! (`(game_id, seq)`, the partial unique index on `(game_id, request_id)`,
//! the unique `games.request_id`) decide between writers, whichever replica
//! they run in.
//!
//! An append is acknowledged once its transaction committed; with
//! PostgreSQL's default `synchronous_commit = on` the commit has flushed the
//! WAL, so it survives a crash of the server. Each commit therefore costs a
//! WAL flush (an `fdatasync`, milliseconds on ordinary disks), and appends go
//! through **group commit**, as in the SQLite backend:
//!
//! - writer tasks (see [`WRITERS`]) take everything queued, up to
//!   [`MAX_BATCH`] appends, and send it as one call of the
//!   `arbiter_append_batch` function (`migrations/postgres/0005_*.sql`):
//!   one statement, hence one round trip and one implicit transaction whose
//!   WAL flush all the appends share;
//! - inside it, each append runs in its own subtransaction (a savepoint), so
//!   a refused append (conflict, duplicate request id, unknown game) is
//!   undone alone and reported as a row; anything else (disk full, read-only
//!   server, shutdown, lost connection) fails the statement and thus the
//!   whole batch, and every caller of the batch gets
//!   [`StoreError::Unavailable`];
//! - the appends of a batch are sorted by game id, so every batch of every
//!   replica locks the rows of `games` in the same order: batches that touch
//!   the same games wait for each other instead of deadlocking.
//!
//! The other writes (creations, tokens, meta, heartbeats) are rare and run
//! as single statements on the pool, each its own transaction.
//!
//! Concurrent one-append transactions from a pool were measured too and
//! lose by far: a transaction that notifies (see below) holds PostgreSQL's
//! global notification-queue lock from just before its commit until the
//! commit is flushed, so notifying transactions commit one at a time, one
//! WAL flush each, however many connections there are (about 500 to 750 per
//! second with 3 ms flushes, against 15,000 with batches; see
//! `examples/store-bench.rs`). Batches pay that lock once per batch.
//!
//! When a batch fails because the connection was lost or did not answer in
//! time ([`WRITE_TIMEOUT`]), its commit may or may not have happened: its
//! callers get [`StoreError::Unavailable`] all the same, and a retry with
//! the same request id tells (it succeeds, or finds the original as a
//! [`StoreError::DuplicateRequest`]). Every other failure is known to have
//! written nothing.
//!
//! # Notifications
//!
//! Every committed append notifies channel [`CHANNEL`] with
//! `game_id:last_seq`, from inside its transaction, so PostgreSQL delivers
//! it at commit to every listening session of the database. A background
//! task holds a `LISTEN` connection and forwards what arrives to the
//! store's subscribers (see [`EventStore::subscribe`]). Notifications sent
//! while that connection is down are lost for good, so after reconnecting
//! and listening again it sends `(RESYNC, 0)`, meaning "re-read what you
//! care about". A connection that dies silently is noticed by a ping after
//! [`LISTENER_IDLE_PING`] without notifications.
//!
//! The channel is shared by every schema of the database: two deployments
//! in two schemas of one database see each other's notifications (which is
//! harmless, if wasteful: they name games the other does not have).
//!
//! # Errors
//!
//! Refused appends are recognised inside `arbiter_append_batch` (by
//! condition and constraint name) and come back as rows; the other
//! statements' errors are mapped here. Either way:
//!
//! - `23505` (unique violation), by constraint: `games_pkey` is
//!   [`StoreError::AlreadyExists`] (or a duplicate request if the request id
//!   is taken too), `games_request_id_key` and `game_events_request`
//!   [`StoreError::DuplicateRequest`], `game_events_pkey`
//!   [`StoreError::Conflict`];
//! - `23503` (foreign key violation) on an append is [`StoreError::NotFound`];
//! - any other integrity violation (class `23`) is [`StoreError::Invalid`];
//! - everything else is [`StoreError::Unavailable`]: connection refused or
//!   lost, pool timeout, administrator shutdown (`57P01`), disk full
//!   (`53100`), read-only transaction (`25006`, e.g. a standby after a
//!   failover), too many connections, serialization failures...

use std::str::FromStr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use sqlx::postgres::{
    PgConnectOptions, PgConnection, PgListener, PgNotification, PgPool, PgPoolOptions, PgRow,
};
use sqlx::{AssertSqlSafe, ConnectOptions, Connection, Row};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::{
    Append, CreationRequest, EventRow, EventStore, GameFilter, GameRow, InPlay, MAX_LIST_ROWS,
    ObservationRow, Owner, PlayerTokenRevocation, RESYNC, Replica, RequestOrigin, RevocationRequest,
    SUBSCRIPTION_CAPACITY, StoreError, StoredView, TokenRow, UnknownStatus, stored_view, validate_append,
};

/// The most appends committed in one batch (one statement). Large enough to
/// amortise a WAL flush over a thousand busy games, small enough that a
/// batch stays a few milliseconds of work.
pub const MAX_BATCH: usize = 512;

/// Writer tasks, each with a connection of its own, taking turns at the
/// queue. With two, one batch runs while the other waits for its commit's
/// WAL flush. More do not help: commits that notify are serialised by
/// PostgreSQL anyway, so a third writer only queues behind that lock (at
/// 5,000 appends/s, p99 latency was lowest with two).
pub const WRITERS: usize = 2;

/// Appends waiting for a writer before callers are made to wait: the
/// back-pressure that keeps a stalled database from turning into unbounded
/// memory.
const QUEUE_CAPACITY: usize = 4 * MAX_BATCH;

/// Connections for reads and for the single-statement writes. Reads are
/// short index lookups and the writers have connections of their own.
const POOL_CONNECTIONS: u32 = 8;

/// How long a read waits for a pool connection (including connecting)
/// before reporting the database unavailable.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long opening a dedicated connection (migrations, writers) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a writer waits for a batch's answer. A connection that died
/// without a word (a network partition) would otherwise stall every append
/// behind it; past this, the batch is reported unavailable (its outcome is
/// in doubt: a retry with the same request ids finds out) and the
/// connection is replaced.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// The notification channel of committed appends (payload
/// `game_id:last_seq`), shared by every process using the database.
pub const CHANNEL: &str = "arbiter_events";

/// How long the listener goes without notifications before pinging its
/// connection, to notice one that died silently (and resubscribe).
const LISTENER_IDLE_PING: Duration = Duration::from_secs(30);

/// How long that ping may take before the connection is presumed dead.
const LISTENER_PING_TIMEOUT: Duration = Duration::from_secs(10);

/// The first and the longest pause between attempts to reconnect the
/// listener.
const RECONNECT_DELAYS: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(5));

/// Embedded migrations: `migrations/postgres/*.sql`, applied in order on
/// open. sqlx serialises concurrent runs with an advisory lock, so replicas
/// starting together do not race.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/postgres");

mod tournament;

/// PostgreSQL error codes (SQLSTATE) that the store tells apart.
mod code {
    /// `unique_violation`.
    pub const UNIQUE: &str = "23505";
    /// Class 23, integrity constraint violations.
    pub const INTEGRITY_CLASS: &str = "23";
    /// Classes whose errors mean the connection itself is gone or going:
    /// connection exceptions (08) and operator intervention (57: shutdown,
    /// terminated backend).
    pub const CONNECTION_CLASSES: [&str; 2] = ["08", "57"];
}

/// Constraint names of `migrations/postgres`, as reported in errors.
mod constraint {
    pub const GAMES_PKEY: &str = "games_pkey";
    pub const GAMES_REQUEST: &str = "games_request_id_key";
    pub const CREATION_REQUESTS_PKEY: &str = "creation_requests_pkey";
    pub const TOKENS_PKEY: &str = "tokens_pkey";
    pub const REVOCATIONS_REQUEST: &str = "player_token_revocations_request";
    pub const TOURNAMENTS_PKEY: &str = "tournaments_pkey";
    pub const ROUNDS_PKEY: &str = "rounds_pkey";
    pub const TOURNAMENT_REQUESTS_PKEY: &str = "tournament_requests_pkey";
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

/// The PostgreSQL store. Cloning is cheap and every clone shares the same
/// writers, pool and listener.
#[derive(Clone, Debug)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// The writers' queue. The writers stop once every sender is gone or
    /// after a [`Message::Close`].
    writer: mpsc::Sender<Message>,
    pool: PgPool,
    /// Where the listener forwards notifications; subscribers get receivers
    /// from it.
    appended: broadcast::Sender<(String, i64)>,
    /// Stops the listener (on close, or once the last handle is dropped).
    stop: CancellationToken,
    /// The writer tasks and the listener task, awaited by `close`.
    tasks: Mutex<Tasks>,
    /// The replica this store writes for, once the server names it: its
    /// appends land only on the games it owns (see
    /// migrations/postgres/0014_owners.sql). Unset (a tool, a test of the
    /// store), appends are not fenced.
    replica: Arc<OnceLock<Replica>>,
}

#[derive(Debug, Default)]
struct Tasks {
    writers: Vec<JoinHandle<()>>,
    listener: Option<JoinHandle<()>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The writers stop by themselves when their queue's sender goes; the
        // listener has nothing to wait for, so it is told.
        self.stop.cancel();
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host/db`,
    /// or `postgresql://...`; `?options=-c search_path=...` selects a
    /// schema), applies the migrations and starts listening for
    /// notifications.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a malformed URL,
    /// [`StoreError::Unavailable`] if the database cannot be reached or
    /// migrated.
    pub async fn open(url: &str) -> Result<PostgresStore, StoreError> {
        // sqlx's parse errors describe the fault, never echo the URL (which
        // may hold a password).
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| StoreError::Invalid(format!("malformed PostgreSQL URL: {e}")))?;
        Self::open_with(options).await
    }

    /// Opens the database described by `options`.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] if the database cannot be reached or
    /// migrated.
    pub async fn open_with(options: PgConnectOptions) -> Result<PostgresStore, StoreError> {
        let mut conn = connect(&options).await.map_err(unavailable)?;
        MIGRATOR
            .run(&mut conn)
            .await
            .map_err(|e| StoreError::Unavailable(format!("migrating the PostgreSQL database: {e}")))?;

        let pool = PgPoolOptions::new()
            .max_connections(POOL_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_lazy_with(options.clone());

        // The listener listens before `open` returns, so a subscriber sees
        // every append committed after the store was opened.
        let listener_pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_lazy_with(options.clone());
        let listener = listen(&listener_pool).await.map_err(unavailable)?;
        let (appended, _) = broadcast::channel(SUBSCRIPTION_CAPACITY);
        let stop = CancellationToken::new();
        let listener =
            tokio::spawn(run_listener(listener_pool, listener, appended.clone(), stop.child_token()));

        let replica: Arc<OnceLock<Replica>> = Arc::default();
        let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
        let queue = Arc::new(tokio::sync::Mutex::new(receiver));
        // The migration connection becomes the first writer's; the others
        // connect when their first batch comes.
        let mut first = Some(conn);
        let writers = (0..WRITERS)
            .map(|_| {
                let writer = Writer {
                    replica: replica.clone(),
                    conn: first.take(),
                    options: options.clone(),
                    queue: queue.clone(),
                };
                tokio::spawn(writer.run())
            })
            .collect();

        let tasks = Mutex::new(Tasks { writers, listener: Some(listener) });
        Ok(PostgresStore { inner: Arc::new(Inner { writer: sender, pool, appended, stop, tasks, replica }) })
    }
}

/// A duration in whole milliseconds, saturated.
fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// How many times [`PostgresStore::claim`] reads the owner again when
/// another replica claimed the game between its read and its update.
const CLAIM_ATTEMPTS: usize = 3;

/// Game ownership among the replicas of the database (issue 18, point 3;
/// migrations/postgres/0014_owners.sql).
impl PostgresStore {
    /// Names the replica this store writes for: from now on its appends
    /// land only on the games it owns, and its heartbeats extend its lease.
    /// Only the first call counts.
    pub fn set_replica(&self, replica: Replica) {
        let _ = self.inner.replica.set(replica);
    }

    fn me(&self) -> Option<&Replica> {
        self.inner.replica.get()
    }

    /// The id of the replica this store writes for, once named.
    pub fn replica_id(&self) -> Option<String> {
        self.me().map(|r| r.id.clone())
    }

    /// Who runs game `id`: this replica if it did, if nobody did, or if its
    /// owner's lease ran out (the game is then taken over, in one
    /// compare-and-set on the owner); otherwise the live owner.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Unavailable`].
    pub async fn claim(&self, id: &str) -> Result<Owner, StoreError> {
        let Some(me) = self.me() else { return Ok(Owner::Here) };
        for _ in 0..CLAIM_ATTEMPTS {
            let row: Option<(Option<String>, Option<String>, bool)> = sqlx::query_as(
                "SELECT g.owner, r.address, coalesce(r.alive_until > clock_timestamp(), false) \
                 FROM games g LEFT JOIN replicas r ON r.id = g.owner WHERE g.id = $1",
            )
            .bind(id)
            .fetch_optional(&self.inner.pool)
            .await
            .map_err(classify)?;
            let Some((owner, address, alive)) = row else { return Err(StoreError::NotFound(id.to_owned())) };
            match owner {
                Some(owner) if owner == me.id => return Ok(Owner::Here),
                Some(owner) if alive => {
                    return Ok(Owner::Elsewhere { replica: owner, address: address.unwrap_or_default() });
                }
                previous => {
                    let taken = sqlx::query(
                        "UPDATE games SET owner = $2 WHERE id = $1 AND owner IS NOT DISTINCT FROM $3",
                    )
                    .bind(id)
                    .bind(&me.id)
                    .bind(previous)
                    .execute(&self.inner.pool)
                    .await
                    .map_err(classify)?;
                    if taken.rows_affected() == 1 {
                        return Ok(Owner::Here);
                    }
                }
            }
        }
        Err(StoreError::Unavailable(format!("game {id} keeps changing owner; retry")))
    }

    /// Takes game `id` over whoever runs it (an act this replica cannot
    /// forward, such as an e-board's it reads). The previous owner's next
    /// append is fenced; its table then follows the log.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Unavailable`].
    pub async fn seize(&self, id: &str) -> Result<(), StoreError> {
        let Some(me) = self.me() else { return Ok(()) };
        let done = sqlx::query("UPDATE games SET owner = $2 WHERE id = $1")
            .bind(id)
            .bind(&me.id)
            .execute(&self.inner.pool)
            .await
            .map_err(classify)?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(id.to_owned()));
        }
        Ok(())
    }

    /// The owners whose lease ran out and who still own games in play
    /// (`None`: games in play that nobody owns, from before owners).
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn dead_owners(&self) -> Result<Vec<Option<String>>, StoreError> {
        sqlx::query_scalar(
            "SELECT r.id FROM replicas r \
              WHERE (r.alive_until IS NULL OR r.alive_until <= clock_timestamp()) \
                AND EXISTS (SELECT 1 FROM games g WHERE g.owner = r.id AND g.status = 'IN_PROGRESS') \
             UNION ALL \
             SELECT NULL WHERE EXISTS (SELECT 1 FROM games g WHERE g.owner IS NULL AND g.status = 'IN_PROGRESS')",
        )
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)
    }

    /// Takes over the games in play of `dead` (`None`: those nobody owns)
    /// while its lease has run out: all of them, or with `share` `(n, k)`
    /// those whose id hashes to `k` modulo `n` (the survivors split them).
    /// Returns the games taken, to arm their timers.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn take_over(
        &self,
        dead: Option<&str>,
        share: Option<(i64, i64)>,
    ) -> Result<Vec<InPlay>, StoreError> {
        let Some(me) = self.me() else { return Ok(Vec::new()) };
        let owned = match dead {
            Some(_) => "owner = $2",
            None => "owner IS NULL AND $2::TEXT IS NULL",
        };
        let sql = format!(
            "UPDATE games SET owner = $1 \
              WHERE status = 'IN_PROGRESS' AND {owned} \
                AND ($3::BIGINT IS NULL OR mod(abs(hashtext(id)::BIGINT), $3) = $4) \
                AND NOT EXISTS (SELECT 1 FROM replicas r \
                                 WHERE r.id = games.owner AND r.alive_until > clock_timestamp()) \
              RETURNING id, deadline_wall_ms, updated_wall_ms"
        );
        let rows: Vec<(String, Option<i64>, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(&me.id)
            .bind(dead)
            .bind(share.map(|(n, _)| n))
            .bind(share.map(|(_, k)| k))
            .fetch_all(&self.inner.pool)
            .await
            .map_err(classify)?;
        Ok(rows.into_iter().map(InPlay::from).collect())
    }

    /// The replicas whose lease holds now, sorted.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn leaseholders(&self) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar("SELECT id FROM replicas WHERE alive_until > clock_timestamp() ORDER BY id")
            .fetch_all(&self.inner.pool)
            .await
            .map_err(classify)
    }

    /// The games in play this replica owns.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn owned_in_play(&self) -> Result<Vec<InPlay>, StoreError> {
        let Some(me) = self.me() else { return self.games_in_play().await };
        let rows: Vec<(String, Option<i64>, i64)> = sqlx::query_as(
            "SELECT id, deadline_wall_ms, updated_wall_ms FROM games \
              WHERE status = 'IN_PROGRESS' AND owner = $1 ORDER BY id",
        )
        .bind(&me.id)
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)?;
        Ok(rows.into_iter().map(InPlay::from).collect())
    }

    /// Ends this replica's lease now (a clean shutdown): the survivors take
    /// its games over at their next look rather than when the lease would
    /// have run out.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`].
    pub async fn end_lease(&self) -> Result<(), StoreError> {
        let Some(me) = self.me() else { return Ok(()) };
        sqlx::query("UPDATE replicas SET alive_until = clock_timestamp() WHERE id = $1")
            .bind(&me.id)
            .execute(&self.inner.pool)
            .await
            .map_err(classify)?;
        Ok(())
    }
}

/// Opens a dedicated connection, giving up after [`CONNECT_TIMEOUT`].
async fn connect(options: &PgConnectOptions) -> Result<PgConnection, sqlx::Error> {
    tokio::time::timeout(CONNECT_TIMEOUT, options.connect()).await.unwrap_or_else(|_| {
        Err(sqlx::Error::Io(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("no connection to PostgreSQL within {CONNECT_TIMEOUT:?}"),
        )))
    })
}

fn writer_stopped() -> StoreError {
    StoreError::Unavailable("the PostgreSQL writers have stopped".to_owned())
}

impl PostgresStore {
    /// Creates a game and, for a `CreateGame` request, records the request
    /// under its scope, in one transaction; with a cap, only if its creator
    /// has fewer unfinished games. Replicas creating games for the same
    /// creator at once take the same advisory lock (per creator, held until
    /// the commit), so the count and the insert are one step for every
    /// replica, and creations by different creators never wait for each
    /// other.
    async fn insert_game(
        &self,
        game: &GameRow,
        request: Option<(&str, &RequestOrigin)>,
        cap: Option<u64>,
    ) -> Result<(), StoreError> {
        if game.last_seq != 0 {
            return Err(StoreError::Invalid(format!(
                "a new game starts with last_seq 0, not {}",
                game.last_seq
            )));
        }
        let mut tx = self.inner.pool.begin().await.map_err(classify)?;
        if let (Some(cap), Some(creator)) = (cap, &game.creator) {
            sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7013))")
                .bind(creator.as_str())
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            let open: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM (SELECT 1 FROM games WHERE creator = $1 \
                 AND status IN ('PENDING', 'IN_PROGRESS') LIMIT $2) AS open",
            )
            .bind(creator.as_str())
            .bind(i64::try_from(cap).unwrap_or(i64::MAX))
            .fetch_one(&mut *tx)
            .await
            .map_err(classify)?;
            let open = u64::try_from(open).unwrap_or(0);
            if open >= cap {
                return Err(StoreError::TooManyOpen { creator: creator.clone(), open });
            }
        }
        let inserted = insert_game_row(&mut tx, game).await;
        let Err(e) = inserted else {
            let Some((request_id, origin)) = request else {
                return tx.commit().await.map_err(classify);
            };
            // The game exists now, so the request's row can point at it; its
            // key decides between two creations with one id in one scope
            // (the rollback then takes the game back).
            let recorded = sqlx::query(
                "INSERT INTO creation_requests (request_scope, request_id, request_sha256, game_id) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(origin.scope.as_str())
            .bind(request_id)
            .bind(origin.sha256.as_str())
            .bind(game.id.as_str())
            .execute(&mut *tx)
            .await;
            return match recorded {
                Ok(_) => tx.commit().await.map_err(classify),
                Err(e) if unique_violation(&e) == Some(constraint::CREATION_REQUESTS_PKEY) => {
                    Err(StoreError::DuplicateRequest { request_id: request_id.to_owned() })
                }
                Err(e) => Err(classify(e)),
            };
        };
        // A failed statement leaves the transaction good only for a
        // rollback (dropping it); the questions below go to the pool.
        drop(tx);
        match unique_violation(&e) {
            Some(constraint::GAMES_REQUEST) => {
                Err(StoreError::DuplicateRequest { request_id: game.request_id.clone().unwrap_or_default() })
            }
            // The id is taken. If the request id is too, this is most likely
            // a retried creation, and the duplicate request is the useful
            // answer.
            Some(constraint::GAMES_PKEY) => {
                if let Some((request_id, origin)) = request {
                    let used = sqlx::query(
                        "SELECT 1 FROM creation_requests WHERE request_scope = $1 AND request_id = $2",
                    )
                    .bind(origin.scope.as_str())
                    .bind(request_id)
                    .fetch_optional(&self.inner.pool)
                    .await
                    .map_err(classify)?;
                    if used.is_some() {
                        return Err(StoreError::DuplicateRequest { request_id: request_id.to_owned() });
                    }
                }
                if let Some(request_id) = &game.request_id {
                    let used = sqlx::query("SELECT 1 FROM games WHERE request_id = $1")
                        .bind(request_id.as_str())
                        .fetch_optional(&self.inner.pool)
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
}

impl EventStore for PostgresStore {
    async fn create_game(&self, game: &GameRow) -> Result<(), StoreError> {
        self.insert_game(game, None, None).await
    }

    async fn create_game_capped(&self, game: &GameRow, max_open: u64) -> Result<(), StoreError> {
        self.insert_game(game, None, Some(max_open)).await
    }

    async fn create_requested_game(
        &self,
        game: &GameRow,
        request_id: &str,
        origin: &RequestOrigin,
        cap: Option<u64>,
    ) -> Result<(), StoreError> {
        self.insert_game(game, Some((request_id, origin)), cap).await
    }

    async fn creation_request(
        &self,
        scope: &str,
        request_id: &str,
    ) -> Result<Option<CreationRequest>, StoreError> {
        let row = sqlx::query(
            "SELECT game_id, request_sha256 FROM creation_requests WHERE request_scope = $1 AND request_id = $2",
        )
        .bind(scope)
        .bind(request_id)
        .fetch_optional(&self.inner.pool)
        .await
        .map_err(classify)?;
        row.map(|row| Ok(CreationRequest { game_id: row.try_get(0)?, sha256: row.try_get(1)? }))
            .transpose()
            .map_err(unavailable)
    }

    async fn game(&self, id: &str) -> Result<Option<GameRow>, StoreError> {
        let row = sqlx::query(concat!("SELECT ", game_columns!(), " FROM games WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.inner.pool)
            .await
            .map_err(classify)?;
        row.as_ref().map(game_from_row).transpose().map_err(unavailable)
    }

    async fn game_by_request(&self, request_id: &str) -> Result<Option<GameRow>, StoreError> {
        let row = sqlx::query(concat!("SELECT ", game_columns!(), " FROM games WHERE request_id = $1"))
            .bind(request_id)
            .fetch_optional(&self.inner.pool)
            .await
            .map_err(classify)?;
        row.as_ref().map(game_from_row).transpose().map_err(unavailable)
    }

    async fn list_games(&self, filter: &GameFilter) -> Result<Vec<GameRow>, StoreError> {
        // The statement is assembled from fixed fragments only (every value
        // is a bound parameter), one variant per combination of filters, so
        // that each variant gets a plan using the matching index; a single
        // statement with `$1 IS NULL OR ...` terms would get a generic plan.
        let mut sql = String::from(concat!("SELECT ", game_columns!(), " FROM games WHERE TRUE"));
        let mut values = Vec::new();
        let status = filter.status.map(|s| s.as_str());
        for (column, value) in [
            ("event_name", filter.event_name.as_deref()),
            ("round", filter.round.as_deref()),
            ("status", status),
        ] {
            if let Some(value) = value {
                values.push(value);
                sql.push_str(&format!(" AND {column} = ${}", values.len()));
            }
        }
        if let Some(after_id) = &filter.after_id {
            values.push(after_id.as_str());
            sql.push_str(&format!(" AND id > ${}", values.len()));
        }
        sql.push_str(&format!(" ORDER BY id LIMIT ${}", values.len() + 1));

        let mut query = sqlx::query(AssertSqlSafe(sql));
        for value in values {
            query = query.bind(value);
        }
        let rows = query
            .bind(i64::from(filter.limit.clamp(1, MAX_LIST_ROWS)))
            .fetch_all(&self.inner.pool)
            .await
            .map_err(classify)?;
        rows.iter().map(game_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn games_without_view(&self, after_id: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar("SELECT id FROM games WHERE view_json IS NULL AND status <> 'IN_PROGRESS' AND id > $1 ORDER BY id LIMIT $2")
            .bind(after_id)
            .bind(i64::from(limit.clamp(1, 1000)))
            .fetch_all(&self.inner.pool)
            .await
            .map_err(classify)
    }

    async fn put_view(&self, game_id: &str, last_seq: i64, view: &StoredView) -> Result<(), StoreError> {
        sqlx::query("UPDATE games SET view_json = $1, view_format = $2 WHERE id = $3 AND last_seq = $4")
            .bind(view.json.as_str())
            .bind(view.format)
            .bind(game_id)
            .bind(last_seq)
            .execute(&self.inner.pool)
            .await
            .map_err(classify)?;
        Ok(())
    }

    async fn games_in_play(&self) -> Result<Vec<InPlay>, StoreError> {
        let rows: Vec<(String, Option<i64>, i64)> = sqlx::query_as(
            "SELECT id, deadline_wall_ms, updated_wall_ms FROM games WHERE status = 'IN_PROGRESS' ORDER BY id",
        )
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)?;
        Ok(rows.into_iter().map(InPlay::from).collect())
    }

    async fn pending_created_before(
        &self,
        cutoff_wall_ms: i64,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar(
            "SELECT id FROM games WHERE status = 'PENDING' AND created_wall_ms < $1 \
             ORDER BY created_wall_ms, id LIMIT $2",
        )
        .bind(cutoff_wall_ms)
        .bind(i64::from(limit))
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)
    }

    async fn events(&self, game_id: &str, after_seq: i64, limit: u32) -> Result<Vec<EventRow>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            event_columns!(),
            " FROM game_events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        ))
        .bind(game_id)
        .bind(after_seq)
        .bind(i64::from(limit))
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)?;
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
            " FROM game_events WHERE game_id = $1 AND request_id = $2 ORDER BY seq LIMIT 1"
        ))
        .bind(game_id)
        .bind(request_id)
        .fetch_optional(&self.inner.pool)
        .await
        .map_err(classify)?;
        row.as_ref().map(event_from_row).transpose().map_err(unavailable)
    }

    async fn append(&self, append: Append) -> Result<(), StoreError> {
        // Contract violations are caught here, before queueing, so they never
        // occupy a slot in a batch.
        validate_append(&append)?;
        if i32::try_from(append.events.len()).is_err() {
            return Err(StoreError::Invalid(format!("{} events in one append", append.events.len())));
        }
        let (reply, answer) = oneshot::channel();
        self.inner.writer.send(Message::Job(Job { append, reply })).await.map_err(|_| writer_stopped())?;
        answer.await.map_err(|_| writer_stopped())?
    }

    async fn insert_token(&self, token: &TokenRow) -> Result<(), StoreError> {
        let inserted = sqlx::query(
            "INSERT INTO tokens (id, secret_sha256, role, label, created_wall_ms) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(token.id.as_str())
        .bind(token.secret_sha256.as_str())
        .bind(token.role.as_str())
        .bind(token.label.as_str())
        .bind(token.created_wall_ms)
        .execute(&self.inner.pool)
        .await;
        match inserted {
            Ok(_) => Ok(()),
            // `AlreadyExists` names games; a reused token id is the caller's
            // mistake (ids are random), so it is reported as invalid.
            Err(e) if unique_violation(&e) == Some(constraint::TOKENS_PKEY) => {
                Err(StoreError::Invalid(format!("token id {} is already taken", token.id)))
            }
            Err(e) => Err(classify(e)),
        }
    }

    async fn keep_observation(&self, row: &ObservationRow) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "INSERT INTO board_observations \
             (game_id, device_id, device_seq, device_time_ms, format, report_json, received_wall_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
        )
        .bind(&row.game_id)
        .bind(row.device_id)
        .bind(row.device_seq)
        .bind(row.device_time_ms)
        .bind(row.format)
        .bind(&row.report_json)
        .bind(row.received_wall_ms)
        .execute(&self.inner.pool)
        .await
        .map_err(classify)?;
        Ok(done.rows_affected() == 1)
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
             FROM board_observations WHERE game_id = $1 AND device_id = $2 AND device_seq > $3 \
             ORDER BY device_seq LIMIT $4",
        )
        .bind(game_id)
        .bind(device_id)
        .bind(after_seq)
        .bind(i64::from(limit.min(MAX_LIST_ROWS)))
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)?;
        rows.iter()
            .map(|row| {
                Ok(ObservationRow {
                    game_id: row.try_get(0)?,
                    device_id: row.try_get(1)?,
                    device_seq: row.try_get(2)?,
                    device_time_ms: row.try_get(3)?,
                    format: row.try_get(4)?,
                    report_json: row.try_get(5)?,
                    received_wall_ms: row.try_get(6)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(unavailable)
    }

    async fn token(&self, id: &str) -> Result<Option<TokenRow>, StoreError> {
        let row =
            sqlx::query(
                "SELECT id, secret_sha256, role, label, created_wall_ms, revoked_wall_ms FROM tokens WHERE id = $1",
            )
                .bind(id)
                .fetch_optional(&self.inner.pool)
                .await
                .map_err(classify)?;
        row.as_ref().map(token_from_row).transpose().map_err(unavailable)
    }

    async fn token_count(&self) -> Result<u64, StoreError> {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tokens")
            .fetch_one(&self.inner.pool)
            .await
            .map_err(classify)?;
        u64::try_from(count).map_err(|e| StoreError::Unavailable(format!("token count {count}: {e}")))
    }

    async fn tokens(&self) -> Result<Vec<TokenRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, secret_sha256, role, label, created_wall_ms, revoked_wall_ms FROM tokens \
             ORDER BY created_wall_ms, id",
        )
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)?;
        rows.iter().map(token_from_row).collect::<Result<_, _>>().map_err(unavailable)
    }

    async fn player_token_generations(&self, game_id: &str) -> Result<[u32; 2], StoreError> {
        let rows = sqlx::query(
            "SELECT color, MAX(generation)::BIGINT FROM player_token_revocations WHERE game_id = $1 GROUP BY color",
        )
        .bind(game_id)
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)?;
        let rows = rows
            .iter()
            .map(|row| Ok((row.try_get::<String, _>(0)?, row.try_get::<i64, _>(1)?)))
            .collect::<Result<Vec<_>, sqlx::Error>>()
            .map_err(unavailable)?;
        super::generations_from_rows(rows)
    }

    async fn revoke_player_tokens(&self, revocation: &PlayerTokenRevocation) -> Result<[u32; 2], StoreError> {
        let game = revocation.game_id.as_str();
        let mut tx = self.inner.pool.begin().await.map_err(classify)?;
        // The game's row lock makes revocations of one game take turns
        // across replicas: each reads the generation the one before wrote.
        let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM games WHERE id = $1 FOR UPDATE")
            .bind(game)
            .fetch_optional(&mut *tx)
            .await
            .map_err(classify)?;
        if exists.is_none() {
            return Err(StoreError::NotFound(game.to_owned()));
        }
        let (request_id, scope, sha256) = match &revocation.request {
            Some((id, origin)) => {
                (Some(id.as_str()), Some(origin.scope.as_str()), Some(origin.sha256.as_str()))
            }
            None => (None, None, None),
        };
        for (color, revoked) in [("white", revocation.white), ("black", revocation.black)] {
            if !revoked {
                continue;
            }
            let inserted = sqlx::query(
                "INSERT INTO player_token_revocations \
                 (game_id, color, generation, revoked_wall_ms, request_scope, request_id, request_sha256) \
                 SELECT $1, $2, COALESCE(MAX(generation), 0) + 1, $3, $4, $5, $6 \
                 FROM player_token_revocations WHERE game_id = $1 AND color = $2",
            )
            .bind(game)
            .bind(color)
            .bind(revocation.revoked_wall_ms)
            .bind(scope)
            .bind(request_id)
            .bind(sha256)
            .execute(&mut *tx)
            .await;
            match inserted {
                Ok(_) => {}
                Err(e) if unique_violation(&e) == Some(constraint::REVOCATIONS_REQUEST) => {
                    return Err(StoreError::DuplicateRequest {
                        request_id: request_id.unwrap_or_default().to_owned(),
                    });
                }
                Err(e) => return Err(classify(e)),
            }
        }
        let rows = sqlx::query(
            "SELECT color, MAX(generation)::BIGINT FROM player_token_revocations WHERE game_id = $1 GROUP BY color",
        )
        .bind(game)
        .fetch_all(&mut *tx)
        .await
        .map_err(classify)?;
        let rows = rows
            .iter()
            .map(|row| Ok((row.try_get::<String, _>(0)?, row.try_get::<i64, _>(1)?)))
            .collect::<Result<Vec<_>, sqlx::Error>>()
            .map_err(unavailable)?;
        let generations = super::generations_from_rows(rows)?;
        tx.commit().await.map_err(classify)?;
        Ok(generations)
    }

    async fn revocation_request(
        &self,
        game_id: &str,
        scope: &str,
        request_id: &str,
    ) -> Result<Option<RevocationRequest>, StoreError> {
        let rows = sqlx::query(
            "SELECT color, generation::BIGINT, request_sha256 FROM player_token_revocations \
             WHERE game_id = $1 AND request_scope = $2 AND request_id = $3",
        )
        .bind(game_id)
        .bind(scope)
        .bind(request_id)
        .fetch_all(&self.inner.pool)
        .await
        .map_err(classify)?;
        let rows = rows
            .iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
            .collect::<Result<Vec<(String, i64, String)>, sqlx::Error>>()
            .map_err(unavailable)?;
        super::revocation_from_rows(rows)
    }

    async fn revoke_token(&self, id: &str, now_wall_ms: i64) -> Result<bool, StoreError> {
        let done =
            sqlx::query("UPDATE tokens SET revoked_wall_ms = $2 WHERE id = $1 AND revoked_wall_ms IS NULL")
                .bind(id)
                .bind(now_wall_ms)
                .execute(&self.inner.pool)
                .await
                .map_err(classify)?;
        Ok(done.rows_affected() == 1)
    }

    async fn meta_get(&self, key: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT value FROM meta WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.inner.pool)
            .await
            .map_err(classify)
    }

    async fn meta_delete(&self, key: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM meta WHERE key = $1")
            .bind(key)
            .execute(&self.inner.pool)
            .await
            .map_err(classify)?;
        Ok(())
    }

    async fn meta_get_or_insert(&self, key: &str, default: &str) -> Result<String, StoreError> {
        // Two statements, each its own transaction: `ON CONFLICT DO NOTHING`
        // waits for a concurrent insert of the same key to commit or roll
        // back, and the `SELECT` that follows (a new snapshot) then sees
        // whichever value was committed first, the same for every caller in
        // every process.
        sqlx::query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(default)
            .execute(&self.inner.pool)
            .await
            .map_err(classify)?;
        sqlx::query_scalar("SELECT value FROM meta WHERE key = $1")
            .bind(key)
            .fetch_one(&self.inner.pool)
            .await
            .map_err(classify)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        // A store whose writers are gone can still read but cannot serve, so
        // it is not ready.
        if self.inner.writer.is_closed() {
            return Err(writer_stopped());
        }
        sqlx::query("SELECT 1").execute(&self.inner.pool).await.map_err(classify)?;
        Ok(())
    }

    async fn close(&self) {
        let tasks = std::mem::take(&mut *self.inner.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        // The writers handle the close request after everything queued before
        // it, so waiting for them flushes the queue. If they are already gone
        // there is nothing left to flush.
        if self.inner.writer.send(Message::Close).await.is_ok() {
            for writer in tasks.writers {
                if let Err(e) = writer.await {
                    tracing::warn!(error = %e, "a PostgreSQL writer failed");
                }
            }
        }
        self.inner.stop.cancel();
        if let Some(listener) = tasks.listener
            && let Err(e) = listener.await
        {
            tracing::warn!(error = %e, "the PostgreSQL listener failed");
        }
        self.inner.pool.close().await;
    }

    fn subscribe(&self) -> broadcast::Receiver<(String, i64)> {
        self.inner.appended.subscribe()
    }

    async fn heartbeat(&self, replica_id: &str, now_wall_ms: i64) -> Result<(), StoreError> {
        // The replica this store writes for also extends its lease, on the
        // database's clock, and says where it is reached.
        let (address, lease_ms) = match self.inner.replica.get() {
            Some(r) if r.id == replica_id => (Some(r.address.as_str()), Some(duration_ms(r.lease))),
            _ => (None, None),
        };
        sqlx::query(
            "INSERT INTO replicas (id, seen_wall_ms, address, alive_until) \
             VALUES ($1, $2, $3, clock_timestamp() + make_interval(secs => $4::BIGINT / 1000.0)) \
             ON CONFLICT (id) DO UPDATE SET seen_wall_ms = EXCLUDED.seen_wall_ms, \
                 address = coalesce(EXCLUDED.address, replicas.address), \
                 alive_until = coalesce(EXCLUDED.alive_until, replicas.alive_until)",
        )
        .bind(replica_id)
        .bind(now_wall_ms)
        .bind(address)
        .bind(lease_ms)
        .execute(&self.inner.pool)
        .await
        .map_err(classify)?;
        Ok(())
    }

    async fn live_replicas(&self, now_wall_ms: i64, max_age_ms: i64) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar("SELECT id FROM replicas WHERE seen_wall_ms >= $1 ORDER BY id")
            .bind(now_wall_ms.saturating_sub(max_age_ms))
            .fetch_all(&self.inner.pool)
            .await
            .map_err(classify)
    }

    async fn record_outage(&self, last_alive_wall_ms: i64, resumed_wall_ms: i64) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO outages (last_alive_wall_ms, resumed_wall_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .bind(last_alive_wall_ms)
        .bind(resumed_wall_ms)
        .execute(&self.inner.pool)
        .await
        .map_err(classify)?;
        Ok(())
    }

    async fn outages(&self) -> Result<Vec<(i64, i64)>, StoreError> {
        sqlx::query_as("SELECT last_alive_wall_ms, resumed_wall_ms FROM outages ORDER BY resumed_wall_ms")
            .fetch_all(&self.inner.pool)
            .await
            .map_err(classify)
    }

    async fn last_heartbeat(&self) -> Result<Option<i64>, StoreError> {
        sqlx::query_scalar("SELECT MAX(seen_wall_ms) FROM replicas")
            .fetch_one(&self.inner.pool)
            .await
            .map_err(classify)
    }
}

/// A message to the writers.
enum Message {
    Job(Job),
    /// Serve what is queued, then stop.
    Close,
}

/// One append and where its outcome goes.
struct Job {
    append: Append,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

/// A writer task: takes batches from the shared queue and commits them on a
/// connection of its own.
struct Writer {
    replica: Arc<OnceLock<Replica>>,
    /// `None` until the first batch, and after a failure that may have left
    /// the connection broken; the next batch opens a new one.
    conn: Option<PgConnection>,
    options: PgConnectOptions,
    /// Shared by the writers; the one holding the lock waits for the next
    /// batch while the others work.
    queue: Arc<tokio::sync::Mutex<mpsc::Receiver<Message>>>,
}

impl Writer {
    async fn run(mut self) {
        let mut messages = Vec::with_capacity(MAX_BATCH);
        loop {
            {
                let mut queue = self.queue.lock().await;
                // `recv_many` returns 0 only once the queue is closed (every
                // sender dropped, or a close request) and drained.
                if queue.recv_many(&mut messages, MAX_BATCH).await == 0 {
                    break;
                }
                if messages.iter().any(|message| matches!(message, Message::Close)) {
                    // New appends are refused from now on; those already
                    // queued are still served.
                    queue.close();
                }
            }
            let jobs: Vec<Job> = messages
                .drain(..)
                .filter_map(|message| match message {
                    Message::Job(job) => Some(job),
                    Message::Close => None,
                })
                .collect();
            if !jobs.is_empty() {
                self.run_batch(jobs).await;
            }
        }
        if let Some(conn) = self.conn.take()
            && let Err(e) = conn.close().await
        {
            tracing::warn!(error = %e, "closing a PostgreSQL write connection");
        }
    }

    /// Commits the jobs in one statement and answers them once it is
    /// settled.
    async fn run_batch(&mut self, jobs: Vec<Job>) {
        let appends: Vec<&Append> = jobs.iter().map(|job| &job.append).collect();
        let started = std::time::Instant::now();
        let reason = match tokio::time::timeout(WRITE_TIMEOUT, self.try_batch(&appends)).await {
            Ok(Ok(outcomes)) => {
                tracing::trace!(jobs = jobs.len(), us = started.elapsed().as_micros(), "committed a batch");
                for (job, outcome) in jobs.into_iter().zip(outcomes) {
                    // A caller that stopped waiting (its request was
                    // cancelled) just misses the answer; the write stands.
                    let _ = job.reply.send(outcome);
                }
                return;
            }
            Ok(Err(e)) => {
                if !leaves_connection_usable(&e) {
                    self.conn = None;
                }
                describe(&e)
            }
            Err(_) => {
                // An answer may still be on its way: the connection is out of
                // step with us and cannot be reused.
                self.conn = None;
                format!("no answer from PostgreSQL within {WRITE_TIMEOUT:?}")
            }
        };
        tracing::error!(jobs = jobs.len(), %reason, "PostgreSQL write batch failed");
        for job in jobs {
            let _ = job.reply.send(Err(StoreError::Unavailable(reason.clone())));
        }
    }

    /// Runs the batch. `Ok` holds one outcome per append and means the
    /// statement's transaction committed; `Err` means none of the batch may
    /// be assumed written.
    async fn try_batch(&mut self, appends: &[&Append]) -> Result<Vec<Result<(), StoreError>>, sqlx::Error> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => {
                let conn = connect(&self.options).await?;
                tracing::info!("opened a PostgreSQL write connection");
                self.conn.insert(conn)
            }
        };
        append_batch(conn, appends, self.replica.get().map(|r| r.id.as_str())).await
    }
}

/// Whether a connection that returned this error can take the next batch:
/// yes after a plain database error (the failed statement's transaction is
/// rolled back and the session is idle), no after a lost connection or a
/// shutdown.
fn leaves_connection_usable(e: &sqlx::Error) -> bool {
    match e.as_database_error().and_then(|db| db.code()) {
        Some(code) => !code::CONNECTION_CLASSES.iter().any(|class| code.starts_with(class)),
        None => false,
    }
}

/// Runs appends as one call of `arbiter_append_batch` (see the module
/// documentation): one statement in its own implicit transaction. sqlx reads
/// a statement's answer up to the server's `ReadyForQuery`, which comes
/// after the commit, so an `Ok` here means committed (and a commit that
/// fails is an `Err`).
async fn append_batch(
    conn: &mut PgConnection,
    appends: &[&Append],
    owner: Option<&str>,
) -> Result<Vec<Result<(), StoreError>>, sqlx::Error> {
    // Every batch takes its games' row locks in id order (stable, so that two
    // appends to one game keep their order): see the module documentation.
    let mut order: Vec<usize> = (0..appends.len()).collect();
    order.sort_by(|&a, &b| appends[a].game_id.cmp(&appends[b].game_id));

    let events = appends.iter().map(|append| append.events.len()).sum();
    let mut game_ids = Vec::with_capacity(appends.len());
    let mut expected = Vec::with_capacity(appends.len());
    let mut statuses = Vec::with_capacity(appends.len());
    let mut results = Vec::with_capacity(appends.len());
    let mut counts = Vec::with_capacity(appends.len());
    let mut seqs = Vec::with_capacity(events);
    let mut request_ids = Vec::with_capacity(events);
    let mut actors = Vec::with_capacity(events);
    let mut at_ms = Vec::with_capacity(events);
    let mut wall_ms = Vec::with_capacity(events);
    let mut event_jsons = Vec::with_capacity(events);
    let mut rulings_jsons = Vec::with_capacity(events);
    let mut formats = Vec::with_capacity(events);
    let mut scopes = Vec::with_capacity(events);
    let mut sha256s = Vec::with_capacity(events);
    let mut views = Vec::with_capacity(appends.len());
    let mut view_formats = Vec::with_capacity(appends.len());
    let mut deadlines = Vec::with_capacity(appends.len());
    for append in order.iter().map(|&i| appends[i]) {
        game_ids.push(append.game_id.as_str());
        expected.push(append.expected_last_seq);
        statuses.push(append.status.as_str());
        results.push(append.result.as_deref());
        views.push(append.view.as_ref().map(|v| v.json.as_str()));
        view_formats.push(append.view.as_ref().map(|v| v.format));
        deadlines.push(append.deadline_wall_ms);
        // Checked by `append` before queueing.
        counts.push(i32::try_from(append.events.len()).unwrap_or(i32::MAX));
        for event in &append.events {
            seqs.push(event.seq);
            request_ids.push(event.request_id.as_deref());
            actors.push(event.actor.as_str());
            at_ms.push(event.at_ms);
            wall_ms.push(event.wall_ms);
            event_jsons.push(event.event_json.as_str());
            rulings_jsons.push(event.rulings_json.as_str());
            formats.push(event.format);
            scopes.push(event.origin.as_ref().map(|o| o.scope.as_str()));
            sha256s.push(event.origin.as_ref().map(|o| o.sha256.as_str()));
        }
    }
    let rows = sqlx::query(
        "SELECT o_index, o_outcome, o_detail \
         FROM arbiter_append_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)",
    )
    .bind(game_ids)
    .bind(expected)
    .bind(statuses)
    .bind(results)
    .bind(counts)
    .bind(seqs)
    .bind(request_ids)
    .bind(actors)
    .bind(at_ms)
    .bind(wall_ms)
    .bind(event_jsons)
    .bind(rulings_jsons)
    .bind(formats)
    .bind(views)
    .bind(view_formats)
    .bind(scopes)
    .bind(sha256s)
    .bind(deadlines)
    .bind(owner)
    .fetch_all(&mut *conn)
    .await?;

    let mut outcomes: Vec<Option<Result<(), StoreError>>> = appends.iter().map(|_| None).collect();
    for row in &rows {
        let index: i32 = row.try_get(0)?;
        let outcome: &str = row.try_get(1)?;
        let detail: Option<String> = row.try_get(2)?;
        let Some(&position) = usize::try_from(index).ok().and_then(|i| order.get(i.wrapping_sub(1))) else {
            continue;
        };
        let append = appends[position];
        outcomes[position] = Some(match outcome {
            "ok" => Ok(()),
            "conflict" => Err(StoreError::Conflict {
                game_id: append.game_id.clone(),
                expected: append.expected_last_seq,
            }),
            "duplicate" => Err(StoreError::DuplicateRequest { request_id: detail.unwrap_or_default() }),
            "not_found" => Err(StoreError::NotFound(append.game_id.clone())),
            "moved" => Err(StoreError::Moved { game_id: append.game_id.clone(), owner: detail }),
            "invalid" => Err(StoreError::Invalid(detail.unwrap_or_default())),
            other => Err(StoreError::Unavailable(format!("unexpected append outcome {other:?}"))),
        });
    }
    // The transaction is committed at this point: an append without an
    // outcome (which the function never does) is reported as in doubt rather
    // than failing the others.
    Ok(outcomes
        .into_iter()
        .map(|outcome| {
            outcome.unwrap_or_else(|| Err(StoreError::Unavailable("no outcome for an append".to_owned())))
        })
        .collect())
}

/// A fresh listener on [`CHANNEL`], on a connection of `pool` (a pool of one,
/// which reconnects).
async fn listen(pool: &PgPool) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    // A lost connection makes `try_recv` return `None` instead of quietly
    // reconnecting, so that the loss is never missed (see `run_listener`).
    listener.eager_reconnect(false);
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

/// Forwards notifications to the subscribers until `stop`; after a lost
/// connection, listens again (retrying with a growing pause) and sends
/// `(RESYNC, 0)` once it does, since whatever was notified in between is
/// lost.
async fn run_listener(
    pool: PgPool,
    listener: PgListener,
    appended: broadcast::Sender<(String, i64)>,
    stop: CancellationToken,
) {
    let mut current = Some(listener);
    while let Some(listener) = current.as_mut() {
        let Some(lost) = receive(listener, &appended, &stop).await else { break };
        tracing::warn!(reason = %lost, "lost the PostgreSQL notification connection; reconnecting");
        // The old listener goes first: it may still hold the pool's only
        // connection.
        drop(current.take());
        current = relisten(&pool, &stop).await;
        if current.is_some() {
            tracing::info!("listening for PostgreSQL notifications again");
            // Sending fails only when nobody subscribes, and then nobody
            // missed anything either.
            let _ = appended.send((RESYNC.to_owned(), 0));
        }
    }
    // The listener returns its connection before the pool closes, which
    // waits for every connection to come back.
    drop(current);
    pool.close().await;
}

/// Forwards notifications until the connection is lost (`Some(reason)`) or
/// `stop` fires (`None`).
async fn receive(
    listener: &mut PgListener,
    appended: &broadcast::Sender<(String, i64)>,
    stop: &CancellationToken,
) -> Option<String> {
    loop {
        // Receiving is cancel-safe (sqlx keeps a partly read message in its
        // buffer), so the ping timer and `stop` may interrupt it.
        let received = tokio::select! {
            () = stop.cancelled() => return None,
            received = tokio::time::timeout(LISTENER_IDLE_PING, listener.try_recv()) => received,
        };
        match received {
            Ok(Ok(Some(notification))) => forward(appended, &notification),
            Ok(Ok(None)) => return Some("the connection was closed".to_owned()),
            Ok(Err(e)) => return Some(describe(&e)),
            Err(_idle) => {
                let ping = sqlx::query("SELECT 1").execute(&mut *listener);
                match tokio::time::timeout(LISTENER_PING_TIMEOUT, ping).await {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => return Some(describe(&e)),
                    Err(_) => return Some("no answer to a ping".to_owned()),
                }
            }
        }
    }
}

/// A new listener, retrying with a growing pause until one listens
/// (`Some`) or `stop` fires (`None`).
async fn relisten(pool: &PgPool, stop: &CancellationToken) -> Option<PgListener> {
    let mut delay = RECONNECT_DELAYS.0;
    loop {
        let attempt = tokio::select! {
            () = stop.cancelled() => return None,
            attempt = listen(pool) => attempt,
        };
        match attempt {
            Ok(listener) => return Some(listener),
            Err(e) => {
                tracing::warn!(error = %describe(&e), ?delay, "cannot listen for PostgreSQL notifications");
            }
        }
        tokio::select! {
            () = stop.cancelled() => return None,
            () = tokio::time::sleep(delay) => {}
        }
        delay = (delay * 2).min(RECONNECT_DELAYS.1);
    }
}

/// Parses a `game_id:last_seq` payload (the game id may itself hold colons)
/// and hands it to the subscribers.
fn forward(appended: &broadcast::Sender<(String, i64)>, notification: &PgNotification) {
    let payload = notification.payload();
    match payload.rsplit_once(':').and_then(|(game, seq)| Some((game, seq.parse::<i64>().ok()?))) {
        Some((game, seq)) => {
            let _ = appended.send((game.to_owned(), seq));
        }
        None => tracing::warn!(payload, "ignoring a malformed notification on {CHANNEL}"),
    }
}

/// The violated constraint of a unique violation.
/// Inserts a new game's row (one statement; the caller owns the
/// transaction and tells the errors apart).
async fn insert_game_row(
    conn: &mut sqlx::PgConnection,
    game: &GameRow,
) -> Result<sqlx::postgres::PgQueryResult, sqlx::Error> {
    sqlx::query(concat!(
        "INSERT INTO games (",
        game_columns!(),
        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
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
    .execute(conn)
    .await
}

fn unique_violation(e: &sqlx::Error) -> Option<&str> {
    let db = e.as_database_error()?;
    if db.code().as_deref() == Some(code::UNIQUE) { db.constraint() } else { None }
}

/// Maps an error that no caller-specific rule explained. Integrity
/// violations are the caller's data breaking the schema; anything else is
/// the database failing or unreachable.
fn classify(e: sqlx::Error) -> StoreError {
    match e.as_database_error().and_then(|db| db.code()) {
        Some(code) if code.starts_with(code::INTEGRITY_CLASS) => StoreError::Invalid(describe(&e)),
        _ => unavailable(e),
    }
}

/// Refused connections, pool timeouts, shutdowns, a full disk, a read-only
/// server, undecodable rows: the store cannot serve this now.
fn unavailable(e: sqlx::Error) -> StoreError {
    StoreError::Unavailable(describe(&e))
}

/// The error's message with its SQLSTATE, which is what tells an operator
/// "disk full" from "read-only". sqlx's messages never hold the URL.
fn describe(e: &sqlx::Error) -> String {
    match e.as_database_error().and_then(|db| db.code()) {
        Some(code) => format!("{e} (SQLSTATE {code})"),
        None => e.to_string(),
    }
}

fn game_from_row(row: &PgRow) -> Result<GameRow, sqlx::Error> {
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

fn event_from_row(row: &PgRow) -> Result<EventRow, sqlx::Error> {
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

fn token_from_row(row: &PgRow) -> Result<TokenRow, sqlx::Error> {
    Ok(TokenRow {
        id: row.try_get(0)?,
        secret_sha256: row.try_get(1)?,
        role: row.try_get(2)?,
        label: row.try_get(3)?,
        created_wall_ms: row.try_get(4)?,
        revoked_wall_ms: row.try_get(5)?,
    })
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::error::Error as StdError;

    use sqlx::error::{DatabaseError, ErrorKind};

    use super::*;

    /// A database error with the given SQLSTATE and constraint, as the
    /// PostgreSQL driver reports them.
    #[derive(Debug)]
    struct Fake {
        code: &'static str,
        constraint: Option<&'static str>,
    }

    impl std::fmt::Display for Fake {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "simulated error")
        }
    }

    impl StdError for Fake {}

    impl DatabaseError for Fake {
        fn message(&self) -> &str {
            "simulated error"
        }

        fn code(&self) -> Option<Cow<'_, str>> {
            Some(Cow::Borrowed(self.code))
        }

        fn as_error(&self) -> &(dyn StdError + Send + Sync + 'static) {
            self
        }

        fn as_error_mut(&mut self) -> &mut (dyn StdError + Send + Sync + 'static) {
            self
        }

        fn into_error(self: Box<Self>) -> Box<dyn StdError + Send + Sync + 'static> {
            self
        }

        fn constraint(&self) -> Option<&str> {
            self.constraint
        }

        fn kind(&self) -> ErrorKind {
            ErrorKind::Other
        }
    }

    fn database(code: &'static str, constraint: Option<&'static str>) -> sqlx::Error {
        sqlx::Error::Database(Box::new(Fake { code, constraint }))
    }

    #[test]
    fn failures_of_the_database_are_unavailable() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        for (what, error) in [
            ("connection refused", sqlx::Error::Io(refused)),
            ("pool timeout", sqlx::Error::PoolTimedOut),
            ("closed pool", sqlx::Error::PoolClosed),
            ("administrator shutdown", database("57P01", None)),
            ("cannot connect now", database("57P03", None)),
            ("disk full", database("53100", None)),
            ("out of memory", database("53200", None)),
            ("too many connections", database("53300", None)),
            ("read-only transaction", database("25006", None)),
            ("connection failure", database("08006", None)),
            ("serialization failure", database("40001", None)),
            ("deadlock", database("40P01", None)),
            ("statement timeout", database("57014", None)),
        ] {
            let mapped = classify(error);
            assert!(matches!(mapped, StoreError::Unavailable(_)), "{what}: {mapped:?}");
        }
        // The SQLSTATE is kept for the operator.
        let mapped = classify(database("53100", None));
        assert!(matches!(&mapped, StoreError::Unavailable(reason) if reason.contains("53100")), "{mapped:?}");
    }

    #[test]
    fn integrity_violations_are_invalid() {
        for code in ["23505", "23503", "23514", "23502"] {
            assert!(matches!(classify(database(code, Some("x"))), StoreError::Invalid(_)), "{code}");
        }
    }

    #[test]
    fn unique_violations_name_their_constraint() {
        let taken = database("23505", Some(constraint::GAMES_PKEY));
        assert_eq!(unique_violation(&taken), Some(constraint::GAMES_PKEY));
        assert_eq!(unique_violation(&database("23503", Some("game_events_game_id_fkey"))), None);
        assert_eq!(unique_violation(&sqlx::Error::PoolTimedOut), None);
    }

    #[test]
    fn lost_connections_are_replaced() {
        // The session survives a failed statement...
        assert!(leaves_connection_usable(&database("53100", None)));
        assert!(leaves_connection_usable(&database("25006", None)));
        // ...but not a shutdown, a broken connection or an I/O error.
        assert!(!leaves_connection_usable(&database("57P01", None)));
        assert!(!leaves_connection_usable(&database("08006", None)));
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset");
        assert!(!leaves_connection_usable(&sqlx::Error::Io(reset)));
    }
}
