//! (scenario: replicas; to be written)
