//! Lookup tables for the band solver, all computed at compile time.
//!
//! Layout (see `board.rs`): a *band* is three rows; a band mask has one bit per cell, bit
//! `row * 9 + col` for `row` in `0..3`, `col` in `0..9`. A *minirow* is the three cells of one row
//! inside one box. A *shrink* mask condenses a band mask to 9 bits, bit `row * 3 + box`, set when
//! that minirow still has a candidate.

/// All 27 cells of a band.
pub const BAND: u32 = 0o777_777_777;
/// The nine cells of a band's row 0 (shift by `9 * row`). Also the mask of any 9-bit field: a
/// row taken out of a band, a column mask (bit `col`), a shrink mask.
pub const ROW: u32 = 0o777;
/// The three cells of a band's column 0, one per row (shift by `col`).
pub const COLUMN: u32 = 0o001_001_001;
/// The nine cells of a band's box 0 (shift by `3 * box`).
pub const BOX: u32 = 0o007_007_007;
/// The three cells of minirow 0 (shift by `9 * row + 3 * box`). Also the mask of a 3-bit field.
pub const MINIROW: u32 = 0o7;

/// The six ways to place one digit in each of a band's three rows, one per box:
/// `PERMS[p][row]` is the box used by `row`.
const PERMS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// `SHRINK[row_bits]`: which of a row's three minirows are non-empty (3 bits).
/// Applied to a shrink mask it gives the rows that have a set minirow (`MINIROW_ROWS`).
const SHRINK: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut m = 0;
    while m < 512 {
        let mut b = 0;
        while b < 3 {
            if (m as u32) & (MINIROW << (3 * b)) != 0 {
                t[m] |= 1 << b;
            }
            b += 1;
        }
        m += 1;
    }
    t
};

/// `LOCKED_CELLS[shrink]`: the band cells that lie in a minirow used by at least one valid
/// placement (a permutation of boxes over rows within the shrink mask); 0 when none is valid.
/// This applies locked candidates (pointing and claiming) within the band and detects a row or
/// box left without the digit.
const LOCKED_CELLS: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        t[s] = minirow_cells(minirows_of(placements_in(s), false) as usize);
        s += 1;
    }
    t
};

/// The minirows (shrink layout) of placement `PERMS[p]`.
const fn placement_minirows(p: usize) -> usize {
    let mut used = 0;
    let mut r = 0;
    while r < 3 {
        used |= 1 << (r * 3 + PERMS[p][r]);
        r += 1;
    }
    used
}

/// The placements (bit `p` for `PERMS[p]`) whose minirows all lie in a shrink mask.
const fn placements_in(shrink: usize) -> usize {
    let mut set = 0;
    let mut p = 0;
    while p < 6 {
        if shrink & placement_minirows(p) == placement_minirows(p) {
            set |= 1 << p;
        }
        p += 1;
    }
    set
}

/// The minirows (shrink layout) used by some placement of `set` (`every`: by every one; 0 for
/// an empty set either way).
const fn minirows_of(set: usize, every: bool) -> u16 {
    if set == 0 {
        return 0;
    }
    let mut acc = if every { ROW as usize } else { 0 };
    let mut p = 0;
    while p < 6 {
        if set & (1 << p) != 0 {
            let used = placement_minirows(p);
            acc = if every { acc & used } else { acc | used };
        }
        p += 1;
    }
    acc as u16
}

/// The band cells of the minirows in a shrink mask.
const fn minirow_cells(shrink: usize) -> u32 {
    let mut cells = 0;
    let mut bit = 0;
    while bit < 9 {
        if shrink & (1 << bit) != 0 {
            cells |= MINIROW << ((bit / 3) * 9 + (bit % 3) * 3);
        }
        bit += 1;
    }
    cells
}

/// `OTHER_BANDS[cols]`: the cells the digit keeps in the two other bands of the same stack
/// columns. A box whose digit is confined to one column claims that column for this band.
/// The entries are `u64` with the high half zero: measured 2-6% faster than `u32` entries on
/// 17-clue, magictour and Serg, in two builds of each; the cause is not known (the same loads
/// either way, so probably where the table falls among the other data).
pub static OTHER_BANDS: [u64; 512] = {
    let mut t = [0u64; 512];
    let mut c = 0;
    while c < 512 {
        let mut keep = BAND;
        let mut b = 0;
        while b < 3 {
            let box_cols = (c as u32 >> (3 * b)) & MINIROW;
            if box_cols.count_ones() == 1 {
                keep &= !(COLUMN << (3 * b as u32 + box_cols.trailing_zeros()));
            }
            b += 1;
        }
        t[c] = keep as u64;
        c += 1;
    }
    t
};

/// `ROW_COUNT[bits]`: number of set bits in a 9-bit field such as a row (a popcount without
/// needing `popcnt`); also counts a `PLACEMENTS` entry.
pub static ROW_COUNT: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut m = 0;
    while m < 512 {
        t[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    t
};

/// `ROWS[rows]`: the band cells of the rows in a 3-bit row mask.
const ROWS: [u32; 8] = {
    let mut t = [0u32; 8];
    let mut m = 0;
    while m < 8 {
        let mut r = 0;
        while r < 3 {
            if m & (1 << r) != 0 {
                t[m] |= ROW << (9 * r);
            }
            r += 1;
        }
        m += 1;
    }
    t
};

/// `PEERS_IN_BAND[pos]`: the band mask that keeps cell `pos` and drops its row, box and column
/// peers inside the band. Indexed by a trailing-zero count, so 32 entries (the tail is unused).
pub static PEERS_IN_BAND: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut pos = 0;
    while pos < 27 {
        let (row, col) = (pos / 9, pos % 9);
        let bx = col / 3;
        let drop = ROW << (9 * row) | BOX << (3 * bx) | COLUMN << col;
        t[pos] = (BAND & !drop) | (1 << pos);
        pos += 1;
    }
    t
};

/// `PLACEMENTS[shrink]`: the placements (bit `p` for `PERMS[p]`) that fit a shrink mask.
const PLACEMENTS: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut s = 0;
    while s < 512 {
        t[s] = placements_in(s) as u8;
        s += 1;
    }
    t
};

/// `PLACEMENT_CELLS[p]`: the band cells of placement `PERMS[p]` (its three minirows).
pub static PLACEMENT_CELLS: [u32; 6] = {
    let mut t = [0u32; 6];
    let mut p = 0;
    while p < 6 {
        t[p] = minirow_cells(placement_minirows(p));
        p += 1;
    }
    t
};

/// `ANY_MINIROWS[placements]` / `ALL_MINIROWS[placements]`: the minirows (shrink layout) used by
/// some / by every placement of a `PLACEMENTS` entry (both 0 for an empty entry).
pub static ANY_MINIROWS: [u16; 64] = minirows_table(false);
pub static ALL_MINIROWS: [u16; 64] = minirows_table(true);

const fn minirows_table(every: bool) -> [u16; 64] {
    let mut t = [0u16; 64];
    let mut set = 0;
    while set < 64 {
        t[set] = minirows_of(set, every);
        set += 1;
    }
    t
}

/// `EXPAND[shrink]`: the band cells of the minirows in a shrink mask.
pub static EXPAND: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        t[s] = minirow_cells(s);
        s += 1;
    }
    t
};

/// The minirows of a band mask that still have a candidate, in *box-major* order (bit
/// `box * 3 + row`): the index of `BAND_RULE`. One multiply instead of three `SHRINK` lookups
/// (measured: 2-5% faster on every public set).
#[inline(always)]
pub const fn minirow_index(mask: u32) -> usize {
    // One bit per non-empty minirow, at its first cell: bit `row * 9 + box * 3`.
    let first = (mask | mask >> 1 | mask >> 2) & 0o111_111_111;
    // The three shifted copies put row 0's minirows at bits 55 + 3 * box (shift 55), row 1's at
    // 56 + 3 * box (47) and row 2's at 57 + 3 * box (39). The shifts differ mod 3 and `first`
    // only has bits at multiples of 3, so no two copies share a bit: the sum has no carries.
    ((first as u64).wrapping_mul(1 << 39 | 1 << 47 | 1 << 55) >> 55) as usize
}

/// The shrink mask (bit `row * 3 + box`) of a box-major minirow index (bit `box * 3 + row`).
const fn shrink_of_index(index: usize) -> usize {
    let mut shrink = 0;
    let mut bit = 0;
    while bit < 9 {
        if index & (1 << bit) != 0 {
            shrink |= 1 << ((bit % 3) * 3 + bit / 3);
        }
        bit += 1;
    }
    shrink
}

/// `BAND_RULE[minirow_index(mask)]`: what the subband update takes from a band mask's minirows,
/// packed so that it is one load: `LOCKED_CELLS` in bits 0..27, `PLACEMENTS` in bits 32..38
/// (see `band_rule`).
pub static BAND_RULE: [u64; 512] = {
    let mut t = [0u64; 512];
    let mut i = 0;
    while i < 512 {
        let s = shrink_of_index(i);
        t[i] = LOCKED_CELLS[s] as u64 | (PLACEMENTS[s] as u64) << 32;
        i += 1;
    }
    t
};

/// Unpacks a `BAND_RULE` entry: (locked cells, placements).
#[inline(always)]
pub const fn band_rule(rule: u64) -> (u32, u8) {
    (rule as u32, (rule >> 32) as u8)
}

/// `MINIROW_ROWS[shrink]`: the band cells of every row that has a minirow in a shrink mask
/// (`ROWS[SHRINK[shrink]]` in one load).
pub static MINIROW_ROWS: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        t[s] = ROWS[SHRINK[s] as usize];
        s += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_match_locked_cells() {
        // Every shrink mask: the union of its placements' cells is what LOCKED_CELLS keeps.
        for s in 0..512 {
            let p = usize::from(PLACEMENTS[s]);
            let cells = (0..6)
                .filter(|k| p & (1 << k) != 0)
                .fold(0, |acc, k| acc | PLACEMENT_CELLS[k]);
            assert_eq!(cells, LOCKED_CELLS[s], "shrink {s:o}");
            assert_eq!(
                EXPAND[usize::from(ANY_MINIROWS[p])],
                LOCKED_CELLS[s],
                "shrink {s:o}"
            );
        }
        assert_eq!(PLACEMENTS[0o777], 0b11_1111);
        assert_eq!(PLACEMENTS[0o474], 0, "rows 0 and 2 both need box 2");
        assert_eq!(
            PLACEMENTS[0o124].count_ones(),
            1,
            "the anti-diagonal of boxes"
        );
    }

    #[test]
    fn packed_rules_unpack_to_their_tables() {
        for i in 0..512 {
            let s = shrink_of_index(i);
            assert_eq!(
                band_rule(BAND_RULE[i]),
                (LOCKED_CELLS[s], PLACEMENTS[s]),
                "index {i:o}"
            );
            assert_eq!(MINIROW_ROWS[i], ROWS[SHRINK[i] as usize], "shrink {i:o}");
        }
    }

    #[test]
    fn minirow_index_matches_shrink() {
        // Every shrink mask, with each non-empty minirow filled by each of the seven non-empty
        // cell patterns in turn (shifted per minirow, so the patterns mix within a mask).
        for s in 0..512 {
            for k in 0..7 {
                let mut mask = 0;
                for bit in 0..9 {
                    if s & (1 << bit) != 0 {
                        let pattern = (k + bit) % 7 + 1;
                        mask |= pattern << ((bit / 3) * 9 + (bit % 3) * 3);
                    }
                }
                let shrink = SHRINK[(mask & ROW) as usize]
                    | SHRINK[(mask >> 9 & ROW) as usize] << 3
                    | SHRINK[(mask >> 18 & ROW) as usize] << 6;
                assert_eq!(shrink as usize, s);
                assert_eq!(shrink_of_index(minirow_index(mask)), s, "mask {mask:o}");
            }
        }
    }

    #[test]
    fn full_band_keeps_everything() {
        assert_eq!(LOCKED_CELLS[0o777], BAND);
        assert_eq!(ALL_MINIROWS[usize::from(PLACEMENTS[0o777])], 0);
        assert_eq!(OTHER_BANDS[0o777], u64::from(BAND));
    }

    #[test]
    fn a_row_confined_to_one_box_claims_that_box() {
        // Row 0 may only use box 0; rows 1 and 2 may use anything.
        let shrink = 0b111_111_001;
        assert_eq!(ALL_MINIROWS[usize::from(PLACEMENTS[shrink])], 0b001);
        // Rows 1 and 2 lose box 0.
        assert_eq!(LOCKED_CELLS[shrink], 0o770_770_007);
    }

    #[test]
    fn no_placement_means_zero() {
        // Rows 0 and 1 both confined to box 0.
        assert_eq!(LOCKED_CELLS[0b111_001_001], 0);
    }

    #[test]
    fn single_column_claims_it_in_other_bands() {
        // Box 0 confined to column 1; boxes 1 and 2 open.
        let cols = 0b111_111_010;
        assert_eq!(OTHER_BANDS[cols], u64::from(BAND & !(COLUMN << 1)));
    }

    #[test]
    fn peers_in_band_of_centre_cell() {
        // Cell (row 1, col 4): keeps itself, drops row 1, box 1, column 4.
        let m = PEERS_IN_BAND[13];
        assert_eq!(m & (1 << 13), 1 << 13);
        assert_eq!(m & (0o777 << 9), 1 << 13);
        assert_eq!(m & (1 << 3), 0); // row 0, col 3: same box
        assert_eq!(m & (1 << 22), 0); // row 2, col 4: same column and box
        assert_ne!(m & (1 << 0), 0); // row 0, col 0: no relation
    }
}
