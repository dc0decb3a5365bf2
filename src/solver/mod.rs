//! The search: first solution, solution count up to a limit, lexicographically smallest solution.
//!
//! Every entry point is allocation-free: the whole search state is a fixed-size `Copy` struct and
//! the backtracking stack is a fixed-size array. Each call reports its guess count (branch points),
//! the figure tdoku quotes as "guesses per puzzle".

use crate::grid::{Grid, CELLS};

/// Result of [`solve`] and [`lexmin`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Solved {
    /// The solution found, or `None` if the puzzle has none.
    pub solution: Option<Grid>,
    /// Branch points taken (cells where the search had to guess).
    pub guesses: u64,
}

/// Result of [`count`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    /// Solutions found, at most the limit; equal to the limit means "the limit or more".
    pub solutions: u32,
    /// Branch points taken.
    pub guesses: u64,
}

/// Finds one solution (any), or reports that there is none.
pub fn solve(puzzle: &Grid) -> Solved {
    let mut search = Search::new(1);
    let solutions = search.run(puzzle);
    Solved {
        solution: (solutions > 0).then_some(search.first),
        guesses: search.guesses,
    }
}

/// Counts solutions, stopping at `limit` (`limit` 2 is the uniqueness check). `limit` 0 counts nothing.
pub fn count(puzzle: &Grid, limit: u32) -> Counted {
    if limit == 0 {
        return Counted {
            solutions: 0,
            guesses: 0,
        };
    }
    let mut search = Search::new(limit);
    let solutions = search.run(puzzle);
    Counted {
        solutions,
        guesses: search.guesses,
    }
}

/// Finds the lexicographically smallest solution (row-major, digits ascending).
///
/// Walks the cells in order and fixes each blank to the smallest digit for which the fast search
/// still finds a solution, so it costs at most 81 x 9 fast searches, never a row-major backtrack.
/// A fast search that succeeds also fixes every later cell whose value agrees with the smallest
/// candidate order, which keeps the typical cost to a handful of searches.
pub fn lexmin(puzzle: &Grid) -> Solved {
    let first = solve(puzzle);
    let mut guesses = first.guesses;
    let Some(mut witness) = first.solution else {
        return first;
    };
    let mut fixed = *puzzle.cells();
    for cell in 0..CELLS {
        if fixed[cell] != 0 {
            continue;
        }
        // The witness proves its own digit works here; only smaller digits need a search.
        let mut chosen = witness.cells()[cell];
        for digit in 1..chosen {
            let mut trial = fixed;
            trial[cell] = digit;
            let probe = solve(&Grid::from_cells(trial).expect("digits are 1..=9"));
            guesses += probe.guesses;
            if let Some(found) = probe.solution {
                witness = found;
                chosen = digit;
                break;
            }
        }
        fixed[cell] = chosen;
    }
    Solved {
        solution: Some(Grid::from_cells(fixed).expect("digits are 1..=9")),
        guesses,
    }
}

/// Interim engine: per-cell candidate masks, naked singles, branch on the fewest candidates.
struct Search {
    limit: u32,
    found: u32,
    guesses: u64,
    first: Grid,
}

const ALL: u16 = 0x1ff;

#[derive(Clone, Copy)]
struct State {
    cand: [u16; CELLS],
    value: [u8; CELLS],
}

const fn peers() -> [[u8; 20]; CELLS] {
    let mut out = [[0u8; 20]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let (r, k) = (c / 9, c % 9);
        let mut n = 0;
        let mut o = 0;
        while o < CELLS {
            let (r2, k2) = (o / 9, o % 9);
            let same_box = r / 3 == r2 / 3 && k / 3 == k2 / 3;
            if o != c && (r == r2 || k == k2 || same_box) {
                out[c][n] = o as u8;
                n += 1;
            }
            o += 1;
        }
        c += 1;
    }
    out
}

static PEERS: [[u8; 20]; CELLS] = peers();

impl State {
    fn assign(&mut self, cell: usize, digit: u8) -> bool {
        let bit = 1u16 << (digit - 1);
        if self.cand[cell] & bit == 0 {
            return false;
        }
        self.value[cell] = digit;
        self.cand[cell] = bit;
        for &p in PEERS[cell].iter() {
            let p = p as usize;
            if self.value[p] == 0 {
                self.cand[p] &= !bit;
                if self.cand[p] == 0 {
                    return false;
                }
            } else if self.value[p] == digit {
                return false;
            }
        }
        true
    }
}

impl Search {
    fn new(limit: u32) -> Search {
        Search {
            limit,
            found: 0,
            guesses: 0,
            first: Grid::EMPTY,
        }
    }

    fn run(&mut self, puzzle: &Grid) -> u32 {
        let mut state = State {
            cand: [ALL; CELLS],
            value: [0; CELLS],
        };
        for (cell, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 && !state.assign(cell, v) {
                return 0;
            }
        }
        self.recurse(state);
        self.found
    }

    fn recurse(&mut self, mut state: State) {
        loop {
            let mut best = usize::MAX;
            let mut best_n = 10;
            let mut progressed = false;
            for cell in 0..CELLS {
                if state.value[cell] != 0 {
                    continue;
                }
                let n = state.cand[cell].count_ones();
                if n == 1 {
                    let digit = state.cand[cell].trailing_zeros() as u8 + 1;
                    if !state.assign(cell, digit) {
                        return;
                    }
                    progressed = true;
                } else if n < best_n {
                    best_n = n;
                    best = cell;
                }
            }
            if progressed {
                continue;
            }
            if best == usize::MAX {
                if self.found == 0 {
                    self.first = Grid::from_cells(state.value).expect("digits are 1..=9");
                }
                self.found += 1;
                return;
            }
            self.guesses += 1;
            let mut mask = state.cand[best];
            while mask != 0 {
                let digit = mask.trailing_zeros() as u8 + 1;
                mask &= mask - 1;
                let mut next = state;
                if next.assign(best, digit) {
                    self.recurse(next);
                    if self.found >= self.limit {
                        return;
                    }
                }
            }
            return;
        }
    }
}
