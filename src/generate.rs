//! Reproducible puzzle generation: every puzzle has exactly one solution.
//!
//! Puzzle `i` of a run depends only on `(seed, i)` and the options: its random stream is derived
//! from the seed and the index, never from a shared generator, so the output is the same at any
//! thread count. Puzzles are made in parallel in fixed-size chunks and written in index order, so
//! memory stays bounded however many are asked for.
//!
//! Each puzzle starts from a random complete grid (randomized backtracking fill), then givens are
//! removed in a random order; a removal is kept only when the puzzle still has exactly one
//! solution. The uniqueness test is a property of the puzzle, not of the solver, so a faster or
//! different solver behind [`crate::count`] produces byte-identical files.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::batch::{finish_output, open_output, write_error, BatchError, Output};
use crate::dataset::rate::rate;
use crate::engine::Engine;
use crate::grid::{Grid, CELLS, UNITS};
use crate::observe::{Observer, Progress, Work};
use crate::rng::{mix64, SplitMix64};
use crate::solver;
use crate::task::{Outcome, TaskOptions};

/// How givens are removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Remove a given only when its cell is then a naked or hidden single of the remaining givens.
    /// Unique by construction and solvable by singles alone (like the popular Kaggle sets), and cheap.
    Easy,
    /// Remove givens while the solver's count confirms uniqueness, down to the clue target.
    Unique,
    /// Try to remove every given once: the result is minimal (no given can be removed).
    Minimal,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    /// `easy`, `unique` or `minimal`.
    fn from_str(name: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| format!("unknown mode {name:?}; expected easy, unique or minimal"))
    }
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 3] = [Mode::Easy, Mode::Unique, Mode::Minimal];

    /// Its name: `easy`, `unique` or `minimal`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Easy => "easy",
            Mode::Unique => "unique",
            Mode::Minimal => "minimal",
        }
    }

    /// The clue target used when none is given (`None`: remove as many as possible).
    pub fn default_clues(self) -> Option<usize> {
        match self {
            Mode::Easy => Some(36),
            Mode::Unique => Some(26),
            Mode::Minimal => None,
        }
    }
}

/// What to generate: [`GenerateConfig::new`] and the setters.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GenerateConfig {
    /// Number of puzzles.
    pub count: u64,
    /// Seed: the same seed and options give the same output.
    pub seed: u64,
    /// Removal strategy.
    pub mode: Mode,
    /// Stop removing at this many givens (ignored by [`Mode::Minimal`]).
    pub clues: Option<usize>,
    /// Worker threads; `None` uses every core. Does not change the output.
    pub threads: Option<usize>,
    /// Also write each puzzle's solution.
    pub with_solution: bool,
    /// Also write each puzzle's rating: the figure `rate` gives with its default options.
    pub rating: bool,
    /// One puzzle per line (`puzzle[,solution][,rating]`), or CSV with a header
    /// (`question[,answer][,rating]`).
    pub csv: bool,
}

impl GenerateConfig {
    /// `count` puzzles of [`Mode::Easy`] from seed 1, on every core.
    pub fn new(count: u64) -> GenerateConfig {
        GenerateConfig {
            count,
            seed: 1,
            mode: Mode::Easy,
            clues: None,
            threads: None,
            with_solution: false,
            rating: false,
            csv: false,
        }
    }
    /// Also writes each puzzle's solution.
    pub fn with_solution(mut self, on: bool) -> Self {
        self.with_solution = on;
        self
    }
    /// Also writes each puzzle's rating (as `rate` with its default options).
    pub fn rating(mut self, on: bool) -> Self {
        self.rating = on;
        self
    }
    /// Writes CSV with a header instead of lines.
    pub fn csv(mut self, on: bool) -> Self {
        self.csv = on;
        self
    }
    /// The seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// The removal strategy.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
    /// The clue target (`None`: the mode's default).
    pub fn clues(mut self, clues: Option<usize>) -> Self {
        self.clues = clues;
        self
    }
    /// Worker threads (`None`: every core).
    pub fn threads(mut self, threads: Option<usize>) -> Self {
        self.threads = threads;
        self
    }
}

/// Totals of a run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Summary {
    /// Puzzles written.
    pub puzzles: u64,
    /// Fewest givens of any puzzle.
    pub min_clues: usize,
    /// Most givens of any puzzle.
    pub max_clues: usize,
    /// Sum of givens over all puzzles (for the mean).
    pub total_clues: u64,
    /// Puzzles that did not reach the clue target within [`ATTEMPTS`] grids.
    pub missed_target: u64,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
}

/// Fresh grids tried per puzzle to reach a clue target; the puzzle with the fewest givens is kept
/// when none reaches it.
pub const ATTEMPTS: usize = 16;

/// Puzzles made per parallel chunk before they are written.
const CHUNK: u64 = 1 << 12;

/// Generates `config.count` puzzles into `output`, one 81-character line each, `.` for blanks,
/// in index order. A file output is written under a temporary name and renamed into place only
/// when complete. Progress (puzzles written) goes to `observer` after each chunk, which may stop
/// the run.
pub fn generate(
    config: &GenerateConfig,
    output: Output<'_>,
    observer: &mut dyn Observer,
) -> Result<Summary, BatchError> {
    let (mut sink, name) = open_output(output)?;
    let engine = Engine::new(config.threads.unwrap_or(0))?;
    observer.start(Work::Records(config.count), None);
    let mut out = io::BufWriter::new(&mut sink);
    let summary = write_puzzles(config, &engine, &mut out, observer)
        .and_then(|summary| out.flush().map(|()| summary))
        .map_err(|e| write_error(&name, e))?;
    drop(out);
    let Some(summary) = summary else {
        return Err(BatchError::Stopped);
    };
    finish_output(sink, &name)?;
    Ok(summary)
}

/// The generation loop: the summary, or `None` when the observer stopped it.
fn write_puzzles(
    config: &GenerateConfig,
    engine: &Engine,
    out: &mut dyn Write,
    observer: &mut dyn Observer,
) -> io::Result<Option<Summary>> {
    let start = Instant::now();
    let target = match config.mode {
        Mode::Minimal => None,
        mode => config.clues.or(mode.default_clues()),
    };
    let mut summary = Summary {
        puzzles: 0,
        min_clues: usize::MAX,
        max_clues: 0,
        total_clues: 0,
        missed_target: 0,
        elapsed: Duration::ZERO,
    };
    let mut buf = Vec::with_capacity(CHUNK as usize * (CELLS + 1));
    if config.csv {
        buf.extend_from_slice(b"question");
        if config.with_solution {
            buf.extend_from_slice(b",answer");
        }
        if config.rating {
            buf.extend_from_slice(b",rating");
        }
        buf.push(b'\n');
    }
    let rate_options = TaskOptions::default();
    let mut first = 0;
    while first < config.count {
        let last = config.count.min(first + CHUNK);
        // Each puzzle with its extra fields (`,solution`, `,rating`), made on the workers.
        let chunk: Vec<(Grid, Vec<u8>)> = engine.install(|| {
            (first..last)
                .into_par_iter()
                .map(|i| {
                    let g = puzzle(config.seed, i, config.mode, target);
                    let mut extra = Vec::new();
                    if config.with_solution {
                        // Unique by construction: the solver finds the grid it was cut from.
                        let solution = solver::solve(&g)
                            .solution
                            .expect("a generated puzzle has a solution");
                        extra.push(b',');
                        extra.extend_from_slice(solution.to_line().as_bytes());
                    }
                    if config.rating {
                        let rated = rate(&g, rate_options.samples, rate_options.seed)
                            .expect("a generated puzzle has a solution");
                        extra.push(b',');
                        Outcome::Rated(rated).write_value(&mut extra);
                    }
                    (g, extra)
                })
                .collect()
        });
        for (g, extra) in &chunk {
            let clues = g.givens();
            summary.min_clues = summary.min_clues.min(clues);
            summary.max_clues = summary.max_clues.max(clues);
            summary.total_clues += clues as u64;
            if target.is_some_and(|t| clues > t) {
                summary.missed_target += 1;
            }
            buf.extend(
                g.cells()
                    .iter()
                    .map(|&v| if v == 0 { b'.' } else { b'0' + v }),
            );
            buf.extend_from_slice(extra);
            buf.push(b'\n');
        }
        out.write_all(&buf)?;
        buf.clear();
        summary.puzzles += chunk.len() as u64;
        observer.progress(Progress::new(0, summary.puzzles));
        first = last;
        if observer.should_stop() {
            return Ok(None);
        }
    }
    if summary.puzzles == 0 {
        summary.min_clues = 0;
        // A CSV of no puzzles is its header alone, as the batch commands write one.
        out.write_all(&buf)?;
    }
    summary.elapsed = start.elapsed();
    Ok(Some(summary))
}

/// Puzzle number `index` of the run with `seed`: a pure function of its arguments.
///
/// `target` is the number of givens at which removal stops (`None`: remove all it can); it is
/// ignored by [`Mode::Minimal`].
pub fn puzzle(seed: u64, index: u64, mode: Mode, target: Option<usize>) -> Grid {
    let mut rng = Rng::for_puzzle(seed, index);
    let target = if mode == Mode::Minimal { None } else { target };
    let attempts = if target.is_some() { ATTEMPTS } else { 1 };
    let mut best: Option<Givens> = None;
    for _ in 0..attempts {
        let mut g = Givens::full(&random_solution(&mut rng));
        g.reduce(&mut rng, mode, target.unwrap_or(0));
        if target.is_none_or(|t| g.count <= t) {
            best = Some(g);
            break;
        }
        if best.as_ref().is_none_or(|b| g.count < b.count) {
            best = Some(g);
        }
    }
    Grid::from_cells(best.expect("at least one attempt").cells).expect("digits are 1..=9")
}

/// The crate's SplitMix64 stream, with the draws generation needs.
struct Rng(SplitMix64);

impl Rng {
    /// Independent stream for one puzzle: the state is a hash of (seed, index), so neighbouring
    /// indices do not share overlapping streams.
    fn for_puzzle(seed: u64, index: u64) -> Rng {
        Rng(SplitMix64(mix64(
            mix64(seed ^ 0x5344_4B42_4154_4348) ^ index,
        )))
    }

    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform-enough value in `0..n` for small `n` (multiply-shift; bias below 2^-32).
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

const fn box_of(cell: usize) -> usize {
    (cell / 27) * 3 + (cell % 9) / 3
}

/// Placed digits with row/column/box masks (bit `d - 1` for digit `d`).
#[derive(Clone)]
struct Givens {
    cells: [u8; CELLS],
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
    count: usize,
}

impl Givens {
    fn empty() -> Givens {
        Givens {
            cells: [0; CELLS],
            rows: [0; 9],
            cols: [0; 9],
            boxes: [0; 9],
            count: 0,
        }
    }

    fn full(solution: &[u8; CELLS]) -> Givens {
        let mut g = Givens::empty();
        for (cell, &d) in solution.iter().enumerate() {
            g.place(cell, d);
        }
        g
    }

    fn used(&self, cell: usize) -> u16 {
        self.rows[cell / 9] | self.cols[cell % 9] | self.boxes[box_of(cell)]
    }

    fn place(&mut self, cell: usize, digit: u8) {
        let bit = 1 << (digit - 1);
        self.cells[cell] = digit;
        self.rows[cell / 9] |= bit;
        self.cols[cell % 9] |= bit;
        self.boxes[box_of(cell)] |= bit;
        self.count += 1;
    }

    fn clear(&mut self, cell: usize) -> u8 {
        let digit = self.cells[cell];
        let bit = !(1 << (digit - 1));
        self.cells[cell] = 0;
        self.rows[cell / 9] &= bit;
        self.cols[cell % 9] &= bit;
        self.boxes[box_of(cell)] &= bit;
        self.count -= 1;
        digit
    }

    /// True if blank `cell` must hold `digit` by a naked single (no other digit fits) or a hidden
    /// single (no other blank of one of its units can take `digit`), given the placed digits.
    fn forced(&self, cell: usize, digit: u8) -> bool {
        let bit = 1 << (digit - 1);
        if 0x1ff & !self.used(cell) == bit {
            return true;
        }
        let (r, c, b) = (cell / 9, cell % 9, box_of(cell));
        [r, 9 + c, 18 + b].iter().any(|&unit| {
            UNITS[unit].iter().all(|&other| {
                let other = other as usize;
                other == cell || self.cells[other] != 0 || self.used(other) & bit != 0
            })
        })
    }

    /// Removes givens in a random order down to `target`, keeping each removal only when the
    /// puzzle stays uniquely solvable by the rule of `mode`.
    fn reduce(&mut self, rng: &mut Rng, mode: Mode, target: usize) {
        let mut order: [u8; CELLS] = std::array::from_fn(|i| i as u8);
        rng.shuffle(&mut order);
        for &cell in &order {
            if self.count <= target {
                break;
            }
            let cell = cell as usize;
            let digit = self.clear(cell);
            let keep = self.forced(cell, digit) || (mode != Mode::Easy && self.unique_by_count());
            if !keep {
                self.place(cell, digit);
            }
        }
    }

    fn unique_by_count(&self) -> bool {
        let grid = Grid::from_cells(self.cells).expect("digits are 1..=9");
        solver::count(&grid, 2).solutions == 1
    }
}

/// A random solution grid drawn from `seed`, for other modules' tests.
#[cfg(test)]
pub(crate) fn random_solution_from(seed: u64) -> [u8; CELLS] {
    random_solution(&mut Rng::for_puzzle(seed, 0))
}

/// A randomized search for a complete grid: fill the most constrained blank cell, trying
/// its candidates in random order, backtracking on a dead end.
fn random_solution(rng: &mut Rng) -> [u8; CELLS] {
    fn fill(g: &mut Givens, rng: &mut Rng) -> bool {
        let mut best = None;
        let mut best_n = 10;
        for cell in 0..CELLS {
            if g.cells[cell] == 0 {
                let n = (0x1ff & !g.used(cell)).count_ones();
                if n < best_n {
                    best_n = n;
                    best = Some(cell);
                    if n <= 1 {
                        break;
                    }
                }
            }
        }
        let Some(cell) = best else {
            return true;
        };
        let free = 0x1ff & !g.used(cell);
        let mut digits = [0u8; 9];
        let mut n = 0;
        for d in 1..=9u8 {
            if free & (1 << (d - 1)) != 0 {
                digits[n] = d;
                n += 1;
            }
        }
        rng.shuffle(&mut digits[..n]);
        for &d in &digits[..n] {
            g.place(cell, d);
            if fill(g, rng) {
                return true;
            }
            g.clear(cell);
        }
        false
    }
    let mut g = Givens::empty();
    assert!(fill(&mut g, rng), "an empty grid always has a solution");
    g.cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_solutions_are_complete_and_differ() {
        let mut rng = Rng::for_puzzle(1, 0);
        let a = Grid::from_cells(random_solution(&mut rng)).unwrap();
        let b = Grid::from_cells(random_solution(&mut rng)).unwrap();
        assert!(a.is_complete() && b.is_complete());
        assert_ne!(a, b);
    }

    #[test]
    fn streams_differ_by_seed_and_index() {
        let a = Rng::for_puzzle(1, 0).next();
        assert_ne!(a, Rng::for_puzzle(1, 1).next());
        assert_ne!(a, Rng::for_puzzle(2, 0).next());
    }
}
