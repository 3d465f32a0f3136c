//! (scenario: crash; to be written)
