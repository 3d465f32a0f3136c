//! Generates the attack tables of `arbiter-chess` into `$OUT_DIR/tables.rs`.
//!
//! Sliding-piece attacks are looked up by occupancy. When the target has BMI2
//! the index is `pext(occupancy, mask)`; otherwise it is a "fancy" magic
//! multiplication. Magic numbers are searched here with a fixed-seed
//! generator, so every build produces byte-identical tables.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn sq(file: i32, rank: i32) -> Option<u32> {
    if (0..8).contains(&file) && (0..8).contains(&rank) { Some((rank * 8 + file) as u32) } else { None }
}

fn slide(square: u32, occupied: u64, dirs: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((square % 8) as i32, (square / 8) as i32);
    let mut attacks = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while let Some(s) = sq(f, r) {
            attacks |= 1 << s;
            if occupied & (1 << s) != 0 {
                break;
            }
            f += df;
            r += dr;
        }
    }
    attacks
}

/// The relevant occupancy mask: the rays without their last square.
fn relevant_mask(square: u32, dirs: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((square % 8) as i32, (square / 8) as i32);
    let mut mask = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while sq(f + df, r + dr).is_some() {
            mask |= 1 << sq(f, r).unwrap();
            f += df;
            r += dr;
        }
    }
    mask
}

fn steps(square: u32, deltas: &[(i32, i32)]) -> u64 {
    let (f0, r0) = ((square % 8) as i32, (square / 8) as i32);
    deltas.iter().filter_map(|&(df, dr)| sq(f0 + df, r0 + dr)).fold(0, |bb, s| bb | 1 << s)
}

/// Software parallel bit extract, used to fill the table in PEXT order.
fn pext(value: u64, mut mask: u64) -> u64 {
    let mut result = 0;
    let mut bit = 1;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if value & low != 0 {
            result |= bit;
        }
        bit <<= 1;
        mask &= mask - 1;
    }
    result
}

/// All subsets of `mask` (carry-rippler).
fn subsets(mask: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(1 << mask.count_ones());
    let mut s = 0u64;
    loop {
        out.push(s);
        s = s.wrapping_sub(mask) & mask;
        if s == 0 {
            break;
        }
    }
    out
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

struct Entry {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

fn build_slider(dirs: &[(i32, i32)], use_pext: bool, rng: &mut Rng, table: &mut Vec<u64>) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(64);
    for square in 0..64 {
        let mask = relevant_mask(square, dirs);
        let bits = mask.count_ones();
        let occs = subsets(mask);
        let attacks: Vec<u64> = occs.iter().map(|&o| slide(square, o, dirs)).collect();
        let offset = table.len();
        let size = 1usize << bits;
        table.resize(offset + size, 0);
        if use_pext {
            for (o, a) in occs.iter().zip(&attacks) {
                table[offset + pext(*o, mask) as usize] = *a;
            }
            entries.push(Entry { mask, magic: 0, shift: 0, offset });
            continue;
        }
        let shift = 64 - bits;
        let mut used = vec![0u64; size];
        let mut epoch = vec![0u32; size];
        let mut attempt = 0u32;
        let magic = loop {
            attempt += 1;
            let magic = rng.sparse();
            if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                continue;
            }
            let mut ok = true;
            for (o, a) in occs.iter().zip(&attacks) {
                let idx = (o.wrapping_mul(magic) >> shift) as usize;
                if epoch[idx] != attempt {
                    epoch[idx] = attempt;
                    used[idx] = *a;
                } else if used[idx] != *a {
                    ok = false;
                    break;
                }
            }
            if ok {
                break magic;
            }
        };
        for (o, a) in occs.iter().zip(&attacks) {
            table[offset + (o.wrapping_mul(magic) >> shift) as usize] = *a;
        }
        entries.push(Entry { mask, magic, shift, offset });
    }
    entries
}

fn write_u64_array(out: &mut String, name: &str, values: &[u64]) {
    writeln!(out, "pub(crate) static {name}: [u64; {}] = [", values.len()).unwrap();
    for chunk in values.chunks(8) {
        for v in chunk {
            write!(out, "{v:#x},").unwrap();
        }
        out.push('\n');
    }
    out.push_str("];\n");
}

fn write_entries(out: &mut String, name: &str, entries: &[Entry]) {
    writeln!(out, "pub(crate) static {name}: [SliderEntry; 64] = [").unwrap();
    for e in entries {
        writeln!(
            out,
            "SliderEntry {{ mask: {:#x}, magic: {:#x}, shift: {}, offset: {} }},",
            e.mask, e.magic, e.shift, e.offset
        )
        .unwrap();
    }
    out.push_str("];\n");
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_CFG_TARGET_FEATURE");
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let use_pext = arch == "x86_64" && features.split(',').any(|f| f == "bmi2");

    let mut out = String::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut table = Vec::new();
    let rook = build_slider(&ROOK_DIRS, use_pext, &mut rng, &mut table);
    let bishop = build_slider(&BISHOP_DIRS, use_pext, &mut rng, &mut table);
    write_entries(&mut out, "ROOK_ENTRIES", &rook);
    write_entries(&mut out, "BISHOP_ENTRIES", &bishop);
    write_u64_array(&mut out, "SLIDER_ATTACKS", &table);

    let knight_deltas = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
    let king_deltas = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
    let knight: Vec<u64> = (0..64).map(|s| steps(s, &knight_deltas)).collect();
    let king: Vec<u64> = (0..64).map(|s| steps(s, &king_deltas)).collect();
    let white_pawn: Vec<u64> = (0..64).map(|s| steps(s, &[(1, 1), (-1, 1)])).collect();
    let black_pawn: Vec<u64> = (0..64).map(|s| steps(s, &[(1, -1), (-1, -1)])).collect();
    write_u64_array(&mut out, "KNIGHT_ATTACKS", &knight);
    write_u64_array(&mut out, "KING_ATTACKS", &king);
    write_u64_array(&mut out, "WHITE_PAWN_ATTACKS", &white_pawn);
    write_u64_array(&mut out, "BLACK_PAWN_ATTACKS", &black_pawn);

    // BETWEEN[a*64+b]: squares strictly between two aligned squares.
    // LINE[a*64+b]: the whole line through two aligned squares (empty otherwise).
    let mut between = vec![0u64; 64 * 64];
    let mut line = vec![0u64; 64 * 64];
    for a in 0..64u32 {
        for dirs in [&ROOK_DIRS[..], &BISHOP_DIRS[..]] {
            for &dir in dirs {
                let ray = slide(a, 0, &[dir]);
                let back = slide(a, 0, &[(-dir.0, -dir.1)]);
                for b in 0..64u32 {
                    if ray & (1 << b) != 0 {
                        let idx = (a * 64 + b) as usize;
                        between[idx] = slide(a, 1 << b, &[dir]) & !(1 << b);
                        line[idx] = ray | back | (1 << a);
                    }
                }
            }
        }
    }
    write_u64_array(&mut out, "BETWEEN", &between);
    write_u64_array(&mut out, "LINE", &line);
    writeln!(out, "pub(crate) const USE_PEXT: bool = {use_pext};").unwrap();

    // Polyglot keys, from the data file.
    let data = include_str!("data/polyglot-random64.txt");
    let keys: Vec<u64> = data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| u64::from_str_radix(l.trim(), 16).expect("bad polyglot key"))
        .collect();
    assert_eq!(keys.len(), 781, "the polyglot table has 781 keys");
    println!("cargo:rerun-if-changed=data/polyglot-random64.txt");
    write_u64_array(&mut out, "POLYGLOT_RANDOM64", &keys);

    let path = Path::new(&env::var("OUT_DIR").unwrap()).join("tables.rs");
    fs::write(path, out).unwrap();
}
