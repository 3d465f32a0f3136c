//! Portable Game Notation: a streaming reader and a writer.
