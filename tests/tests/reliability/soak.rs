//! (CI short form of the soak scenario; to be written)
