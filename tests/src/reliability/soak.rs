//! (scenario: soak; to be written)
