//! The playing hall: every loaded game's table, loaded on first use.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Mutex, OnceCell};

use crate::error::ApiError;
use crate::store::{EventStore, GameRow, Storage};
use crate::table::{self, Continuity, TableHandle};

/// The smallest map size at which stopped tables are pruned.
const MIN_PRUNE_AT: usize = 256;

/// The tables of the games in memory.
#[derive(Debug)]
pub struct Hall {
    store: Storage,
    tables: Mutex<HashMap<String, Arc<OnceCell<TableHandle>>>>,
    /// When the map reaches this size, the tables of finished games that
    /// stopped are forgotten (amortised: the next prune waits until the map
    /// has doubled again).
    prune_at: AtomicUsize,
    /// How the time since a game's last event counts when it is loaded.
    continuity: std::sync::Mutex<Continuity>,
}

impl Hall {
    /// A hall over `store`. With a single replica (the embedded database),
    /// a game loaded after its last event was served by nobody, so loads
    /// count an outage; with several replicas another may have been serving
    /// it (`Continuity::Continuous`).
    pub fn new(store: Storage, continuity: Continuity) -> Hall {
        Hall {
            store,
            tables: Mutex::new(HashMap::new()),
            prune_at: AtomicUsize::new(MIN_PRUNE_AT),
            continuity: std::sync::Mutex::new(continuity),
        }
    }

    /// Changes how later loads count the time since a game's last event.
    pub fn set_continuity(&self, continuity: Continuity) {
        if let Ok(mut c) = self.continuity.lock() {
            *c = continuity;
        }
    }

    fn continuity(&self) -> Continuity {
        self.continuity.lock().map_or(Continuity::Continuous, |c| *c)
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
                    tables.retain(|_, cell| !cell.get().is_some_and(TableHandle::is_closed));
                    self.prune_at.store((tables.len() * 2).max(MIN_PRUNE_AT), Ordering::Relaxed);
                }
                metrics::gauge!("arbiter_tables_in_memory").set(tables.len() as f64);
                let cell = tables.entry(id.to_string()).or_default().clone();
                // A finished game's table stops when idle; forget it so that
                // the next use loads it again.
                if cell.get().is_some_and(TableHandle::is_closed) {
                    tables.remove(id);
                    continue;
                }
                cell
            };
            let result = cell
                .get_or_try_init(|| table::open(self.store.clone(), id, self.continuity()))
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

    /// Creates a game in storage (its table is loaded on first use).
    ///
    /// # Errors
    /// As [`EventStore::create_game`].
    pub async fn create(&self, row: &GameRow) -> Result<(), ApiError> {
        self.store.create_game(row).await.map_err(ApiError::from)
    }

    /// Loads every unfinished game, so that their timers run and outages are
    /// recorded at once after a restart. Returns how many were loaded.
    ///
    /// # Errors
    /// [`ApiError::Unavailable`] if the list cannot be read.
    pub async fn load_unfinished(&self) -> Result<usize, ApiError> {
        let ids = self.store.unfinished_games().await?;
        let mut loaded = 0;
        for id in ids {
            match self.table(&id).await {
                Ok(_) => loaded += 1,
                Err(e) => tracing::error!(game = %id, error = %e, "cannot load an unfinished game"),
            }
        }
        Ok(loaded)
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
