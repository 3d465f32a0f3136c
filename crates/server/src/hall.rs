//! The playing hall: every loaded game's table, loaded on first use, the
//! timers of the games in play that are not loaded, and the reads that
//! answer without loading one.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Mutex, OnceCell, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::error::ApiError;
use crate::request::Stamped;
use crate::store::{EventStore, GameRow, InPlay, Owner, Storage};
use crate::table::{self, Outages, TableHandle, wall_ms};
use crate::timers::{self, Timers};
use crate::view::GameReading;

/// Games whose read model is rebuilt per page of [`Hall::rebuild_views`].
const REBUILD_PAGE: u32 = 100;

/// The smallest map size at which stopped tables are pruned.
const MIN_PRUNE_AT: usize = 256;

/// How often the tables that stopped are forgotten.
const SWEEP_STOPPED: std::time::Duration = std::time::Duration::from_secs(1);

/// Games loaded at once for their deadlines: enough to keep both cores
/// busy with the reads and replays, few enough that a burst of deadlines
/// does not queue thousands of loads ahead of the players' acts.
const DEADLINE_LOADS: usize = 16;

/// Forgets the tables that stopped (put away, or finished and idle): a
/// stopped table's handle still holds its channels, and the next use of its
/// game loads it again.
fn forget_stopped(tables: &mut HashMap<String, Arc<OnceCell<TableHandle>>>) {
    tables.retain(|_, cell| !cell.get().is_some_and(TableHandle::is_closed));
}

/// How long the survivors of a replica whose lease ran out take only
/// their share of its games (see [`Hall::take_over_dead`]).
const SHARE_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Where a game's acts are judged.
#[derive(Debug)]
pub enum Route {
    /// Here, by this table.
    Here(TableHandle),
    /// By another replica, reached at `address`.
    Elsewhere { replica: String, address: String },
}

/// The tables of the games in memory.
#[derive(Debug)]
pub struct Hall {
    store: Storage,
    tables: Mutex<HashMap<String, Arc<OnceCell<TableHandle>>>>,
    /// When the map reaches this size, the tables of finished games that
    /// stopped are forgotten (amortised: the next prune waits until the map
    /// has doubled again).
    prune_at: AtomicUsize,
    /// The outages a game loaded now may have crossed (read again from the
    /// store by [`Hall::arm_in_play`]: another replica may record one).
    outages: std::sync::RwLock<Outages>,
    /// The deadlines of the games in play that are not loaded.
    timers: Arc<Timers>,
    /// When each owner whose lease ran out was first seen with games in
    /// play (see [`Hall::take_over_dead`]).
    dead_seen: std::sync::Mutex<HashMap<Option<String>, std::time::Instant>>,
}

impl Hall {
    /// A hall over `store`, knowing of `outages` of the service.
    pub fn new(store: Storage, outages: Outages) -> Hall {
        Hall {
            store,
            tables: Mutex::new(HashMap::new()),
            prune_at: AtomicUsize::new(MIN_PRUNE_AT),
            outages: std::sync::RwLock::new(outages),
            timers: Arc::default(),
            dead_seen: std::sync::Mutex::default(),
        }
    }

    /// The deadlines armed for games that are not loaded.
    pub fn timers(&self) -> &Timers {
        &self.timers
    }

    fn outages(&self) -> Outages {
        self.outages.read().map_or_else(|e| e.into_inner().clone(), |o| o.clone())
    }

    pub fn store(&self) -> &Storage {
        &self.store
    }

    /// The table of game `id`, loading it from storage if needed. Only one
    /// table is ever started per game: concurrent callers wait for the same
    /// load.
    ///
    /// # Errors
    /// [`ApiError::NotFound`], [`ApiError::Unavailable`],
    /// [`ApiError::Internal`].
    pub async fn table(&self, id: &str) -> Result<TableHandle, ApiError> {
        loop {
            let cell = {
                let mut tables = self.tables.lock().await;
                if tables.len() >= self.prune_at.load(Ordering::Relaxed) {
                    // Memory follows the games in play, not every game ever
                    // played: a stopped table still holds its last events.
                    forget_stopped(&mut tables);
                    self.prune_at.store((tables.len() * 2).max(MIN_PRUNE_AT), Ordering::Relaxed);
                }
                let cell = tables.entry(id.to_string()).or_default().clone();
                metrics::gauge!("arbiter_tables_in_memory").set(tables.len() as f64);
                // A finished or pending game's table stops when idle; forget
                // it so that the next use loads it again.
                if cell.get().is_some_and(TableHandle::is_closed) {
                    tables.remove(id);
                    continue;
                }
                cell
            };
            let result = cell
                .get_or_try_init(|| async {
                    // On a shared database, the game goes to this replica
                    // unless another one alive runs it; then the table here
                    // only follows the log.
                    let owner = self.store.claim(id).await?;
                    table::open(self.store.clone(), id, self.outages(), Some(Arc::clone(&self.timers)), owner)
                        .await
                })
                .await
                .cloned();
            if result.is_err() {
                // Do not keep a failed load: the next call tries again.
                let mut tables = self.tables.lock().await;
                if tables.get(id).is_some_and(|c| Arc::ptr_eq(c, &cell) && c.get().is_none()) {
                    tables.remove(id);
                }
            }
            return result;
        }
    }

    /// Where the acts on game `id` are judged: here (with its table), or on
    /// the replica that runs it. A follower that does not know where its
    /// owner is reached (it learnt of the owner from a fenced append) asks
    /// the database again, and takes the game if the owner is gone.
    ///
    /// # Errors
    /// As [`Hall::table`].
    pub async fn route(&self, id: &str) -> Result<Route, ApiError> {
        let table = self.table(id).await?;
        match table.owner() {
            Owner::Here => Ok(Route::Here(table)),
            Owner::Elsewhere { replica, address } if !address.is_empty() => {
                Ok(Route::Elsewhere { replica, address })
            }
            Owner::Elsewhere { .. } => self.reroute(id, &table).await,
        }
    }

    /// Asks the database who runs game `id` now (its owner did not answer,
    /// or this table was fenced), taking it if the owner's lease ran out.
    ///
    /// # Errors
    /// As [`Hall::table`].
    pub async fn reroute(&self, id: &str, table: &TableHandle) -> Result<Route, ApiError> {
        match self.store.claim(id).await? {
            Owner::Here => {
                table.own().await?;
                Ok(Route::Here(table.clone()))
            }
            Owner::Elsewhere { replica, address } => {
                table.follow(replica.clone(), address.clone());
                Ok(Route::Elsewhere { replica, address })
            }
        }
    }

    /// The table of game `id`, run here: taken over from the replica that
    /// runs it if needed. For acts that cannot be forwarded (an e-board
    /// read here, an arbiter's cancellation): the previous owner's next
    /// append is fenced and its table follows the log from then on.
    ///
    /// # Errors
    /// As [`Hall::table`].
    pub async fn seize(&self, id: &str) -> Result<TableHandle, ApiError> {
        let table = self.table(id).await?;
        if table.owner() != Owner::Here {
            self.store.seize(id).await?;
            table.own().await?;
        }
        Ok(table)
    }

    /// Takes over the games in play of the replicas whose lease ran out
    /// (those nobody owns too). A dead owner's games are first split among
    /// the replicas alive by a hash of their ids (each takes its share at
    /// once); what is left after [`SHARE_GRACE`] (a survivor that missed
    /// the death, or died too) goes to whoever looks next. Each game taken
    /// is loaded if its table is here, else its deadline armed. Returns how
    /// many games were taken.
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the database cannot be read.
    pub async fn take_over_dead(&self) -> Result<usize, ApiError> {
        let dead = self.store.dead_owners().await?;
        let first_seen: Vec<std::time::Instant> = {
            let mut seen = self.dead_seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            seen.retain(|owner, _| dead.contains(owner));
            dead.iter()
                .map(|owner| *seen.entry(owner.clone()).or_insert_with(std::time::Instant::now))
                .collect()
        };
        if dead.is_empty() {
            return Ok(0);
        }
        let alive = self.store.leaseholders().await?;
        let me = self.store.replica_id();
        let mut taken = Vec::new();
        for (owner, first) in dead.into_iter().zip(first_seen) {
            let share = match alive.iter().position(|r| Some(r.as_str()) == me.as_deref()) {
                Some(k) if first.elapsed() < SHARE_GRACE => Some((alive.len() as i64, k as i64)),
                _ => None,
            };
            let games = self.store.take_over(owner.as_deref(), share).await?;
            if !games.is_empty() {
                tracing::info!(
                    from = owner.as_deref().unwrap_or("(nobody)"),
                    games = games.len(),
                    "games taken over from a replica whose lease ran out"
                );
            }
            taken.extend(games);
        }
        let n = taken.len();
        self.arm(taken).await;
        metrics::counter!("arbiter_games_taken_over_total").increment(n as u64);
        Ok(n)
    }

    /// Arms the timers of games in play this replica runs, or hands them to
    /// their tables here.
    async fn arm(&self, games: Vec<InPlay>) -> usize {
        let outages = self.outages();
        let mut armed = 0;
        for game in games {
            if let Some(table) = self.loaded_table(&game.id).await {
                if let Err(e) = table.own().await {
                    tracing::warn!(game = %game.id, error = %e, "cannot take over a loaded game; loading it again");
                    self.timers.arm(&game.id, wall_ms());
                }
                armed += 1;
                continue;
            }
            match game.deadline_wall_ms {
                // A paused clock: nothing to arm.
                None => continue,
                // A row written before deadlines were recorded: due at once.
                Some(0) => self.timers.arm(&game.id, wall_ms()),
                Some(deadline) => {
                    self.timers
                        .arm(&game.id, deadline + outages.uncharged_ms(game.updated_wall_ms, i64::MAX));
                }
            }
            armed += 1;
        }
        armed
    }

    /// The table of game `id` if it is loaded here (and running).
    async fn loaded_table(&self, id: &str) -> Option<TableHandle> {
        let tables = self.tables.lock().await;
        tables.get(id).and_then(|c| c.get()).filter(|t| !t.is_closed()).cloned()
    }

    /// The game as a reader sees it now. A game loaded here answers from its
    /// table; a finished game from its row's read model, without loading it
    /// (it no longer changes); a game in play that is not loaded here is
    /// loaded, so that its clocks are read now and its deadlines run.
    ///
    /// # Errors
    /// [`ApiError::NotFound`], and as [`Hall::table`] and
    /// [`GameReading::from_row`].
    pub async fn read(&self, id: &str) -> Result<GameReading, ApiError> {
        match self.finished_unloaded(id).await? {
            Some(reading) => Ok(reading),
            None => self.table(id).await?.read().await,
        }
    }

    /// A finished game that is not loaded here, read from its row's read
    /// model; `None` for a game loaded here, a game in play, or a row
    /// without a read model.
    ///
    /// # Errors
    /// [`ApiError::NotFound`], [`ApiError::Unavailable`], and as
    /// [`GameReading::from_row`].
    pub async fn finished_unloaded(&self, id: &str) -> Result<Option<GameReading>, ApiError> {
        if self.loaded_table(id).await.is_some() {
            return Ok(None);
        }
        let row = self.store.game(id).await?.ok_or_else(|| ApiError::NotFound(format!("games/{id}")))?;
        // Withdrawn games no longer change either.
        if row.status.is_open() {
            return Ok(None);
        }
        GameReading::from_row(&row, wall_ms())
    }

    /// The game of an index row as a list shows it, without loading it: from
    /// its table if it is loaded here, else from the row's read model (a
    /// game in play then shows its clocks as they stood at its last event,
    /// with that read time). Only a row without a read model (written by a
    /// release before read models, until [`Hall::rebuild_views`] reaches
    /// it) is read from its log.
    ///
    /// # Errors
    /// As [`Hall::read`].
    pub async fn list_reading(&self, row: &GameRow) -> Result<GameReading, ApiError> {
        // A table that stopped since (an idle finished game) leaves the row.
        if let Some(table) = self.loaded_table(&row.id).await
            && let Ok(reading) = table.read().await
        {
            return Ok(reading);
        }
        if let Some(reading) = GameReading::from_row(row, wall_ms())? {
            return Ok(reading);
        }
        metrics::counter!("arbiter_reads_from_log_total").increment(1);
        self.table(&row.id).await?.read().await
    }

    /// Gives every game not in play without a read model (rows of a
    /// release before read models, games never loaded since their
    /// creation) one, by loading it once: its table writes the model of the
    /// game as its log has it. Run in the background at start-up; reads
    /// are correct meanwhile, only slower for those games. A game in play
    /// is left to its table, which stores its model when it stops (see
    /// `Table::stores_view`): loading every game in play that a crash left
    /// without one would hold them all in memory at once. Returns how many
    /// games were loaded.
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the index cannot be read.
    pub async fn rebuild_views(&self) -> Result<usize, ApiError> {
        let mut after = String::new();
        let mut rebuilt = 0;
        loop {
            let ids = self.store.games_without_view(&after, REBUILD_PAGE).await?;
            let Some(last) = ids.last() else { break };
            after = last.clone();
            for id in &ids {
                // Loading writes the view (see `table::open`); the read waits
                // until the table has started, hence until it is written.
                match self.table(id).await {
                    Ok(table) => {
                        let _ = table.read().await;
                        rebuilt += 1;
                    }
                    Err(e) => tracing::warn!(game = %id, error = %e, "cannot rebuild the read model"),
                }
            }
            if ids.len() < REBUILD_PAGE as usize {
                break;
            }
        }
        Ok(rebuilt)
    }

    /// Creates a game in storage (its table is loaded on first use); with
    /// a cap, only while its creator has fewer unfinished games.
    ///
    /// # Errors
    /// As [`EventStore::create_requested_game`] and
    /// [`EventStore::create_game_capped`] (`TooManyOpen` becomes
    /// `RESOURCE_EXHAUSTED`, reason `TOO_MANY_UNFINISHED_GAMES`).
    pub async fn create(
        &self,
        row: &GameRow,
        request: Option<&Stamped>,
        cap: Option<u64>,
    ) -> Result<(), ApiError> {
        match (request, cap) {
            (Some(stamped), cap) => {
                self.store.create_requested_game(row, &stamped.id, &stamped.origin, cap).await
            }
            (None, Some(cap)) => self.store.create_game_capped(row, cap).await,
            (None, None) => self.store.create_game(row).await,
        }
        .map_err(ApiError::from)
    }

    /// Arms the timer of every game in play that is not loaded here, from
    /// the deadlines the games index holds (one read, no replay), so that
    /// each is loaded shortly before its deadline (see [`Hall::run_timers`]).
    /// A deadline recorded before an outage moves by the outage, which is
    /// not charged (see [`Outages`]). Games whose index row predates
    /// recorded deadlines are loaded at once. Returns how many games were
    /// armed or loaded. Pending games have no timer: each is loaded when it
    /// is next used.
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the list cannot be read.
    pub async fn arm_in_play(&self) -> Result<usize, ApiError> {
        if let Ok(list) = self.store.outages().await
            && let Ok(mut outages) = self.outages.write()
        {
            *outages = Outages::new(list);
        }
        let games = self.store.owned_in_play().await?;
        let armed = self.arm(games).await;
        metrics::gauge!("arbiter_tables_in_memory").set(self.loaded().await as f64);
        Ok(armed)
    }

    /// Forgets the tables that stopped, every [`SWEEP_STOPPED`] rather than
    /// when the map has doubled (see [`Hall::table`]).
    async fn sweep_stopped(&self) {
        let mut tables = self.tables.lock().await;
        forget_stopped(&mut tables);
        metrics::gauge!("arbiter_tables_in_memory").set(tables.len() as f64);
    }

    /// Loads each game whose armed deadline is near ([`timers::LEAD`]
    /// ahead), so that its table rules at the deadline; runs until `stop`.
    pub async fn run_timers(self: Arc<Self>, stop: CancellationToken) {
        let loads = Arc::new(Semaphore::new(DEADLINE_LOADS));
        let lead = i64::try_from(timers::LEAD.as_millis()).unwrap_or(i64::MAX);
        let mut sweep = tokio::time::interval(SWEEP_STOPPED);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let wait = match self.timers.earliest() {
                Some(at) => {
                    std::time::Duration::from_millis(u64::try_from(at - lead - wall_ms()).unwrap_or(0))
                }
                // Woken by the first deadline armed.
                None => std::time::Duration::from_secs(3600),
            };
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.timers.earlier_armed() => continue,
                _ = sweep.tick() => {
                    self.sweep_stopped().await;
                    continue;
                }
                () = tokio::time::sleep(wait) => {}
            }
            for id in self.timers.take_due(wall_ms() + lead) {
                let Ok(permit) = Arc::clone(&loads).acquire_owned().await else { return };
                let hall = Arc::clone(&self);
                tokio::spawn(async move {
                    match hall.table(&id).await {
                        Ok(_) => {}
                        Err(e @ ApiError::Unavailable(_)) => {
                            // Not lost: armed again shortly, to try again.
                            tracing::warn!(game = %id, error = %e, "cannot load a game for its deadline; retrying");
                            hall.timers.arm(&id, wall_ms() + 250);
                        }
                        Err(e) => {
                            tracing::error!(game = %id, error = %e, "cannot load a game for its deadline")
                        }
                    }
                    drop(permit);
                });
            }
        }
    }

    /// Withdraws the pending games created more than `ttl` ago (an `EXPIRED`
    /// withdrawal, recorded by the server), at most `limit` of them; returns
    /// how many it recorded. Safe on every replica at once: each withdrawal
    /// is an append at the game's next sequence number, so one lands and the
    /// others find the game already withdrawn.
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the pending games cannot be listed.
    pub async fn expire_pending(&self, ttl: std::time::Duration, limit: u32) -> Result<usize, ApiError> {
        let cutoff = wall_ms().saturating_sub(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX));
        let ids = self.store.pending_created_before(cutoff, limit).await?;
        let mut expired = 0;
        for id in ids {
            let withdraw = table::Act::Event(arbiter_laws::event::Event::Withdraw {
                reason: arbiter_laws::event::Withdrawal::Expired,
            });
            let outcome = match self.table(&id).await {
                Ok(table) => table.act(withdraw, "server", None, None).await,
                Err(e) => Err(e),
            };
            match outcome {
                Ok(_) => {
                    expired += 1;
                    metrics::counter!("arbiter_games_expired_total").increment(1);
                }
                // Started or withdrawn meanwhile (here or on another
                // replica): nothing to do.
                // Or run by another replica, which expires it.
                Err(ApiError::Rejected(_) | ApiError::Aborted { .. } | ApiError::Moved { .. }) => {}
                Err(e) => tracing::warn!(game = %id, error = %e, "cannot expire a pending game"),
            }
        }
        Ok(expired)
    }

    /// Passes on another writer's append to the game's table; returns
    /// whether the game is loaded here.
    pub async fn notify(&self, id: &str, seq: i64) -> bool {
        let table = self.tables.lock().await.get(id).and_then(|c| c.get().cloned());
        if let Some(t) = table {
            t.notify(seq);
            return true;
        }
        false
    }

    /// Tells every loaded table to read the log (after a lost connection to
    /// the notifications, some appends may have gone unannounced).
    pub async fn notify_all(&self) {
        let tables: Vec<TableHandle> =
            self.tables.lock().await.values().filter_map(|c| c.get().cloned()).collect();
        for t in tables {
            t.notify(i64::MAX);
        }
    }

    /// How many tables are loaded.
    pub async fn loaded(&self) -> usize {
        self.tables.lock().await.len()
    }
}
