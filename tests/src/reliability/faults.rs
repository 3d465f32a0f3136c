//! (scenario: faults; to be written)
