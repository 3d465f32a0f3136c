//! The deadlines of the games in play whose tables are not loaded, in one
//! ordered structure.
//!
//! A loaded table runs its own game's timer (see [`crate::table`]). A game
//! in play that nobody acts on for a while is put away (its table stops)
//! unless its deadline is near, and its next deadline is armed here
//! instead: a few dozen bytes per game rather than a table's state, a task
//! and its channels. Shortly before a deadline ([`LEAD`]) the hall loads
//! the game again and its table rules at the deadline itself, so a flag is
//! ruled on time whether or not its game was loaded.
//!
//! Deadlines are wall-clock milliseconds since the Unix epoch, the form the
//! games index keeps them in (`games.deadline_wall_ms`), so that a
//! start-up arms every game in play from one read of the index instead of
//! replaying each game's log.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;

/// How long before its deadline a game is loaded again: enough for the
/// load (a read of the row and of the log, a replay) to finish before the
/// deadline even when many deadlines fall together.
pub const LEAD: Duration = Duration::from_secs(2);

/// The armed deadlines.
#[derive(Debug, Default)]
pub struct Timers {
    armed: Mutex<Armed>,
    /// Signalled when a deadline earlier than the earliest one is armed.
    earlier: Notify,
}

#[derive(Debug, Default)]
struct Armed {
    /// In deadline order (ties in id order).
    by_time: BTreeSet<(i64, Arc<str>)>,
    /// Each game's deadline, so that arming again replaces it.
    by_game: HashMap<Arc<str>, i64>,
}

impl Armed {
    /// Reports how many deadlines are armed.
    fn count(&self) {
        metrics::gauge!("arbiter_timers_armed").set(self.by_game.len() as f64);
    }
}

impl Timers {
    /// Arms game `id`'s deadline, replacing any earlier one of the game.
    pub fn arm(&self, id: &str, deadline_wall_ms: i64) {
        let mut armed = self.armed.lock().unwrap_or_else(PoisonError::into_inner);
        let first_before = armed.by_time.first().map(|(at, _)| *at);
        let key: Arc<str> = match armed.by_game.get_key_value(id) {
            Some((key, &at)) => {
                let key = Arc::clone(key);
                armed.by_time.remove(&(at, Arc::clone(&key)));
                key
            }
            None => Arc::from(id),
        };
        armed.by_time.insert((deadline_wall_ms, Arc::clone(&key)));
        armed.by_game.insert(key, deadline_wall_ms);
        armed.count();
        drop(armed);
        if first_before.is_none_or(|first| deadline_wall_ms < first) {
            self.earlier.notify_one();
        }
    }

    /// Forgets game `id`'s deadline (its table is loaded and runs it).
    pub fn disarm(&self, id: &str) {
        let mut armed = self.armed.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((key, at)) = armed.by_game.remove_entry(id) {
            armed.by_time.remove(&(at, key));
            armed.count();
        }
    }

    /// Takes out the games whose deadlines fall at or before `until_wall_ms`,
    /// earliest first.
    pub fn take_due(&self, until_wall_ms: i64) -> Vec<Arc<str>> {
        let mut armed = self.armed.lock().unwrap_or_else(PoisonError::into_inner);
        let mut due = Vec::new();
        while let Some((at, _)) = armed.by_time.first()
            && *at <= until_wall_ms
        {
            if let Some((_, id)) = armed.by_time.pop_first() {
                armed.by_game.remove(&id);
                due.push(id);
            }
        }
        armed.count();
        due
    }

    /// The earliest armed deadline.
    pub fn earliest(&self) -> Option<i64> {
        self.armed.lock().unwrap_or_else(PoisonError::into_inner).by_time.first().map(|(at, _)| *at)
    }

    /// Game `id`'s armed deadline.
    pub fn deadline(&self, id: &str) -> Option<i64> {
        self.armed.lock().unwrap_or_else(PoisonError::into_inner).by_game.get(id).copied()
    }

    /// How many games have a deadline armed.
    pub fn len(&self) -> usize {
        self.armed.lock().unwrap_or_else(PoisonError::into_inner).by_game.len()
    }

    /// Whether no deadline is armed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Waits until a deadline earlier than every one armed when the wait
    /// began is armed (or, spuriously, sooner).
    pub async fn earlier_armed(&self) {
        self.earlier.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(due: Vec<Arc<str>>) -> Vec<String> {
        due.iter().map(|id| id.to_string()).collect()
    }

    #[test]
    fn deadlines_come_due_in_order_and_rearming_replaces() {
        let timers = Timers::default();
        timers.arm("b", 300);
        timers.arm("a", 100);
        timers.arm("c", 200);
        assert_eq!(timers.earliest(), Some(100));
        // Armed again later: the earlier deadline is gone.
        timers.arm("a", 400);
        assert_eq!(timers.deadline("a"), Some(400));
        assert_eq!(timers.len(), 3);
        assert!(timers.take_due(199).is_empty());
        assert_eq!(ids(timers.take_due(300)), ["c", "b"]);
        assert_eq!(timers.len(), 1);
        timers.disarm("a");
        timers.disarm("a");
        assert!(timers.is_empty());
        assert_eq!(timers.earliest(), None);
        assert!(timers.take_due(i64::MAX).is_empty());
    }

    #[test]
    fn equal_deadlines_are_kept_apart() {
        let timers = Timers::default();
        for id in ["x", "y", "z"] {
            timers.arm(id, 50);
        }
        timers.disarm("y");
        assert_eq!(ids(timers.take_due(50)), ["x", "z"]);
    }

    #[tokio::test]
    async fn an_earlier_deadline_wakes_the_waiter() {
        let timers = Arc::new(Timers::default());
        timers.arm("late", 1_000);
        let waiter = {
            let timers = Arc::clone(&timers);
            tokio::spawn(async move { timers.earlier_armed().await })
        };
        tokio::task::yield_now().await;
        timers.arm("later", 2_000);
        timers.arm("early", 10);
        tokio::time::timeout(Duration::from_secs(5), waiter).await.unwrap().unwrap();
    }
}
