//! The DGT serial protocol (classic DGT boards over serial, USB or
//! Bluetooth serial: 9600 baud, 8N1), read into [`Reading`]s.
//!
//! The PC sends one-byte commands; the board answers with messages of a
//! header (the message id with its high bit set, then the whole length in two
//! 7-bit bytes, high first) and a payload (field-anchors-2 §1.1; DGT's
//! `dgtbrd.h`):
//!
//! - `0x86` board dump, 67 bytes: 64 piece codes, square 0 = a8 … 63 = h1;
//! - `0x8E` field update, 5 bytes: square, new piece code (0 = emptied);
//! - `0x8D` clock (BWTIME), 10 bytes: right player h, m, s, left player h,
//!   m, s (hours in the low nibble, minutes and seconds in BCD), then a
//!   status byte (bit 0 running, bit 3 right side to move, bit 4 left side
//!   to move, bit 5 no clock). A low nibble of `0x0A` in the first or fourth
//!   byte marks an acknowledgement of a clock command, not a time. The
//!   right-hand player is White, as the clock stands in a tournament hall.
//!
//! [`Decoder`] is pure: bytes in, [`DgtMessage`]s out, whatever the read
//! boundaries; [`serial`] opens the port and drives the board.

use arbiter_chess::{Color, File, Piece, Rank, Role, Square};

use super::reading::{ClockShown, Placement, Reading};

/// Resets the board to idle.
pub const SEND_RESET: u8 = 0x40;
/// Asks for the clock (a BWTIME message).
pub const SEND_CLOCK: u8 = 0x41;
/// Asks for a board dump.
pub const SEND_BOARD: u8 = 0x42;
/// Update mode: field updates, and the clock whenever it changes.
pub const SEND_UPDATE_NICE: u8 = 0x4b;

const MSG_BOARD_DUMP: u8 = 0x86;
const MSG_BWTIME: u8 = 0x8d;
const MSG_FIELD_UPDATE: u8 = 0x8e;

/// The longest message accepted: longer ones (EEPROM dumps the bridge
/// never asks for) are skipped without being buffered whole.
const MAX_MESSAGE: usize = 1024;

/// One message from a DGT board, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DgtMessage {
    /// The whole board.
    BoardDump(Placement),
    /// One square changed.
    FieldUpdate { square: Square, now: Option<Piece> },
    /// The clock's times and state.
    Clock(ClockShown),
    /// The clock acknowledged a command, or no clock is connected: no time.
    NoTime,
    /// A message the bridge does not use (version, serial number...), by id.
    Other(u8),
    /// A message that could not be read, and why (the stream goes on).
    Garbled(String),
}

impl DgtMessage {
    /// The reading this message gives the bridge, if any.
    pub fn reading(self) -> Option<Reading> {
        match self {
            DgtMessage::BoardDump(p) => Some(Reading::Placement(p)),
            DgtMessage::FieldUpdate { square, now } => Some(Reading::SquareChanged { square, now }),
            DgtMessage::Clock(c) => Some(Reading::Clock(c)),
            DgtMessage::NoTime | DgtMessage::Other(_) | DgtMessage::Garbled(_) => None,
        }
    }
}

/// Splits a byte stream into messages.
#[derive(Debug, Default)]
pub struct Decoder {
    buffer: Vec<u8>,
    /// Bytes of an over-long message still to skip.
    skip: usize,
}

impl Decoder {
    /// Takes the next bytes read from the port; returns the messages they
    /// complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<DgtMessage> {
        let mut out = Vec::new();
        let mut bytes = bytes;
        if self.skip > 0 {
            let n = self.skip.min(bytes.len());
            self.skip -= n;
            bytes = &bytes[n..];
        }
        self.buffer.extend_from_slice(bytes);
        loop {
            // A message starts with a byte with the high bit set; anything
            // else is noise between messages (or the echo of a command).
            let start = self.buffer.iter().position(|b| b & 0x80 != 0).unwrap_or(self.buffer.len());
            self.buffer.drain(..start);
            if self.buffer.len() < 3 {
                return out;
            }
            let (id, hi, lo) = (self.buffer[0], self.buffer[1], self.buffer[2]);
            if hi & 0x80 != 0 || lo & 0x80 != 0 {
                // A length byte with the high bit set: this was not a header.
                out.push(DgtMessage::Garbled(format!("message {id:#04x} with a bad length")));
                self.buffer.drain(..1);
                continue;
            }
            let len = (usize::from(hi) << 7) | usize::from(lo);
            if len < 3 {
                out.push(DgtMessage::Garbled(format!("message {id:#04x} of length {len}")));
                self.buffer.drain(..1);
                continue;
            }
            if len > MAX_MESSAGE {
                out.push(DgtMessage::Other(id));
                let have = self.buffer.len().min(len);
                self.skip = len - have;
                self.buffer.drain(..have);
                continue;
            }
            if self.buffer.len() < len {
                return out;
            }
            let message: Vec<u8> = self.buffer.drain(..len).collect();
            out.push(decode(id, &message[3..]));
        }
    }
}

/// The square of a DGT field number (0 = a8, 7 = h8, 63 = h1).
pub fn square(field: u8) -> Option<Square> {
    (field < 64)
        .then(|| Square::from_coords(File::new(u32::from(field % 8)), Rank::new(7 - u32::from(field / 8))))
}

/// The piece of a DGT piece code (`Ok(None)`: empty); codes above 12 (the
/// draughts and "magic" pieces) are not chess pieces.
pub fn piece(code: u8) -> Result<Option<Piece>, u8> {
    let (color, role) = match code {
        0 => return Ok(None),
        1 => (Color::White, Role::Pawn),
        2 => (Color::White, Role::Rook),
        3 => (Color::White, Role::Knight),
        4 => (Color::White, Role::Bishop),
        5 => (Color::White, Role::King),
        6 => (Color::White, Role::Queen),
        7 => (Color::Black, Role::Pawn),
        8 => (Color::Black, Role::Rook),
        9 => (Color::Black, Role::Knight),
        10 => (Color::Black, Role::Bishop),
        11 => (Color::Black, Role::King),
        12 => (Color::Black, Role::Queen),
        other => return Err(other),
    };
    Ok(Some(Piece { color, role }))
}

fn decode(id: u8, payload: &[u8]) -> DgtMessage {
    match id {
        MSG_BOARD_DUMP => {
            if payload.len() != 64 {
                return DgtMessage::Garbled(format!("a board dump of {} squares", payload.len()));
            }
            let mut placement = Placement::empty();
            for (square, &code) in (0u8..64).filter_map(square).zip(payload) {
                match piece(code) {
                    Ok(p) => placement.set(square, p),
                    Err(code) => {
                        return DgtMessage::Garbled(format!("piece code {code:#04x} in a board dump"));
                    }
                }
            }
            DgtMessage::BoardDump(placement)
        }
        MSG_FIELD_UPDATE => {
            let [field, code] = payload else {
                return DgtMessage::Garbled(format!("a field update of {} bytes", payload.len()));
            };
            match (square(*field), piece(*code)) {
                (Some(square), Ok(now)) => DgtMessage::FieldUpdate { square, now },
                (None, _) => DgtMessage::Garbled(format!("field update of field {field}")),
                (_, Err(code)) => DgtMessage::Garbled(format!("piece code {code:#04x} in a field update")),
            }
        }
        MSG_BWTIME => clock(payload),
        other => DgtMessage::Other(other),
    }
}

fn bcd(byte: u8) -> Option<i64> {
    let (tens, units) = (byte >> 4, byte & 0x0f);
    (tens < 10 && units < 10).then(|| i64::from(tens) * 10 + i64::from(units))
}

fn side_ms(h: u8, m: u8, s: u8) -> Option<i64> {
    let hours = i64::from(h & 0x0f);
    let (minutes, seconds) = (bcd(m)?, bcd(s)?);
    (hours < 10 && minutes < 60 && seconds < 60).then_some(((hours * 60 + minutes) * 60 + seconds) * 1000)
}

fn clock(payload: &[u8]) -> DgtMessage {
    let &[rh, rm, rs, lh, lm, ls, status] = payload else {
        return DgtMessage::Garbled(format!("a clock message of {} bytes", payload.len()));
    };
    if rh & 0x0f == 0x0a || lh & 0x0f == 0x0a || status & 0x20 != 0 {
        return DgtMessage::NoTime;
    }
    let (Some(white_ms), Some(black_ms)) = (side_ms(rh, rm, rs), side_ms(lh, lm, ls)) else {
        return DgtMessage::Garbled("a clock time that is not BCD".into());
    };
    let running = if status & 0x01 == 0 {
        None
    } else if status & 0x08 != 0 {
        Some(Color::White)
    } else if status & 0x10 != 0 {
        Some(Color::Black)
    } else {
        None
    };
    DgtMessage::Clock(ClockShown { white_ms, black_ms, running })
}

pub mod serial {
    //! The port: opened, set to 9600 baud raw with `stty` when it is a
    //! terminal device, put in update mode, and read in a thread of its own
    //! (a serial port is a blocking file).

    use std::io::{Read, Write};
    use std::os::unix::fs::FileTypeExt as _;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use anyhow::{Context as _, bail};
    use tokio::sync::mpsc;

    use super::{Decoder, DgtMessage, SEND_BOARD, SEND_CLOCK, SEND_RESET, SEND_UPDATE_NICE};
    use crate::board::reading::{Placement, Reading};

    /// How often a whole board is asked for as well: a field update lost on
    /// the line is put right by the next dump.
    const DUMP_EVERY: Duration = Duration::from_secs(5);

    /// Opens the board at `path` and sends its readings to `tx` until the
    /// port fails or `tx` closes.
    ///
    /// # Errors
    /// The port cannot be opened or set up.
    pub fn start(path: &Path, tx: mpsc::Sender<Reading>) -> anyhow::Result<()> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open the DGT board's port {}", path.display()))?;
        if file.metadata().is_ok_and(|m| m.file_type().is_char_device()) {
            let status = std::process::Command::new("stty")
                .arg("-F")
                .arg(path)
                .args(["9600", "raw", "-echo", "cs8", "-parenb", "-cstopb"])
                .status()
                .with_context(|| format!("cannot run stty to set up {}", path.display()))?;
            if !status.success() {
                bail!("stty could not set {} to 9600 baud raw", path.display());
            }
        }
        let mut writer = file.try_clone().context("cannot share the DGT port between reading and writing")?;
        writer
            .write_all(&[SEND_RESET, SEND_BOARD, SEND_UPDATE_NICE, SEND_CLOCK])
            .with_context(|| format!("cannot write to the DGT board on {}", path.display()))?;
        let name: PathBuf = path.to_path_buf();
        let dump_tx = tx.clone();
        std::thread::spawn(move || {
            // Stops when the bridge is gone or the port fails.
            while !dump_tx.is_closed() {
                std::thread::sleep(DUMP_EVERY);
                if writer.write_all(&[SEND_BOARD]).is_err() {
                    return;
                }
            }
        });
        std::thread::spawn(move || read(file, &name, &tx));
        Ok(())
    }

    fn read(mut file: std::fs::File, name: &Path, tx: &mpsc::Sender<Reading>) {
        let mut decoder = Decoder::default();
        let mut board: Option<Placement> = None;
        let mut buf = [0u8; 512];
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => {
                    eprintln!("arbiter: the DGT board's port {} closed", name.display());
                    return;
                }
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    eprintln!("arbiter: reading the DGT board on {}: {e}", name.display());
                    return;
                }
            };
            for message in decoder.push(&buf[..n]) {
                if let DgtMessage::Garbled(why) = &message {
                    eprintln!("arbiter: DGT board: skipped {why}");
                }
                // Field updates keep the bridge's copy of the board, so the
                // periodic dump is sent only when it says something new.
                match &message {
                    DgtMessage::BoardDump(p) if board == Some(*p) => continue,
                    DgtMessage::BoardDump(p) => board = Some(*p),
                    DgtMessage::FieldUpdate { square, now } => {
                        if let Some(b) = board.as_mut() {
                            b.set(*square, *now);
                        }
                    }
                    _ => {}
                }
                if let Some(reading) = message.reading()
                    && tx.blocking_send(reading).is_err()
                {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    /// The starting position as a DGT board sends it: a8 first, piece codes
    /// of `dgtbrd.h` (WPAWN 1, WROOK 2, WKNIGHT 3, WBISHOP 4, WKING 5,
    /// WQUEEN 6, then the same plus 6 for Black).
    fn start_dump() -> Vec<u8> {
        let mut m = vec![0x86, 0x00, 67];
        m.extend_from_slice(&[8, 9, 10, 12, 11, 10, 9, 8]);
        m.extend_from_slice(&[7; 8]);
        m.extend_from_slice(&[0; 32]);
        m.extend_from_slice(&[1; 8]);
        m.extend_from_slice(&[2, 3, 4, 6, 5, 4, 3, 2]);
        m
    }

    #[test]
    fn a_board_dump_is_the_whole_board() {
        let out = Decoder::default().push(&start_dump());
        let [DgtMessage::BoardDump(p)] = out.as_slice() else { panic!("{out:?}") };
        assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
    }

    #[test]
    fn field_updates_name_the_square_from_a8() {
        // e2 is field 52 (row 6 from the top, file 4); e4 is field 36.
        let mut d = Decoder::default();
        let out = d.push(&[0x8e, 0x00, 0x05, 52, 0x00, 0x8e, 0x00, 0x05, 36, 0x01]);
        assert_eq!(
            out,
            vec![
                DgtMessage::FieldUpdate { square: sq("e2"), now: None },
                DgtMessage::FieldUpdate { square: sq("e4"), now: Piece::from_char('P') },
            ]
        );
        assert_eq!(square(0), Some(sq("a8")));
        assert_eq!(square(7), Some(sq("h8")));
        assert_eq!(square(63), Some(sq("h1")));
        assert_eq!(square(64), None);
    }

    #[test]
    fn messages_split_across_reads_and_noise_between_them() {
        let mut bytes = vec![0x42, 0x4b]; // the echo of two commands
        bytes.extend(start_dump());
        bytes.extend([0x8e, 0x00, 0x05, 12, 0x00]); // e7 emptied
        let mut d = Decoder::default();
        let mut out = Vec::new();
        for chunk in bytes.chunks(5) {
            out.extend(d.push(chunk));
        }
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(matches!(out[0], DgtMessage::BoardDump(_)));
        assert_eq!(out[1], DgtMessage::FieldUpdate { square: sq("e7"), now: None });
    }

    #[test]
    fn the_clock_is_read_from_bcd_with_white_on_the_right() {
        // Right (White) 1:29:58, left (Black) 1:30:00, running, right to move.
        let out = Decoder::default().push(&[0x8d, 0x00, 10, 0x01, 0x29, 0x58, 0x01, 0x30, 0x00, 0x09]);
        assert_eq!(
            out,
            vec![DgtMessage::Clock(ClockShown {
                white_ms: (3600 + 29 * 60 + 58) * 1000,
                black_ms: 5_400_000,
                running: Some(Color::White),
            })]
        );
        // Stopped (bit 0 clear), left to move: nobody's clock runs.
        let out = Decoder::default().push(&[0x8d, 0x00, 10, 0x00, 0x05, 0x00, 0x00, 0x04, 0x59, 0x10]);
        assert_eq!(
            out,
            vec![DgtMessage::Clock(ClockShown { white_ms: 300_000, black_ms: 299_000, running: None })]
        );
        // Running, left to move: Black's clock.
        let out = Decoder::default().push(&[0x8d, 0x00, 10, 0x00, 0x05, 0x00, 0x00, 0x04, 0x59, 0x11]);
        assert!(matches!(out[0], DgtMessage::Clock(ClockShown { running: Some(Color::Black), .. })));
    }

    #[test]
    fn clock_acknowledgements_and_a_missing_clock_carry_no_time() {
        let ack = Decoder::default().push(&[0x8d, 0x00, 10, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
        assert_eq!(ack, vec![DgtMessage::NoTime]);
        let none = Decoder::default().push(&[0x8d, 0x00, 10, 0x00, 0x05, 0x00, 0x00, 0x05, 0x00, 0x20]);
        assert_eq!(none, vec![DgtMessage::NoTime]);
        assert_eq!(DgtMessage::NoTime.reading(), None);
    }

    #[test]
    fn garbled_messages_are_reported_and_the_stream_goes_on() {
        let mut d = Decoder::default();
        // A piece code of the draughts set, then a good update.
        let out = d.push(&[0x8e, 0x00, 0x05, 10, 0x0f, 0x8e, 0x00, 0x05, 10, 0x00]);
        assert!(matches!(out[0], DgtMessage::Garbled(_)), "{out:?}");
        assert_eq!(out[1], DgtMessage::FieldUpdate { square: sq("c7"), now: None });
        // A clock that is not BCD.
        let out = d.push(&[0x8d, 0x00, 10, 0x00, 0x7f, 0x00, 0x00, 0x05, 0x00, 0x01]);
        assert!(matches!(out[0], DgtMessage::Garbled(_)), "{out:?}");
        // A length below the header's own.
        let out = d.push(&[0x8e, 0x00, 0x01, 0x8e, 0x00, 0x05, 0, 0x0b]);
        assert!(matches!(out[0], DgtMessage::Garbled(_)), "{out:?}");
        assert_eq!(
            out.last(),
            Some(&DgtMessage::FieldUpdate { square: sq("a8"), now: Piece::from_char('k') })
        );
    }

    #[test]
    fn long_messages_the_bridge_never_asked_for_are_skipped_without_buffering() {
        let mut d = Decoder::default();
        // An EEPROM dump of 2000 bytes (length 0x0f 0x50 = 1872 + 80).
        let len = 2000usize;
        let mut bytes = vec![0x83, (len >> 7) as u8, (len & 0x7f) as u8];
        bytes.extend(std::iter::repeat_n(0x81u8, len - 3));
        bytes.extend([0x8e, 0x00, 0x05, 63, 0x02]);
        let mut out = Vec::new();
        for chunk in bytes.chunks(300) {
            out.extend(d.push(chunk));
        }
        assert_eq!(out.first(), Some(&DgtMessage::Other(0x83)));
        assert_eq!(
            out.last(),
            Some(&DgtMessage::FieldUpdate { square: sq("h1"), now: Piece::from_char('R') })
        );
        assert!(d.buffer.len() < 16);
    }
}
