//! (CI short form of the crash scenario; to be written)
