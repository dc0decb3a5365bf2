//! The Sudoku symmetry group acting on puzzles: isomorph transforms.
//!
//! A [`Transform`] is an optional transposition, then a permutation of the rows that keeps bands
//! together (band order, then the row order inside each band), a permutation of the columns that
//! keeps stacks together (stack order, then the column order inside each stack), and a relabelling
//! of the digits 1-9 (blanks stay `0`). That is 2 * 6^8 = 3,359,232 geometric symmetries times
//! 9! relabellings. Every transform maps valid puzzles to valid puzzles, solved grids to solved
//! grids, and keeps the number of solutions.

use crate::grid::{Grid, CELLS};
use crate::rng::SplitMix64;

/// One element of the Sudoku symmetry group. Applied to a grid `g`, output cell `(r, c)` holds
/// `digits[s(rows[r], cols[c])]`, where `s(i, j)` is `g(i, j)`, or `g(j, i)` when `transpose`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Transform {
    transpose: bool,
    /// Source row of each output row; keeps bands together.
    rows: [u8; 9],
    /// Source column of each output column; keeps stacks together.
    cols: [u8; 9],
    /// New value of each value; `digits[0] == 0`.
    digits: [u8; 10],
}

impl Transform {
    /// The transform that changes nothing.
    pub const IDENTITY: Transform = Transform {
        transpose: false,
        rows: [0, 1, 2, 3, 4, 5, 6, 7, 8],
        cols: [0, 1, 2, 3, 4, 5, 6, 7, 8],
        digits: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    };

    /// The transform that changes nothing.
    pub const fn identity() -> Transform {
        Transform::IDENTITY
    }

    /// Builds a transform from its parts, or `None` if one of them is not a permutation.
    ///
    /// - `bands[k]`: the source band of output band `k` (a permutation of `0..3`);
    /// - `rows_in_band[k][i]`: the row, inside source band `bands[k]`, of output row `3k + i`;
    /// - `stacks`, `cols_in_stack`: the same for stacks and columns;
    /// - `digits[d - 1]`: the new digit of digit `d` (a permutation of `1..=9`).
    pub fn new(
        transpose: bool,
        bands: [u8; 3],
        rows_in_band: [[u8; 3]; 3],
        stacks: [u8; 3],
        cols_in_stack: [[u8; 3]; 3],
        digits: [u8; 9],
    ) -> Option<Transform> {
        let is_perm = |p: &[u8], base: u8| {
            let mut seen = 0u16;
            for &x in p {
                let Some(i) = x.checked_sub(base).filter(|&i| (i as usize) < p.len()) else {
                    return false;
                };
                seen |= 1 << i;
            }
            seen.count_ones() as usize == p.len()
        };
        let all_perms = is_perm(&bands, 0)
            && is_perm(&stacks, 0)
            && rows_in_band.iter().all(|p| is_perm(p, 0))
            && cols_in_stack.iter().all(|p| is_perm(p, 0))
            && is_perm(&digits, 1);
        if !all_perms {
            return None;
        }
        let mut t = Transform::IDENTITY;
        t.transpose = transpose;
        for k in 0..3 {
            for i in 0..3 {
                t.rows[3 * k + i] = 3 * bands[k] + rows_in_band[k][i];
                t.cols[3 * k + i] = 3 * stacks[k] + cols_in_stack[k][i];
            }
        }
        t.digits[1..].copy_from_slice(&digits);
        Some(t)
    }

    /// A uniformly random transform, the same one for the same seed (a splitmix64 stream feeds a
    /// Fisher-Yates shuffle of each part).
    pub fn random(rng_state: u64) -> Transform {
        let mut rng = SplitMix64(rng_state);
        let mut perm3 = || {
            let mut p = [0u8, 1, 2];
            shuffle(&mut rng, &mut p);
            p
        };
        let bands = perm3();
        let rows_in_band = [perm3(), perm3(), perm3()];
        let stacks = perm3();
        let cols_in_stack = [perm3(), perm3(), perm3()];
        let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        shuffle(&mut rng, &mut digits);
        let transpose = rng.next_u64() >> 63 == 1;
        Transform::new(
            transpose,
            bands,
            rows_in_band,
            stacks,
            cols_in_stack,
            digits,
        )
        .expect("shuffles are permutations")
    }

    /// True if the grid is transposed before rows and columns are permuted.
    pub fn transposes(&self) -> bool {
        self.transpose
    }

    /// The source row (after the optional transposition) of each output row.
    pub fn rows(&self) -> [u8; 9] {
        self.rows
    }

    /// The source column (after the optional transposition) of each output column.
    pub fn cols(&self) -> [u8; 9] {
        self.cols
    }

    /// The new value of each value `0..=9` (`0`, the blank, stays `0`).
    pub fn digits(&self) -> [u8; 10] {
        self.digits
    }

    /// The transformed grid.
    pub fn apply(&self, grid: &Grid) -> Grid {
        let g = grid.cells();
        let mut out = [0u8; CELLS];
        for (r, out_row) in out.chunks_exact_mut(9).enumerate() {
            let sr = self.rows[r] as usize;
            for (c, o) in out_row.iter_mut().enumerate() {
                let sc = self.cols[c] as usize;
                let cell = if self.transpose {
                    sc * 9 + sr
                } else {
                    sr * 9 + sc
                };
                *o = self.digits[g[cell] as usize];
            }
        }
        Grid::from_cells(out).expect("digits maps 0..=9 into 0..=9")
    }
}

impl Default for Transform {
    fn default() -> Self {
        Transform::IDENTITY
    }
}

/// A Fisher-Yates shuffle drawing from the crate's SplitMix64 (each index by multiply-shift,
/// bias below 2^-60 for these tiny lengths).
fn shuffle(rng: &mut SplitMix64, items: &mut [u8]) {
    for i in (1..items.len()).rev() {
        let below = ((u128::from(rng.next_u64()) * (i as u128 + 1)) >> 64) as usize;
        items.swap(i, below);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";

    #[test]
    fn identity_changes_nothing() {
        let g: Grid = PUZZLE.parse().unwrap();
        assert_eq!(Transform::identity().apply(&g), g);
        assert_eq!(Transform::default(), Transform::IDENTITY);
    }

    #[test]
    fn new_rejects_non_permutations() {
        let id = [[0, 1, 2]; 3];
        let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert!(Transform::new(false, [0, 1, 2], id, [0, 1, 2], id, digits).is_some());
        assert!(Transform::new(false, [0, 1, 1], id, [0, 1, 2], id, digits).is_none());
        assert!(Transform::new(false, [0, 1, 3], id, [0, 1, 2], id, digits).is_none());
        let bad_digits = [0, 2, 3, 4, 5, 6, 7, 8, 9];
        assert!(Transform::new(false, [0, 1, 2], id, [0, 1, 2], id, bad_digits).is_none());
    }

    #[test]
    fn transpose_then_permute() {
        let mut cells = [0u8; CELLS];
        cells[1] = 7; // row 0, column 1
        let g = Grid::from_cells(cells).unwrap();
        let id = [[0, 1, 2]; 3];
        let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        let t = Transform::new(true, [0, 1, 2], id, [0, 1, 2], id, digits).unwrap();
        assert_eq!(t.apply(&g).get(1, 0), 7);
        // Band 0 to the bottom, then the row of the 7 (row 1 of the band) first in it.
        let t = Transform::new(
            true,
            [1, 2, 0],
            [id[0], id[0], [1, 0, 2]],
            [0, 1, 2],
            id,
            digits,
        )
        .unwrap();
        assert_eq!(t.apply(&g).get(6, 0), 7);
    }

    #[test]
    fn random_is_deterministic_and_varied() {
        assert_eq!(Transform::random(42), Transform::random(42));
        let distinct: std::collections::HashSet<Transform> =
            (0..1000).map(Transform::random).collect();
        assert!(distinct.len() > 990, "{}", distinct.len());
    }
}
