//! (scenario: fuzz; to be written)
