//! The embedded SQLite backend (to be written).
