//! (CI short form of the faults scenario; to be written)
