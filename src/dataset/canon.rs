//! The canonical form of a puzzle: its minlex isomorph.
//!
//! Convention: among all 3,359,232 geometric transforms ([`Transform`](super::symmetry::Transform):
//! transposition, band, row, stack and column permutations) composed with all 9! relabellings, the
//! one whose 81-character row-major string (`0` for blanks) is lexicographically smallest. A blank
//! is smaller than any digit, so the canonical string starts with as many blanks as possible, and
//! its digits are numbered 1, 2, 3, ... in order of first appearance (for a fixed geometry that
//! relabelling is the best one, so only the geometry is searched). Validity does not matter:
//! clashing givens, empty and solved grids all have a canonical form, and two grids have the
//! same one exactly when one is a transform of the other.
//!
//! How the search prunes. The result is built one output row at a time, keeping every partial
//! transform (a *candidate*) whose output so far equals the best output so far. A candidate is:
//!
//! - the transposition flag and the source rows chosen for the output rows so far (output rows
//!   `3k..3k+3` must come from one band, so the next row is any unused row of the current band,
//!   or any row of an unused band at a band boundary);
//! - the partial relabelling (source digit -> label) and the next free label;
//! - the stack order, fixed by the first row, and the columns as an *ordered partition*: the
//!   source columns in output order, cut into groups (each inside one stack) of columns that no
//!   output row so far tells apart, so any order inside a group gives the same output so far.
//!   A fresh candidate has one group of three columns per stack.
//!
//! For each candidate and each allowed source row, the output row is produced left to right,
//! group by group: the columns of a group are sorted by value (blanks, then digits that already
//! have a label, by label, then new digits, which take the next labels, the most repeated
//! first), and the group is cut between columns whose source values differ. Inside a row, the
//! only branching is the order of distinct new digits within one group (it decides which digit
//! gets which label). Every output value is compared at once with the best row so far: greater
//! cuts the branch; smaller makes it the new best and drops the candidates kept for this row.
//! Blank columns stay grouped instead of multiplying the candidates, so on sparse puzzles only a
//! handful of candidates survive each row. Two cheap steps keep sparse rows cheap: the groups of
//! blanks up to the group of the next given are passed over in one step, and before each of
//! output rows 1 to 8 is produced, every (candidate, source row) pair's leading blanks (each
//! group's blanks come first) are counted from bit masks, and only the pairs with the most are
//! produced: the others lose at their first given (most pairs do). A table lookup does the first cut: the stack order
//! is fixed by the first row, so the most leading blanks a row can have in it (its blank stacks,
//! then the blanks of the next stack) is known per stack order and row of givens; only the rows
//! that reach the most so far are counted group by group.
//!
//! The first row has a shortcut: a row that repeats no digit is labelled 1, 2, 3, ... left to
//! right whatever the column order, so its best output is decided by its blank pattern alone
//! (stacks in increasing order of givens, blanks first in each). Only the rows, transposed or
//! not, with the smallest such pattern are tried, each with only the stack orders that give it;
//! rows that repeat a digit (invalid puzzles only) are always tried, with every stack order.
//!
//! Equal lines are tried once: when two unused rows of a band, or two unused bands, hold the same
//! values, swapping them is a symmetry of the grid that leaves the candidate unchanged, so only
//! the first is tried; likewise equal stacks keep their order, and a grid equal to its transpose
//! is not transposed. This keeps near-empty grids (hundreds of thousands of equivalent
//! transforms) as fast as the rest.
//!
//! Solution grids (every row and column a permutation of `1..=9`) take a dedicated path,
//! [`solution`]: there every first row ties, so the search above would keep every column order.

mod solution;

use crate::grid::{self, Grid, CELLS};
use solution::SolutionCanonicalizer;

/// Bits 2, 5 and 8 of [`Cand::breaks`]: groups never cross a stack boundary.
const STACK_BREAKS: u16 = 1 << 2 | 1 << 5 | 1 << 8;

/// Set bits of a 3-bit mask: a group or a stack has three columns (and the baseline target has
/// no `popcnt`).
const ONES: [u8; 8] = [0, 1, 1, 2, 1, 2, 2, 3];

/// Per row of givens (9 bits), how many givens each stack holds.
const STACK_GIVENS: [[u8; 3]; 512] = {
    let mut table = [[0; 3]; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut k = 0;
        while k < 3 {
            table[mask][k] = ONES[mask >> (3 * k) & 7];
            k += 1;
        }
        mask += 1;
    }
    table
};

/// Per row of givens (9 bits), the key of its best blank pattern as a first row: its stacks'
/// givens counts, sorted, in base 4 (the smallest key has the most leading blanks).
const FIRST_ROW_KEY: [u8; 512] = {
    let mut table = [0; 512];
    let mut mask = 0;
    while mask < 512 {
        let [x, y, z] = STACK_GIVENS[mask];
        let (lo, hi) = if x < y { (x, y) } else { (y, x) };
        let (first, last) = if z < lo {
            (z, hi)
        } else if z > hi {
            (lo, z)
        } else {
            (lo, hi)
        };
        let middle = x + y + z - first - last;
        table[mask] = first << 4 | middle << 2 | last;
        mask += 1;
    }
    table
};

/// The six orders of three things.
const PERMS3: [[u8; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// Per row of givens (9 bits), the stack orders (bit `i` for `PERMS3[i]`) that put its stacks
/// in increasing order of givens: those that give it its best blank pattern as a first row.
const SORTING_ORDERS: [u8; 512] = {
    let mut table = [0; 512];
    let mut mask = 0;
    while mask < 512 {
        let c = STACK_GIVENS[mask];
        let mut i = 0;
        while i < 6 {
            let [a, b, z] = PERMS3[i];
            if c[a as usize] <= c[b as usize] && c[b as usize] <= c[z as usize] {
                table[mask] |= 1 << i;
            }
            i += 1;
        }
        mask += 1;
    }
    table
};

/// Per stack order `PERMS3[i]` and row of givens (9 bits, source columns): the most leading
/// blanks the row can have in that stack order, whatever the order of columns inside each stack
/// (its blank stacks, then the blanks of its first stack with a given).
const STACK_LEAD: [[u8; 512]; 6] = {
    let mut table = [[0; 512]; 6];
    let mut i = 0;
    while i < 6 {
        let mut mask = 0;
        while mask < 512 {
            let c = STACK_GIVENS[mask];
            let mut lead = 0;
            let mut k = 0;
            while k < 3 {
                let n = c[PERMS3[i][k] as usize];
                lead += 3 - n;
                if n != 0 {
                    break;
                }
                k += 1;
            }
            table[i][mask] = lead;
            mask += 1;
        }
        i += 1;
    }
    table
};

/// Per stack order `PERMS3[i]`: the source column of each output column, and the output column
/// of each source column, with the columns of each stack in their own order.
const ORDER_COLS: [[[u8; 9]; 2]; 6] = {
    let mut table = [[[0; 9]; 2]; 6];
    let mut i = 0;
    while i < 6 {
        let mut k = 0;
        while k < 3 {
            let s = PERMS3[i][k] as usize;
            let mut j = 0;
            while j < 3 {
                table[i][0][3 * k + j] = (3 * s + j) as u8;
                table[i][1][3 * s + j] = (3 * k + j) as u8;
                j += 1;
            }
            k += 1;
        }
        i += 1;
    }
    table
};

/// Per row of givens (9 bits) with at most one given per stack: which column of each stack
/// holds it (`0` for none, else 1 + the column in the stack), two bits per stack: the index of
/// its entry in [`DIRECT_ROWS`]. In other rows a stack with two or three givens counts as
/// empty; they are never looked up.
const DIRECT_CODE: [u8; 512] = {
    let mut table = [0; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut code = 0;
        let mut s = 0;
        while s < 3 {
            let m: usize = mask >> (3 * s) & 0b111;
            if m.count_ones() == 1 {
                code |= (m.trailing_zeros() as u8 + 1) << (2 * s);
            }
            s += 1;
        }
        table[mask] = code;
        mask += 1;
    }
    table
};

/// The candidate of a first row with at most one given per stack, in one stack order
/// ([`Canonicalizer::first_row_direct`]): the columns and groups with each stack's blanks first
/// (in their order, as one group) and its given last, and the source columns of the givens in
/// output order, which take labels 1, 2, 3.
#[derive(Clone, Copy)]
struct DirectRow {
    cols: [u8; 9],
    pos: [u8; 9],
    breaks: u16,
    givens: [u8; 3],
    count: u8,
}

/// [`DirectRow`] per stack order `PERMS3[i]` and [`DIRECT_CODE`].
const DIRECT_ROWS: [[DirectRow; 64]; 6] = {
    let empty = DirectRow {
        cols: [0; 9],
        pos: [0; 9],
        breaks: STACK_BREAKS,
        givens: [0; 3],
        count: 0,
    };
    let mut table = [[empty; 64]; 6];
    let mut i = 0;
    while i < 6 {
        let mut code = 0;
        while code < 64 {
            let mut row = empty;
            row.cols = ORDER_COLS[i][0];
            row.pos = ORDER_COLS[i][1];
            let mut k = 0;
            while k < 3 {
                let s = PERMS3[i][k] as usize;
                let j = code >> (2 * s) & 0b11;
                if j != 0 {
                    // The given in column j - 1 of the stack goes last, the other two first.
                    let given = j - 1;
                    let mut q = 3 * k;
                    let mut t = 0;
                    while t < 3 {
                        if t != given {
                            row.cols[q] = (3 * s + t) as u8;
                            row.pos[3 * s + t] = q as u8;
                            q += 1;
                        }
                        t += 1;
                    }
                    row.cols[3 * k + 2] = (3 * s + given) as u8;
                    row.pos[3 * s + given] = (3 * k + 2) as u8;
                    row.breaks |= 1 << (3 * k + 1);
                    row.givens[row.count as usize] = (3 * s + given) as u8;
                    row.count += 1;
                }
                k += 1;
            }
            table[i][code] = row;
            code += 1;
        }
        i += 1;
    }
    table
};

/// The output of every first row built by [`Canonicalizer::first_row_direct`] with key `key`
/// ([`FIRST_ROW_KEY`], each count at most 1): per stack in output order, three blanks, or two
/// blanks and the next label.
fn first_row_direct_output(key: u8) -> BestRow {
    let mut best = BestRow::UNDECIDED;
    let mut label = 1;
    for k in 0..3 {
        let count = key >> (4 - 2 * k) & 0b11;
        best.0[3 * k..3 * k + 3].fill(0);
        if count == 1 {
            best.0[3 * k + 2] = label;
            label += 1;
        }
    }
    best
}

/// A partial transform whose output so far equals the best output so far.
#[derive(Clone, Copy)]
struct Cand {
    /// Index of the source grid: 0 as given, 1 transposed.
    grid: u8,
    /// The stack order, fixed by the first row: `PERMS3[stacks]`.
    stacks: u8,
    /// The band of the last row chosen.
    band: u8,
    /// Source rows already used, one bit each.
    rows_used: u16,
    /// Bit `p` set: output columns `p` and `p + 1` are in different groups. Bits 2, 5, 8 always.
    breaks: u16,
    /// The next free label.
    next_label: u8,
    /// The source column of each output column.
    cols: [u8; 9],
    /// The output column of each source column (the inverse of `cols`).
    pos: [u8; 9],
    /// The label of each source value; `0` for the blank and for digits not yet seen.
    map: [u8; 10],
}

/// The best output row being built, one byte per column (`u8::MAX` past the part decided so
/// far, and in the padding), in 16 bytes so that forgetting what followed a column is one `or`.
#[derive(Clone, Copy)]
struct BestRow([u8; 16]);

/// Per column `p`, every byte after `p` set.
const AFTER: [u128; 9] = {
    let mut after = [0; 9];
    let mut p = 0;
    while p < 9 {
        after[p] = u128::MAX << (8 * p + 8);
        p += 1;
    }
    after
};

/// Per column `p`, every byte before `p` set (`p` up to 9).
const BEFORE: [u128; 10] = {
    let mut before = [0; 10];
    let mut p = 1;
    while p < 10 {
        before[p] = u128::MAX >> (128 - 8 * p);
        p += 1;
    }
    before
};

impl BestRow {
    const UNDECIDED: BestRow = BestRow([u8::MAX; 16]);

    #[inline]
    fn at(&self, p: usize) -> u8 {
        self.0[p]
    }

    /// Column `p` becomes `x`; columns after it are undecided again.
    #[inline]
    fn decide(&mut self, p: usize, x: u8) {
        self.0[p] = x;
        self.0 = (u128::from_le_bytes(self.0) | AFTER[p]).to_le_bytes();
    }

    /// Columns `p..p + len` become blanks; true if that made the row smaller (the columns after
    /// them are then undecided again).
    #[inline]
    fn blanks(&mut self, p: usize, len: usize) -> bool {
        let row = u128::from_le_bytes(self.0);
        let before = BEFORE[p];
        if row & (BEFORE[p + len] ^ before) == 0 {
            return false;
        }
        self.0 = (row & before | AFTER[p + len - 1]).to_le_bytes();
        true
    }

    /// How many blanks the row starts with (the padding is never blank).
    #[inline]
    fn leading_blanks(self) -> u32 {
        u128::from_le_bytes(self.0).trailing_zeros() / 8
    }

    fn row(self) -> [u8; 9] {
        std::array::from_fn(|i| self.0[i])
    }
}

/// The equal lines of a grid, each as a mask of the earlier equal ones.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Twins {
    /// Per row: the earlier rows of its band with the same values.
    rows: [u16; 9],
    /// Per band: the earlier bands with the same values.
    bands: [u8; 3],
    /// Per stack: the earlier stacks with the same values.
    stacks: [u8; 3],
    /// Whether any row or band has an earlier twin.
    any_rows_or_bands: bool,
}

impl Twins {
    /// The twins of grid `g`, whose transpose is `t` (a stack of `g` is a band of `t`).
    fn of(g: &[u8; CELLS], t: &[u8; CELLS]) -> Twins {
        // A row as a number: its first eight bytes and its ninth.
        let row = |r: usize| {
            let head = u64::from_le_bytes(g[r * 9..r * 9 + 8].try_into().expect("8 bytes"));
            (head, g[r * 9 + 8])
        };
        let rows: [(u64, u8); 9] = std::array::from_fn(row);
        let mut twins = Twins {
            rows: [0; 9],
            bands: band_twins(g),
            stacks: band_twins(t),
            any_rows_or_bands: false,
        };
        for r in 0..9 {
            for e in r / 3 * 3..r {
                if rows[e] == rows[r] {
                    twins.rows[r] |= 1 << e;
                }
            }
        }
        twins.any_rows_or_bands =
            twins.rows.iter().any(|&t| t != 0) || twins.bands.iter().any(|&t| t != 0);
        twins
    }

    /// [`Twins::of`] a grid with no clash and of its transpose, from the givens' columns of the
    /// grid's rows (`rows`) and of its transpose's (`cols`): there two lines of a band, or two
    /// bands, are equal only when both are blank (a given in one would be repeated in the
    /// other, in one column).
    fn of_consistent(rows: &[u16; 9], cols: &[u16; 9]) -> [Twins; 2] {
        // Per line, the earlier blank lines of its band if it is blank; per band, the earlier
        // blank bands if it is blank.
        let lines = |lines: &[u16; 9]| {
            let mut blank = 0u16;
            for (r, &line) in lines.iter().enumerate() {
                blank |= u16::from(line == 0) << r;
            }
            let mut twins = [0u16; 9];
            let mut bands = [0u8; 3];
            if blank == 0 {
                return (twins, bands, false);
            }
            let mut blank_bands = 0u8;
            let mut left = blank;
            while left != 0 {
                let r = left.trailing_zeros() as usize;
                left &= left - 1;
                twins[r] = blank & (0b111 << (r / 3 * 3)) & ((1 << r) - 1);
            }
            for (b, earlier) in bands.iter_mut().enumerate() {
                if blank >> (3 * b) & 0b111 == 0b111 {
                    *earlier = blank_bands;
                    blank_bands |= 1 << b;
                }
            }
            let any = twins.iter().any(|&t| t != 0);
            (twins, bands, any)
        };
        let (row_twins, band_twins, any_rows) = lines(rows);
        let (col_twins, stack_twins, any_cols) = lines(cols);
        let any_bands = band_twins.iter().any(|&t| t != 0);
        let any_stacks = stack_twins.iter().any(|&t| t != 0);
        [
            Twins {
                rows: row_twins,
                bands: band_twins,
                stacks: stack_twins,
                any_rows_or_bands: any_rows || any_bands,
            },
            Twins {
                rows: col_twins,
                bands: stack_twins,
                stacks: band_twins,
                any_rows_or_bands: any_cols || any_stacks,
            },
        ]
    }
}

/// Per band of `g`, the earlier bands with the same values.
fn band_twins(g: &[u8; CELLS]) -> [u8; 3] {
    let band = |b: usize| &g[b * 27..b * 27 + 27];
    [
        0,
        u8::from(band(0) == band(1)),
        u8::from(band(0) == band(2)) | u8::from(band(1) == band(2)) << 1,
    ]
}

/// A canonicaliser with reusable scratch space: after a few calls it stops allocating.
pub struct Canonicalizer {
    /// The grid as given and transposed.
    grids: [[u8; CELLS]; 2],
    /// The equal lines of each grid.
    twins: [Twins; 2],
    /// Per grid and source row, its givens' columns, one bit each.
    givens: [[u16; 9]; 2],
    /// Candidates that produced the best output rows so far.
    cur: Vec<Cand>,
    /// Candidates that produce the best output row being built.
    next: Vec<Cand>,
    /// The (candidate, source row, givens' output columns) pairs to produce for the next row.
    pairs: Vec<(u32, u8, u16)>,
    /// The best output row being built.
    best: BestRow,
    /// Scratch space for solution grids.
    solutions: SolutionCanonicalizer,
}

impl Default for Canonicalizer {
    fn default() -> Self {
        Canonicalizer::new()
    }
}

impl Canonicalizer {
    /// A canonicaliser with empty scratch space.
    pub fn new() -> Canonicalizer {
        Canonicalizer {
            grids: [[0; CELLS]; 2],
            twins: [Twins::default(); 2],
            givens: [[0; 9]; 2],
            cur: Vec::new(),
            next: Vec::new(),
            pairs: Vec::new(),
            best: BestRow::UNDECIDED,
            solutions: SolutionCanonicalizer::default(),
        }
    }

    /// The minlex form of `grid` (see [`canonical`]).
    pub fn canonical(&mut self, grid: &Grid) -> Grid {
        self.canonical_of(grid, false)
    }

    /// [`Canonicalizer::canonical`] of a grid whose givens do not clash (`Grid::first_clash` is
    /// `None`), which the caller has checked: no row repeats a digit, so the first row's
    /// search skips looking for repeats.
    pub(crate) fn canonical_consistent(&mut self, grid: &Grid) -> Grid {
        debug_assert!(grid.first_clash().is_none(), "{grid}");
        self.canonical_of(grid, true)
    }

    fn canonical_of(&mut self, grid: &Grid, consistent: bool) -> Grid {
        let g = grid.cells();
        self.grids[0] = *g;
        for r in 0..9 {
            for c in 0..9 {
                self.grids[1][r * 9 + c] = g[c * 9 + r];
            }
        }
        if solution::is_solution_grid(g) {
            let out = self.solutions.canonical(&self.grids);
            return Grid::from_values(out);
        }
        self.search(consistent)
    }

    /// The general search, on `self.grids`; `consistent` if no line repeats a digit.
    fn search(&mut self, consistent: bool) -> Grid {
        // Equal lines, and a grid equal to its transpose: see the module documentation.
        let grids = if self.grids[0] == self.grids[1] { 1 } else { 2 };
        for grid in 0..2 {
            let all = grid::givens_mask(&self.grids[grid]);
            self.givens[grid] = std::array::from_fn(|row| (all >> (9 * row)) as u16 & 0x1ff);
        }
        self.twins = if consistent {
            Twins::of_consistent(&self.givens[0], &self.givens[1])
        } else {
            [
                Twins::of(&self.grids[0], &self.grids[1]),
                Twins::of(&self.grids[1], &self.grids[0]),
            ]
        };

        // Output row 0 (see the module documentation): the key of a row that repeats no digit
        // is its stacks' givens counts, sorted, in base 4; rows that repeat a digit can beat a
        // smaller pattern with repeated labels, so they are always tried.
        const CLASH: u8 = u8::MAX;
        let mut keys = [[CLASH; 9]; 2];
        let mut min_key = CLASH;
        let mut any_repeats = false;
        for (grid, keys) in keys.iter_mut().enumerate().take(grids) {
            for (row, key) in keys.iter_mut().enumerate() {
                let mask = self.givens[grid][row];
                let mut repeats = false;
                if !consistent {
                    let mut seen = 0u16;
                    let mut left = mask;
                    while left != 0 {
                        let d = self.grids[grid][row * 9 + left.trailing_zeros() as usize];
                        left &= left - 1;
                        repeats |= seen & 1 << d != 0;
                        seen |= 1 << d;
                    }
                }
                if !repeats {
                    *key = FIRST_ROW_KEY[usize::from(mask)];
                    min_key = min_key.min(*key);
                }
                any_repeats |= repeats;
            }
        }
        // No row repeats a digit, and the rows with the smallest key have at most one given per
        // stack (its largest count is at most 1): their candidates are built directly, and all
        // give the same output.
        let direct = !any_repeats && min_key & 0b11 <= 1;
        self.best = match direct {
            true => first_row_direct_output(min_key),
            false => BestRow::UNDECIDED,
        };
        self.next.clear();
        for grid in 0..grids {
            let rows = self.rows_to_try(grid, 0, true, 0);
            let stack_twins = self.twins[grid].stacks;
            for row in (0..9).filter(|&row| rows & 1 << row != 0) {
                let key = keys[grid][row];
                if key != CLASH && key != min_key {
                    continue;
                }
                let mut orders = match key {
                    CLASH => 0b11_1111,
                    _ => SORTING_ORDERS[usize::from(self.givens[grid][row])],
                };
                while orders != 0 {
                    let i = orders.trailing_zeros() as usize;
                    orders &= orders - 1;
                    // Of equal stacks, the first one first.
                    if stack_twins != [0; 3] {
                        let mut placed = 0u8;
                        let twins_first = PERMS3[i].iter().all(|&s| {
                            let ok = stack_twins[s as usize] & !placed == 0;
                            placed |= 1 << s;
                            ok
                        });
                        if !twins_first {
                            continue;
                        }
                    }
                    if direct {
                        self.first_row_direct(grid, row, i);
                        continue;
                    }
                    let [cols, pos] = ORDER_COLS[i];
                    let cand = Cand {
                        grid: grid as u8,
                        stacks: i as u8,
                        band: 0,
                        rows_used: 0,
                        breaks: STACK_BREAKS,
                        next_label: 1,
                        cols,
                        pos,
                        map: [0; 10],
                    };
                    if let Some((_, out)) = self.lead(&cand, row, self.best.leading_blanks()) {
                        self.start_row(&cand, row, out);
                    }
                }
            }
        }
        let mut out = [0u8; CELLS];
        out[..9].copy_from_slice(&self.best.row());
        let mut cur = std::mem::take(&mut self.cur);
        cur.clear();
        std::mem::swap(&mut cur, &mut self.next);

        // Output rows 1 to 8: every unused row allowed by the band structure. The best output
        // row starts with the most leading blanks any (candidate, row) pair can have, so a first
        // pass keeps only the pairs that reach that many, and only those are produced: pairs
        // produced in arbitrary order would often be beaten on leading blanks by a later one.
        let mut pairs = std::mem::take(&mut self.pairs);
        for r in 1..9 {
            self.best = BestRow::UNDECIDED;
            self.next.clear();
            pairs.clear();
            let mut most = 0;
            let new_band = matches!(r, 3 | 6);
            for (i, cand) in cur.iter().enumerate() {
                let (grid, band) = (cand.grid as usize, cand.band as usize);
                let mut rows = self.rows_to_try(grid, cand.rows_used, new_band, band);
                while rows != 0 {
                    let row = rows.trailing_zeros() as usize;
                    rows &= rows - 1;
                    if let Some((lead, out)) = self.lead(cand, row, most) {
                        if lead > most {
                            most = lead;
                            pairs.clear();
                        }
                        // At most 3,359,232 candidates (one per transform): a u32 holds any.
                        pairs.push((i as u32, row as u8, out));
                    }
                }
            }
            for &(i, row, out) in &pairs {
                self.start_row(&cur[i as usize], usize::from(row), out);
            }
            out[r * 9..r * 9 + 9].copy_from_slice(&self.best.row());
            std::mem::swap(&mut cur, &mut self.next);
        }
        self.cur = cur;
        self.pairs = pairs;
        Grid::from_values(out)
    }

    /// Adds to `next` the candidate whose first output row is source row `row` of grid `grid`
    /// in stack order `PERMS3[order]`, for a row with at most one given per stack in a grid
    /// where no row repeats a digit (the usual first row of a sparse puzzle). Such a row labels
    /// its givens 1, 2, 3, ... left to right, so every first row with the smallest key gives the
    /// same output ([`first_row_direct_output`]), and `start_row` would only confirm it: here
    /// each stack with a given puts its two blanks first, in their order, as one group, then the
    /// given ([`DIRECT_ROWS`]).
    fn first_row_direct(&mut self, grid: usize, row: usize, order: usize) {
        let mask = usize::from(self.givens[grid][row]);
        let direct = &DIRECT_ROWS[order][usize::from(DIRECT_CODE[mask])];
        let mut cand = Cand {
            grid: grid as u8,
            stacks: order as u8,
            band: (row / 3) as u8,
            rows_used: 1 << row,
            breaks: direct.breaks,
            next_label: 1,
            cols: direct.cols,
            pos: direct.pos,
            map: [0; 10],
        };
        let values = &self.grids[grid][row * 9..row * 9 + 9];
        for &col in &direct.givens[..usize::from(direct.count)] {
            cand.map[usize::from(values[usize::from(col)])] = cand.next_label;
            cand.next_label += 1;
        }
        self.next.push(cand);
    }

    /// The source rows to try as the next output row after rows `used`: at a band boundary
    /// (`new_band`), the rows of every unused band, else the unused rows of `band`; of equal
    /// unused rows of a band, or of equal unused bands, only the first (swapping them is a
    /// symmetry of the grid that leaves the candidate as it is, so they give the same outputs).
    fn rows_to_try(&self, grid: usize, used: u16, new_band: bool, band: usize) -> u16 {
        let twins = &self.twins[grid];
        if !twins.any_rows_or_bands {
            // The usual grid, with no equal rows or bands: every unused row that fits.
            let open = if new_band { 0x1ff } else { 0b111 << (3 * band) };
            return open & !used;
        }
        let unused_band = |b: usize| used & 0b111 << (3 * b) == 0;
        let mut rows = 0;
        for b in 0..3 {
            let open = if new_band {
                unused_band(b) && (0..b).all(|e| twins.bands[b] & 1 << e == 0 || !unused_band(e))
            } else {
                b == band
            };
            if open {
                for row in 3 * b..3 * b + 3 {
                    if used & 1 << row == 0 && twins.rows[row] & !used == 0 {
                        rows |= 1 << row;
                    }
                }
            }
        }
        rows
    }

    /// The most leading blanks source row `row` can have as the next output row of `cand`, and
    /// the output columns of its givens; `None` if that is fewer than `at_least`. The row's best
    /// arrangement puts the blanks of each group first, so its first given is at the end of the
    /// first group holding one, minus that group's givens.
    #[inline(always)]
    fn lead(&self, cand: &Cand, row: usize, at_least: u32) -> Option<(u32, u16)> {
        let mask = self.givens[cand.grid as usize][row];
        if u32::from(STACK_LEAD[usize::from(cand.stacks)][usize::from(mask)]) < at_least {
            return None; // fewer leading blanks in any column order inside the stacks
        }
        let mut out = 0u16;
        let mut m = mask;
        while m != 0 {
            out |= 1 << cand.pos[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        if out == 0 {
            return Some((9, 0));
        }
        let first = out.trailing_zeros();
        let before = cand.breaks & ((1 << first) - 1);
        let start = 16 - before.leading_zeros();
        let end = first + (cand.breaks >> first).trailing_zeros();
        let in_group = (out >> start) & ((1 << (end - start + 1)) - 1);
        let lead = end + 1 - u32::from(ONES[in_group as usize]);
        (lead >= at_least).then_some((lead, out))
    }

    /// Extends `cand` with source row `row` as the next output row; `out` has the output columns
    /// of its givens (from [`Canonicalizer::lead`]).
    #[inline(always)]
    fn start_row(&mut self, cand: &Cand, row: usize, out: u16) {
        let g = &self.grids[cand.grid as usize];
        let mut values = [0u8; 9];
        values.copy_from_slice(&g[row * 9..row * 9 + 9]);
        let mut cand = *cand;
        cand.rows_used |= 1 << row;
        cand.band = (row / 3) as u8;
        self.extend(&values, cand, 0, out);
    }

    /// Records output value `x` at column `p`; false if the branch is worse than the best.
    #[inline]
    fn accept(&mut self, p: usize, x: u8) -> bool {
        let b = self.best.at(p);
        if x > b {
            return false;
        }
        if x < b {
            self.best.decide(p, x);
            self.next.clear();
        }
        true
    }

    /// Produces output columns `p..9` of the row `values` for `cand`, keeping each completion
    /// that equals the best row. Bit `i` of `givens` is set if output column `i` (in `cand`'s
    /// column order when the row started) holds a given.
    fn extend(&mut self, values: &[u8; 9], mut cand: Cand, mut p: usize, givens: u16) {
        while p < 9 {
            let len = (cand.breaks >> p).trailing_zeros() as usize + 1;
            let in_group = givens >> p & ((1 << len) - 1);
            if in_group == 0 {
                // Groups of blanks (most groups of a sparse puzzle), up to the group of the next
                // given: each stays one group, and blanks are never worse than the best row.
                let ahead = givens >> p;
                let end = match ahead {
                    0 => 9,
                    _ => {
                        let given = p as u32 + ahead.trailing_zeros();
                        16 - (cand.breaks & ((1 << given) - 1)).leading_zeros()
                    }
                } as usize;
                if self.best.blanks(p, end - p) {
                    self.next.clear();
                }
                p = end;
                continue;
            }
            if len > 1 && in_group & (in_group - 1) == 0 {
                // One given among blanks (the next most common group): the blanks first, in
                // their order, as one group, then the given, with no choice to branch on.
                let at = p + in_group.trailing_zeros() as usize;
                let given = cand.cols[at];
                let q = p + len - 1;
                for i in at..q {
                    let col = cand.cols[i + 1];
                    cand.cols[i] = col;
                    cand.pos[col as usize] = i as u8;
                }
                if self.best.blanks(p, len - 1) {
                    self.next.clear();
                }
                let d = values[given as usize] as usize;
                let mut x = cand.map[d];
                if x == 0 {
                    x = cand.next_label;
                    cand.map[d] = x;
                    cand.next_label += 1;
                }
                if !self.accept(q, x) {
                    return;
                }
                cand.cols[q] = given;
                cand.pos[given as usize] = q as u8;
                cand.breaks |= 1 << (q - 1);
                p += len;
                continue;
            }
            if len > 1 {
                return self.group(values, cand, p, len, givens);
            }
            let d = values[cand.cols[p] as usize] as usize;
            let mut x = cand.map[d];
            if d != 0 && x == 0 {
                x = cand.next_label;
                cand.map[d] = x;
                cand.next_label += 1;
            }
            if !self.accept(p, x) {
                return;
            }
            p += 1;
        }
        self.next.push(cand);
    }

    /// Orders the group of `len` (2 or 3) columns starting at output column `p`, then goes on.
    /// Not inlined: `extend`, which runs far more often, would carry its larger frame.
    #[inline(never)]
    fn group(&mut self, values: &[u8; 9], cand: Cand, p: usize, len: usize, givens: u16) {
        // Columns whose value is known (blank or labelled), sorted by that value.
        let mut known = [(0u8, 0u8); 3];
        let mut nk = 0;
        // Distinct new digits: (digit, how many columns hold it).
        let mut new = [(0u8, 0u8); 3];
        let mut nn = 0;
        let mut cols = [0u8; 3];
        cols[..len].copy_from_slice(&cand.cols[p..p + len]);
        for &col in &cols[..len] {
            let d = values[col as usize];
            let x = cand.map[d as usize];
            if d == 0 || x != 0 {
                let mut i = nk;
                while i > 0 && known[i - 1].0 > x {
                    known[i] = known[i - 1];
                    i -= 1;
                }
                known[i] = (x, col);
                nk += 1;
            } else {
                match new[..nn].iter_mut().find(|e| e.0 == d) {
                    Some(e) => e.1 += 1,
                    None => {
                        new[nn] = (d, 1);
                        nn += 1;
                    }
                }
            }
        }

        let mut base = cand;
        for (i, &(x, col)) in known[..nk].iter().enumerate() {
            if !self.accept(p + i, x) {
                return;
            }
            base.cols[p + i] = col;
            base.pos[col as usize] = (p + i) as u8;
        }
        if nn == 0 {
            refine(&mut base, values, p, len);
            return self.extend(values, base, p + len, givens);
        }

        // New digits: the most repeated first (a repeat of a label beats a new label); distinct
        // new digits with equal counts are a real choice, so each order is a branch.
        // (A group has at most three columns: three new digits are one column each.
        // `PERMS3[2]` is the order `[1, 0, 2]`.)
        let orders: &[[u8; 3]] = match nn {
            1 => &PERMS3[..1],
            2 if new[0].1 > new[1].1 => &PERMS3[..1],
            2 if new[0].1 < new[1].1 => &PERMS3[2..3],
            2 => &[PERMS3[0], PERMS3[2]],
            _ => &PERMS3,
        };
        for perm in orders {
            let mut cand = base;
            let mut q = p + nk;
            let mut ok = true;
            for &i in &perm[..nn] {
                let d = new[usize::from(i)].0;
                let x = cand.next_label;
                cand.map[d as usize] = x;
                cand.next_label += 1;
                for &col in &cols[..len] {
                    if values[col as usize] == d {
                        if !self.accept(q, x) {
                            ok = false;
                            break;
                        }
                        cand.cols[q] = col;
                        cand.pos[col as usize] = q as u8;
                        q += 1;
                    }
                }
                if !ok {
                    break;
                }
            }
            if ok {
                refine(&mut cand, values, p, len);
                self.extend(values, cand, p + len, givens);
            }
        }
    }
}

/// Cuts the group of `len` columns at `p` between columns whose values in this row differ.
#[inline]
fn refine(cand: &mut Cand, values: &[u8; 9], p: usize, len: usize) {
    for i in p..p + len - 1 {
        if values[cand.cols[i] as usize] != values[cand.cols[i + 1] as usize] {
            cand.breaks |= 1 << i;
        }
    }
}

/// The canonical form of `grid`: among all 3,359,232 geometric transforms ([`Transform`](crate::Transform):
/// transposition, band, row, stack and column permutations) composed with all 9! relabellings,
/// the one whose 81-character row-major string (`0` for blanks) is lexicographically smallest
/// (minlex). Two grids have the same form exactly when one is a transform of the other; clashing,
/// empty and solved grids all have one.
///
/// The minlex form of `grid`, with a scratch space kept per
/// thread, so that the batch engine's workers stop allocating after their first few puzzles.
pub fn canonical(grid: &Grid) -> Grid {
    with_scratch(|canon| canon.canonical(grid))
}

/// [`canonical`] of a grid the caller has checked has no clash (the `canon` and `dedupe`
/// tasks): see [`Canonicalizer::canonical_consistent`].
pub(crate) fn canonical_consistent(grid: &Grid) -> Grid {
    with_scratch(|canon| canon.canonical_consistent(grid))
}

/// Runs `f` on this thread's scratch space (a fresh one if it is in use).
fn with_scratch(f: impl FnOnce(&mut Canonicalizer) -> Grid) -> Grid {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Canonicalizer> = std::cell::RefCell::new(Canonicalizer::new());
    }
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => f(&mut scratch),
        Err(_) => f(&mut Canonicalizer::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::symmetry::Transform;

    #[test]
    fn empty_and_single_given() {
        assert_eq!(canonical(&Grid::EMPTY), Grid::EMPTY);
        let mut cells = [0u8; CELLS];
        cells[30] = 4;
        let mut expect = [0u8; CELLS];
        expect[80] = 1;
        assert_eq!(
            canonical(&Grid::from_cells(cells).unwrap()),
            Grid::from_cells(expect).unwrap()
        );
    }

    #[test]
    fn reused_scratch_gives_the_same_forms() {
        let p: Grid =
            "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"
                .parse()
                .unwrap();
        let mut canon = Canonicalizer::new();
        let c = canon.canonical(&p);
        assert_eq!(
            c.to_line(),
            "000000001000002030004050000000060700030000020080009000000901080007000000506000400"
        );
        for seed in 0..50 {
            let q = Transform::random(seed).apply(&p);
            assert_eq!(canon.canonical(&q), c);
            assert_eq!(canonical(&q), c);
        }
    }

    /// The general search on `grid`, bypassing the solution-grid path.
    fn general(canon: &mut Canonicalizer, grid: &Grid) -> Grid {
        let g = grid.cells();
        canon.grids[0] = *g;
        for r in 0..9 {
            for c in 0..9 {
                canon.grids[1][r * 9 + c] = g[c * 9 + r];
            }
        }
        canon.search(false)
    }

    #[test]
    fn solution_grids_take_their_path_and_agree_with_the_general_search() {
        let mut rng = crate::rng::SplitMix64(5);
        let mut canon = Canonicalizer::new();
        // Latin squares that are not sudokus (boxes repeat digits) take the path too.
        let cyclic = Grid::from_cells(std::array::from_fn(|i| ((i / 9 + i % 9) % 9 + 1) as u8));
        let shifted =
            Grid::from_cells(std::array::from_fn(|i| ((i / 9 * 4 + i % 9) % 9 + 1) as u8));
        let latin = [cyclic.unwrap(), shifted.unwrap()];
        for case in 0..300 {
            let grid = match latin.get(case) {
                Some(&g) => g,
                None => {
                    Grid::from_cells(crate::generate::random_solution_from(case as u64)).unwrap()
                }
            };
            assert!(solution::is_solution_grid(grid.cells()));
            let fast = canon.canonical(&grid);
            assert_eq!(fast, general(&mut canon, &grid), "{grid}");
            let q = Transform::random(rng.next_u64()).apply(&grid);
            assert_eq!(canon.canonical(&q), fast, "{grid} and its isomorph {q}");
        }
        // One clash and the grid is no longer a solution grid: the general search answers.
        let mut cells = *latin[0].cells();
        cells[0] = cells[1];
        assert!(!solution::is_solution_grid(&cells));
        cells[1] = 0;
        assert!(!solution::is_solution_grid(&cells));
    }

    /// Grids without a clash get the same form whether or not the caller says so (the first
    /// row's search then skips looking for repeated digits): solution grids with every
    /// proportion of their cells blanked, and generated minimal puzzles.
    #[test]
    fn consistent_grids_have_the_same_form_without_the_repeat_scan() {
        let mut rng = crate::rng::SplitMix64(11);
        let mut canon = Canonicalizer::new();
        for case in 0..600u64 {
            let solution = crate::generate::random_solution_from(case);
            let keep = rng.next_u64() % 82;
            let cells = std::array::from_fn(|i| match rng.next_u64() % 81 < keep {
                true => solution[i],
                false => 0,
            });
            let grid = Grid::from_cells(cells).unwrap();
            assert!(grid.first_clash().is_none());
            assert_eq!(
                canon.canonical_consistent(&grid),
                canon.canonical(&grid),
                "{grid}"
            );
        }
        for i in 0..200 {
            let p = crate::generate::puzzle(5, i, crate::generate::Mode::Minimal, None);
            assert_eq!(canonical_consistent(&p), canonical(&p), "{p}");
        }
    }

    /// The twins of a grid without a clash, found from its blank lines, are the equal lines
    /// found by comparing values, for the grid and its transpose: on solution grids with every
    /// proportion of their cells blanked (down to none kept, where every line is blank).
    #[test]
    fn twins_of_a_consistent_grid_are_its_blank_lines() {
        let mut rng = crate::rng::SplitMix64(5);
        let mut blank_twins = 0;
        for case in 0..2000u64 {
            let solution = crate::generate::random_solution_from(case);
            let keep = rng.next_u64() % 30;
            let g: [u8; CELLS] = std::array::from_fn(|i| match rng.next_u64() % 81 < keep {
                true => solution[i],
                false => 0,
            });
            let t: [u8; CELLS] = std::array::from_fn(|i| g[i % 9 * 9 + i / 9]);
            let lines = |grid: &[u8; CELLS]| -> [u16; 9] {
                std::array::from_fn(|r| {
                    (0..9).fold(0, |m, c| m | u16::from(grid[r * 9 + c] != 0) << c)
                })
            };
            let fast = Twins::of_consistent(&lines(&g), &lines(&t));
            assert_eq!(fast, [Twins::of(&g, &t), Twins::of(&t, &g)], "{g:?}");
            blank_twins += usize::from(fast[0].any_rows_or_bands || fast[1].any_rows_or_bands);
        }
        assert!(blank_twins > 100, "{blank_twins}");
    }

    #[test]
    fn a_repeated_digit_can_win_the_first_row() {
        // Every row and every column holds one given per stack (band): row r at columns
        // 3s + (r + s) % 3, and no digit repeats in them but for row 0: three 5s, and a 6 at
        // column 6. Its blank pattern, stacks counting 1, 1, 2 givens, is worse than that of the
        // other lines (1, 1, 1: "001002003" at best), yet it labels to "001001012", smaller.
        let others = [1, 2, 3, 4, 6, 7, 8, 9];
        let mut cells = [0u8; CELLS];
        for r in 0..9 {
            for s in 0..3 {
                let c = 3 * s + (r + s) % 3;
                cells[r * 9 + c] = if r == 0 { 5 } else { others[(3 * r + s) % 8] };
            }
        }
        cells[6] = 6;
        let p = Grid::from_cells(cells).unwrap();
        assert!(canonical(&p).to_line().starts_with("001001012"), "{p}");
    }
}
