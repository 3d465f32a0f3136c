//! (CI short form of the replicas scenario; to be written)
