//! (CI short form of the fuzz scenario; to be written)
