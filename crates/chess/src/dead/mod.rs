//! Dead positions and "can this side ever checkmate?" (FIDE 5.2.2, 6.9, 7.5.5, 5.1.2).
