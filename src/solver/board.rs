//! The search state and its propagation: digit-major band masks in the style of JCZSolve.
//!
//! For each digit and each band (three rows) one `u32` holds the 27 cells of the band where the
//! digit may still go (placed digits keep their bit). Index `digit * 3 + band` ("subband").
//! Propagation per subband is two table loads (`tables.rs`), for locked candidates inside the
//! band and for columns claimed from the two other bands, and a little arithmetic for rows left
//! with one cell. The search is bound by its loads more than by its arithmetic: the first table is
//! packed and its index computed with a multiply, and solved rows are computed, not looked up
//! (measured: 8-15% faster on the public sets than the ten lookups these replaced). Naked singles
//! are found with bit-sliced counters over the nine digits of a band, which also yield the
//! bivalue cells the search branches on. In searches on sparse puzzles each subband update also
//! records the digit's valid *placements* in the band (which minirow it takes in each box: at most
//! 6), which drive the triad rule and the branching of long searches. The whole state is a
//! 268-byte `Copy` struct, copied on each guess: no undo log and no heap.

use super::tables::{
    self, ALL_MINIROWS, ANY_MINIROWS, BAND, BAND_RULE, COLUMN, EXPAND, MINIROW_ROWS, OTHER_BANDS,
    PEERS_IN_BAND, PLACEMENT_CELLS, ROW, ROW_COUNT,
};
use crate::grid::{givens_mask, Grid};

/// The puzzle has no solution from this state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contradiction;

type Step<T> = Result<T, Contradiction>;

/// Column claims and triads run in a search once it has taken this many guesses (see
/// `explore`)...
const CLAIMS_AFTER_GUESSES: u64 = 8;
/// ...and in any state with at least this many blanks (26 clues or fewer).
const CLAIMS_MIN_OPEN: u32 = 55;
/// Branching on puzzles that start sparse switches from bivalue cells to a digit's placements
/// in a band once a search has taken this many guesses (see `search_placements`).
const PLACEMENTS_AFTER_GUESSES: u64 = 2;
/// Branching looks for the row with the fewest unsolved cells once a search has taken this many
/// guesses (one guess after column claims start; tuned separately, see `search`).
const ROW_CHOICE_AFTER_GUESSES: u64 = 9;

#[derive(Clone, Copy)]
pub struct Board {
    /// Cells where each digit may go, per subband (`digit * 3 + band`).
    cand: [u32; 27],
    /// `cand` as it was after that subband was last propagated; a difference marks it dirty.
    seen: [u32; 27],
    /// Valid placements of each subband's digit in its band (bit `p` for `tables::PERMS[p]`, see
    /// `tables::PLACEMENTS`), as of the subband's last update.
    placements: [u8; 27],
    /// Cells not yet known to be solved, per band.
    unsolved: [u32; 3],
    /// Cells with exactly two candidates, per band, from the last singles scan.
    pairs: [u32; 3],
}

// The size the module docs (and README.md) quote; a new field should update them.
const _: () = assert!(std::mem::size_of::<Board>() == 268);

/// What the search is asked for, and what it has found so far.
pub struct Goal<'a> {
    /// Stop after this many solutions.
    pub limit: u32,
    pub found: u32,
    pub guesses: u64,
    /// States the search visited (calls of `explore`): the work, which guesses undercount when
    /// a branch point on a placement has more than two children.
    pub nodes: u64,
    /// Where the first solution found is written (it holds one once `found > 0`): the caller's
    /// own grid, so a solution is not copied out through the search's result.
    pub first: &'a mut Grid,
    /// False when the search's first state had fewer than `CLAIMS_MIN_OPEN` blanks (a dense
    /// puzzle). Blanks only get fewer, so no later state of the search needs counting, and the
    /// search keeps the cheap rules (see `explore`).
    sparse: bool,
}

impl<'a> Goal<'a> {
    pub fn new(limit: u32, first: &'a mut Grid) -> Goal<'a> {
        Goal {
            limit,
            found: 0,
            guesses: 0,
            nodes: 0,
            first,
            sparse: true,
        }
    }

    fn done(&self) -> bool {
        self.found >= self.limit
    }
}

/// Propagates one subband. `S` is a constant so every index below is checked at compile time.
#[inline(always)]
fn update_subband<const S: usize, const PLACEMENTS: bool>(b: &mut Board) -> Step<()> {
    let band = S % 3;
    let old = b.cand[S];
    let (locked, placements) = tables::band_rule(BAND_RULE[tables::minirow_index(old)]);
    let cells = old & locked;
    if cells == 0 {
        return Err(Contradiction);
    }
    b.cand[S] = cells;
    b.seen[S] = cells;
    if PLACEMENTS {
        // `locked` keeps exactly the minirows of valid placements, so they are the same for
        // `old` and `cells`.
        b.placements[S] = placements;
    }

    let cols = ((cells | cells >> 9 | cells >> 18) & ROW) as usize;
    let keep = OTHER_BANDS[cols] as u32;
    b.cand[S - band + (band + 1) % 3] &= keep;
    b.cand[S - band + (band + 2) % 3] &= keep;

    // A row left with one cell is solved: clear that cell from the other digits. A placement
    // exists, so every row has a cell, and subtracting 1 per row borrows across no row;
    // `cells & (cells - 1)` per row is then zero exactly for the rows with one cell. Computed
    // rather than looked up (measured: 2-5% faster than the old rule's lookups, a forced minirow
    // in a box confined to one column).
    let more = cells & cells.wrapping_sub(COLUMN);
    // Three explicit tests, not a loop: measured 3% faster on 17-clue and Serg.
    let mut rows = 0;
    if more & ROW == 0 {
        rows |= ROW;
    }
    if more & ROW << 9 == 0 {
        rows |= ROW << 9;
    }
    if more & ROW << 18 == 0 {
        rows |= ROW << 18;
    }
    let solved = rows & cells;
    b.unsolved[band] &= !solved;
    let mut other = band;
    while other < 27 {
        if other != S {
            b.cand[other] &= !solved;
        }
        other += 3;
    }
    Ok(())
}

macro_rules! update_dirty {
    ($b:expr, $placements:ident, $changed:ident, $($s:literal)*) => {
        $(
            if $b.cand[$s] != $b.seen[$s] {
                $changed = true;
                update_subband::<$s, $placements>($b)?;
            }
        )*
    };
}

/// The number of cells in a band mask. The default x86-64 target has no `popcnt` instruction,
/// where `count_ones` takes about 15 instructions; three lookups are cheaper.
#[inline(always)]
fn cells_in(mask: u32) -> u32 {
    if cfg!(any(target_feature = "popcnt", not(target_arch = "x86_64"))) {
        mask.count_ones()
    } else {
        u32::from(ROW_COUNT[(mask & ROW) as usize])
            + u32::from(ROW_COUNT[(mask >> 9 & ROW) as usize])
            + u32::from(ROW_COUNT[(mask >> 18 & ROW) as usize])
    }
}

/// `OTHER_COLUMNS[pos]`: a band mask without the column of band cell `pos` (a lookup, since
/// `pos % 9` is a multiply and a shift).
const OTHER_COLUMNS: [u32; 27] = {
    let mut t = [0u32; 27];
    let mut pos = 0;
    while pos < 27 {
        t[pos] = BAND & !(COLUMN << (pos % 9));
        pos += 1;
    }
    t
};

impl Board {
    /// The state for a puzzle's givens; `Err` if two givens clash. Inlined into its two callers,
    /// so the state is built in place rather than copied out of a `Result`.
    #[inline(always)]
    pub fn new(puzzle: &Grid) -> Step<Board> {
        let mut cand = [BAND; 27];
        let mut placed = [0u32; 27];
        let mut given = [0u32; 3];
        // Only the givens are visited: a walk over all 27 cells cost a test and a branch per
        // blank (measured: about a quarter of the whole solve on easy puzzles). They are found
        // with the grid's own 16-byte pieces (`givens_mask`): 93 instructions fewer than eight
        // cells at a time in 64-bit words, whose loads also spanned the pieces the parse stored.
        let givens = givens_mask(puzzle.cells());
        for (band, cells) in puzzle.cells().chunks_exact(27).enumerate() {
            let mut left = (givens >> (27 * band)) as u32 & BAND;
            given[band] = left;
            while left != 0 {
                let pos = left.trailing_zeros() as usize;
                left &= left - 1;
                let digit = usize::from(cells[pos] - 1).min(8);
                let s = digit * 3 + band;
                let bit = 1u32 << pos;
                if cand[s] & bit == 0 {
                    return Err(Contradiction);
                }
                cand[s] &= PEERS_IN_BAND[pos];
                let column = OTHER_COLUMNS[pos];
                cand[digit * 3 + (band + 1) % 3] &= column;
                cand[digit * 3 + (band + 2) % 3] &= column;
                placed[s] |= bit;
            }
        }
        // Given cells leave every other digit in one pass; digit-major loops with the band
        // innermost, so each band's mask is a constant per position (`s % 3` was not).
        let mut b = Board {
            cand: [0; 27],
            seen: [0; 27],
            placements: [0; 27],
            unsolved: [BAND & !given[0], BAND & !given[1], BAND & !given[2]],
            pairs: [0; 3],
        };
        for digit in 0..9 {
            for (band, &given_here) in given.iter().enumerate() {
                let s = digit * 3 + band;
                b.cand[s] = cand[s] & !given_here | placed[s];
            }
        }
        Ok(b)
    }

    /// Places the digit of subband `s` on the single cell `bit`. Only the subband itself is
    /// touched; propagation removes the cell from the other digits.
    #[inline(always)]
    fn place(&mut self, s: usize, bit: u32) {
        self.cand[s] &= PEERS_IN_BAND[(bit.trailing_zeros() & 31) as usize];
    }

    fn open_cells(&self) -> u32 {
        cells_in(self.unsolved[0]) + cells_in(self.unsolved[1]) + cells_in(self.unsolved[2])
    }

    fn is_solved(&self) -> bool {
        self.unsolved[0] | self.unsolved[1] | self.unsolved[2] == 0
    }

    /// Runs subband propagation until nothing changes; with `PLACEMENTS`, records each updated
    /// subband's placements.
    fn update<const PLACEMENTS: bool>(&mut self) -> Step<()> {
        loop {
            let mut changed = false;
            update_dirty!(self, PLACEMENTS, changed,
                0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26);
            if !changed {
                return Ok(());
            }
        }
    }

    /// Finds cells with one candidate and places them; records bivalue cells.
    /// Returns whether any single was placed.
    fn naked_singles(&mut self) -> Step<bool> {
        let mut placed = false;
        for band in 0..3 {
            // Bit-sliced counters: cells with at least one, two, three candidates.
            let (mut one, mut two, mut three) = (0u32, 0u32, 0u32);
            for digit in 0..9 {
                let m = self.cand[digit * 3 + band];
                three |= two & m;
                two |= one & m;
                one |= m;
            }
            if one != BAND {
                return Err(Contradiction);
            }
            self.pairs[band] = two & !three;
            let mut singles = one & !two & self.unsolved[band];
            'cells: while singles != 0 {
                let bit = singles & singles.wrapping_neg();
                singles ^= bit;
                placed = true;
                for digit in 0..9 {
                    let s = digit * 3 + band;
                    if self.cand[s] & bit != 0 {
                        self.place(s, bit);
                        continue 'cells;
                    }
                }
                // An earlier single in this scan took this cell's last candidate.
                return Err(Contradiction);
            }
        }
        Ok(placed)
    }

    /// Column-based locked candidates, which the row-oriented band updates miss: where a digit's
    /// column is possible in one band only, that band's box is confined to the column. This also
    /// finds hidden singles in columns. Run only when the cheaper rules are stuck.
    /// Returns whether anything changed.
    fn column_claims(&mut self) -> Step<bool> {
        let columns = |m: u32| (m | m >> 9 | m >> 18) & ROW;
        // Keep, per box, only the claimed columns (or all three if none is claimed); written
        // without table lookups so the loop over digits vectorizes. In a column mask (bit
        // `col`), each box's first column:
        const BOX_FIRST_COLUMNS: u32 = 0o111;
        let keep = |only: u32| {
            let claimed_box = (only | only >> 1 | only >> 2) & BOX_FIRST_COLUMNS;
            let cols = only | (!(claimed_box * 0b111) & ROW);
            cols | cols << 9 | cols << 18
        };
        let mut missing = 0;
        let mut changed = 0;
        for digit in 0..9 {
            let s = digit * 3;
            let (a, b, c) = (
                columns(self.cand[s]),
                columns(self.cand[s + 1]),
                columns(self.cand[s + 2]),
            );
            missing |= !(a | b | c) & ROW;
            let new = [
                self.cand[s] & keep(a & !(b | c)),
                self.cand[s + 1] & keep(b & !(a | c)),
                self.cand[s + 2] & keep(c & !(a | b)),
            ];
            for (band, n) in new.into_iter().enumerate() {
                changed |= self.cand[s + band] ^ n;
                self.cand[s + band] = n;
            }
        }
        if missing != 0 {
            return Err(Contradiction);
        }
        Ok(changed != 0)
    }

    /// Horizontal triads: each minirow holds exactly three digits. A minirow that only three
    /// digits can use takes all three (each digit's placements shrink to those through it); a
    /// minirow that three digits must use is closed to the others. Read from the placements, so
    /// it needs every subband up to date (`update` has just run). Returns whether anything
    /// changed.
    fn triads(&mut self) -> Step<bool> {
        let mut changed = 0;
        for band in 0..3 {
            // Bit-sliced counters over the digits, per minirow (shrink layout): how many digits
            // can use it, and how many must, up to four.
            let (mut can1, mut can2, mut can3, mut can4) = (0u32, 0u32, 0u32, 0u32);
            let (mut must1, mut must2, mut must3, mut must4) = (0u32, 0u32, 0u32, 0u32);
            for digit in 0..9 {
                let p = usize::from(self.placements[digit * 3 + band]);
                let can = u32::from(ANY_MINIROWS[p]);
                let must = u32::from(ALL_MINIROWS[p]);
                can4 |= can3 & can;
                can3 |= can2 & can;
                can2 |= can1 & can;
                can1 |= can;
                must4 |= must3 & must;
                must3 |= must2 & must;
                must2 |= must1 & must;
                must1 |= must;
            }
            if can3 != ROW || must4 != 0 {
                return Err(Contradiction);
            }
            // Exactly three can, not all of them must yet; three must, and others can.
            let full = can3 & !can4 & !must3;
            let closed = must3 & can4;
            if full | closed == 0 {
                continue;
            }
            for digit in 0..9 {
                let s = digit * 3 + band;
                let p = usize::from(self.placements[s]);
                let can = u32::from(ANY_MINIROWS[p]);
                let must = u32::from(ALL_MINIROWS[p]);
                // In the row of a full minirow the digit can use, only that minirow is left.
                let taken = (can & full & !must) as usize;
                let mut keep = !MINIROW_ROWS[taken] | EXPAND[taken];
                keep &= !EXPAND[(can & closed & !must) as usize];
                let n = self.cand[s] & keep;
                changed |= self.cand[s] ^ n;
                self.cand[s] = n;
            }
        }
        Ok(changed != 0)
    }

    /// Propagates to a fixpoint: subband updates and naked singles, with `claims` column claims.
    /// With `sparse`, subband updates record their placements, and triads run with the claims:
    /// a search passes the same `sparse` to every state (`Goal::sparse`), so the placements
    /// that triads and `search_placements` read are always current, and dense searches skip
    /// recording them.
    pub fn propagate(&mut self, claims: bool, sparse: bool) -> Step<bool> {
        loop {
            if sparse {
                self.update::<true>()?;
            } else {
                self.update::<false>()?;
            }
            if self.is_solved() {
                return Ok(true);
            }
            let progressed = self.naked_singles()?
                || (claims && ((sparse && self.triads()?) || self.column_claims()?));
            if !progressed {
                return Ok(false);
            }
        }
    }

    /// Searches from a propagated, unsolved state, recording solutions in `goal`.
    pub fn search(&mut self, goal: &mut Goal<'_>) {
        goal.guesses += 1;
        if goal.sparse && goal.guesses >= PLACEMENTS_AFTER_GUESSES && self.search_placements(goal) {
            return;
        }
        // Branch in the band with the most unsolved cells: its guess constrains the most
        // (measured: about 25% fewer guesses on hard sets than taking the first band).
        let mut band = 3;
        let mut most = 0;
        for b in 0..3 {
            let n = cells_in(self.unsolved[b]);
            if self.pairs[b] != 0 && n > most {
                most = n;
                band = b;
            }
        }
        if band < 3 {
            let pairs = self.pairs[band];
            // Branch on a bivalue cell. The digit with more places left in the band goes first
            // (measured: a few % fewer guesses than digit order); it is tried on a copy, the
            // other in place.
            // ...and, once the search is long, in the row with the fewest unsolved cells
            // (measured: 6-10% fewer guesses on the hard sets than the band's first pair, but
            // more on Serg's many-solution set, whose searches are short).
            let open = self.unsolved[band];
            let mut row_pairs = pairs;
            let mut fewest = u8::MAX;
            let rows = if goal.guesses >= ROW_CHOICE_AFTER_GUESSES {
                0..3
            } else {
                0..0
            };
            for r in rows {
                let in_row = pairs & (ROW << (9 * r));
                let n = ROW_COUNT[(open >> (9 * r) & ROW) as usize];
                if in_row != 0 && n < fewest {
                    fewest = n;
                    row_pairs = in_row;
                }
            }
            let bit = row_pairs & row_pairs.wrapping_neg();
            let mut digits = [0usize; 2];
            let mut n = 0;
            for digit in 0..9 {
                if self.cand[digit * 3 + band] & bit != 0 && n < 2 {
                    digits[n] = digit * 3 + band;
                    n += 1;
                }
            }
            let [mut a, mut b] = digits;
            if cells_in(self.cand[b]) > cells_in(self.cand[a]) {
                std::mem::swap(&mut a, &mut b);
            }
            let mut child = *self;
            child.place(a, bit);
            child.explore(goal);
            if !goal.done() {
                self.place(b, bit);
                self.explore(goal);
            }
            return;
        }
        self.search_fewest(goal);
    }

    /// Branches on where one digit goes in one band: the band with the fewest placements over
    /// all digits, and in it the digit with the fewest (at least two), as tdoku's write-up
    /// describes. Each branch keeps one placement; together they cover every solution. Returns
    /// false, having done nothing, if every digit's placement is settled.
    ///
    /// Measured (guesses per puzzle, `README.md`, "Solver"): from the second guess on, with
    /// triads, 39.9 against 52.7 with bivalue cells only on forum_hardest_1905_11+, 7.3 against
    /// 8.7 on magictour. From the first guess, forum_hardest_1106 guesses 19% more; from the
    /// sixth, the other hard sets 4-6% more. Dense puzzles (Serg's set) keep bivalue cells: their
    /// searches are short, and placements made them guess 21% more.
    fn search_placements(&mut self, goal: &mut Goal<'_>) -> bool {
        let mut band = 3;
        let mut fewest = u32::MAX;
        for b in 0..3 {
            let total: u32 = (0..9)
                .map(|d| u32::from(ROW_COUNT[usize::from(self.placements[d * 3 + b])]))
                .sum();
            // 9 means every digit's placement in the band is settled.
            if total > 9 && total < fewest {
                fewest = total;
                band = b;
            }
        }
        if band == 3 {
            return false;
        }
        let mut best = (u8::MAX, 0, 0u8);
        for d in 0..9 {
            let p = self.placements[d * 3 + band];
            let n = ROW_COUNT[usize::from(p)];
            if n >= 2 && n < best.0 {
                best = (n, d * 3 + band, p);
            }
        }
        let (_, s, mut left) = best;
        loop {
            let p = left.trailing_zeros() as usize;
            left &= left - 1;
            if left == 0 {
                // The last placement is tried in place, without a copy.
                self.cand[s] &= PLACEMENT_CELLS[p];
                self.explore(goal);
                return true;
            }
            let mut child = *self;
            child.cand[s] &= PLACEMENT_CELLS[p];
            child.explore(goal);
            if goal.done() {
                return true;
            }
        }
    }

    /// No bivalue cell: branch on the fewest-candidate cell among the first unsolved cell of each
    /// band. A full minimum scan was measured to guess more (121 vs 84 guesses per puzzle on
    /// forum_hardest_1106), as well as costing more.
    fn search_fewest(&mut self, goal: &mut Goal<'_>) {
        let mut best = (10, 0, 0u32);
        for band in 0..3 {
            let cells = self.unsolved[band];
            if cells == 0 {
                continue;
            }
            let bit = cells & cells.wrapping_neg();
            let n = (0..9)
                .filter(|d| self.cand[d * 3 + band] & bit != 0)
                .count();
            if n < best.0 {
                best = (n, band, bit);
            }
        }
        let (_, band, bit) = best;
        for digit in 0..9 {
            let s = digit * 3 + band;
            if self.cand[s] & bit != 0 {
                let mut child = *self;
                child.place(s, bit);
                child.explore(goal);
                if goal.done() {
                    return;
                }
            }
        }
    }

    /// Propagates this state and records it or searches on.
    pub fn explore(&mut self, goal: &mut Goal<'_>) {
        // Column claims pay off on sparse states and in long searches; in short searches on
        // dense puzzles (Serg's set: 34 clues, many solutions) they cost more than the guesses
        // they save. Measured: without them 17-clue and the hard sets lose 5-10%, with them
        // always Serg's set loses 13%. Placements, triads and placement branching are for
        // puzzles that start sparse: on Serg's set they cost 6% more instructions for no fewer
        // guesses.
        // The first state's count is the search's `sparse`, so it is not counted twice.
        goal.nodes += 1;
        let first = goal.guesses == 0;
        if first {
            goal.sparse = self.open_cells() >= CLAIMS_MIN_OPEN;
        }
        let claims = goal.guesses >= CLAIMS_AFTER_GUESSES
            || goal.sparse && (first || self.open_cells() >= CLAIMS_MIN_OPEN);
        match self.propagate(claims, goal.sparse) {
            Err(Contradiction) => {}
            Ok(true) => self.record(goal),
            Ok(false) => self.search(goal),
        }
    }

    /// Records a solved state.
    pub fn record(&self, goal: &mut Goal<'_>) {
        if goal.found == 0 {
            self.write_solution(goal.first);
        }
        goal.found += 1;
    }

    /// Writes the digits of a solved state into `grid`, in place (every cell is written).
    pub fn write_solution(&self, grid: &mut Grid) {
        // Solved, every cell is in exactly one digit's mask, so bit `p` of a cell's value
        // (digit + 1) is set where one of the digits with that bit has the cell.
        let band_planes = |band: usize| {
            let digit = |d: usize| self.cand[d * 3 + band] & BAND;
            [
                digit(0) | digit(2) | digit(4) | digit(6) | digit(8),
                digit(1) | digit(2) | digit(5) | digit(6),
                digit(3) | digit(4) | digit(5) | digit(6),
                digit(7) | digit(8),
            ]
        };
        let bands = [band_planes(0), band_planes(1), band_planes(2)];
        debug_assert!(
            (0..3).all(|band| (0..9)
                .map(|d| cells_in(self.cand[d * 3 + band] & BAND))
                .sum::<u32>()
                == 27
                && bands[band].iter().fold(0, |all, plane| all | plane) == BAND),
            "a solved state has one digit on every cell"
        );
        grid.set_from_planes(std::array::from_fn(|p| {
            u128::from(bands[0][p]) | u128::from(bands[1][p]) << 27 | u128::from(bands[2][p]) << 54
        }));
    }

    /// Candidate digits (bit `d` for digit `d + 1`) of `cell`.
    pub fn candidates(&self, cell: usize) -> u16 {
        let band = cell / 27;
        let bit = 1u32 << (cell % 27);
        let mut mask = 0u16;
        for digit in 0..9 {
            if self.cand[digit * 3 + band] & bit != 0 {
                mask |= 1 << digit;
            }
        }
        mask
    }

    /// True if `cell` is known to be solved.
    pub fn is_cell_solved(&self, cell: usize) -> bool {
        self.unsolved[cell / 27] & (1 << (cell % 27)) == 0
    }

    /// Places `digit` (0-based) on `cell`, which must be one of its candidates.
    pub fn set(&mut self, cell: usize, digit: usize) {
        self.place(digit * 3 + cell / 27, 1 << (cell % 27));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The starting state against the rules: a given keeps its own digit only, a blank every
    /// digit no peer holds, and `Err` exactly when two givens clash.
    #[test]
    fn new_board_holds_the_candidates_the_givens_leave() {
        use crate::grid::{CELLS, CELL_UNITS, UNITS};
        let mut rng = crate::rng::SplitMix64(3);
        let (mut clashing, mut valid) = (0, 0);
        for round in 0..3000 {
            // From nearly empty to full, so both clashes and valid states are common.
            let density = round % 40;
            let mut cells = [0u8; CELLS];
            for cell in &mut cells {
                if rng.next_u64() % 40 < density {
                    *cell = (rng.next_u64() % 9 + 1) as u8;
                }
            }
            let grid = Grid::from_cells(cells).unwrap();
            let board = Board::new(&grid);
            assert_eq!(
                board.is_err(),
                grid.first_clash().is_some(),
                "{}",
                grid.to_line()
            );
            let Ok(board) = board else {
                clashing += 1;
                continue;
            };
            valid += 1;
            for (cell, &value) in cells.iter().enumerate() {
                let expected = match value {
                    0 => CELL_UNITS[cell]
                        .iter()
                        .flat_map(|&u| UNITS[usize::from(u)])
                        .map(|peer| cells[usize::from(peer)])
                        .filter(|&v| v != 0)
                        .fold(0x1ff, |mask, v| mask & !(1u16 << (v - 1))),
                    v => 1 << (v - 1),
                };
                assert_eq!(
                    board.candidates(cell),
                    expected,
                    "cell {cell} of {}",
                    grid.to_line()
                );
            }
        }
        assert!(
            clashing > 300 && valid > 300,
            "{clashing} clashing, {valid} valid"
        );
    }
}
