//! A difficulty figure for curating datasets.
//!
//! The rating of a puzzle is the mean number of guesses (branch points) the engine's search takes
//! to find its first solution, over `samples` random isomorphs of the puzzle. Averaging over
//! isomorphs removes the luck of one cell order, which otherwise swings a single search's count
//! by a factor of several on hard puzzles. The isomorphs are drawn from a generator seeded by the
//! puzzle's canonical form and the run's seed and applied to the canonical form, so:
//!
//! - the figure is a function of the puzzle's equivalence class and the seed alone: the same at
//!   any thread count, on any machine, and for every isomorph of a puzzle;
//! - a different seed gives an independent estimate of the same quantity.
//!
//! [`Rating::singles`] says whether naked and hidden singles alone, applied from the givens,
//! solve the puzzle (the "easy" class of most public sets; such puzzles rate 0.00).
//!
//! The figure counts the engine's own guesses, so work on the search can change it. It carries
//! [`RATE_VERSION`], which changes exactly when a figure changes: `tests/rating_pins.rs` pins the
//! ratings of a fixed sample under each version and fails when they move without a new version
//! (or when a new version gives the same figures as an earlier one).

use super::canon::canonical;
use super::symmetry::Transform;
use crate::grid::{Grid, CELLS, UNITS};
use crate::rng::SplitMix64;
use crate::solver;

/// The version of the rating figures: ratings made under the same version are comparable; a
/// release whose search changes any figure carries a new one. Version 1 is the search with
/// placement branching on sparse puzzles and horizontal triads.
pub const RATE_VERSION: u32 = 1;

/// The difficulty figure of one puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rating {
    /// Guesses summed over all samples.
    pub guesses: u64,
    /// Isomorphs searched (at least 1).
    pub samples: u32,
    /// Whether naked and hidden singles alone solve the puzzle.
    pub singles: bool,
}

impl Rating {
    /// Mean guesses per search: the figure.
    pub fn mean_guesses(&self) -> f64 {
        self.guesses as f64 / f64::from(self.samples.max(1))
    }
}

/// Rates `puzzle`: the mean number of guesses (branch points) the engine's search takes to find
/// a first solution, over `samples` random isomorphs (0 is taken as 1) drawn from a generator
/// seeded by the puzzle's canonical form and `seed`. Averaging over isomorphs removes the luck of
/// one cell order; seeding by the canonical form makes the figure the same for every isomorph
/// of the puzzle, at any thread count, on any machine. `None` when it has no solution.
pub fn rate(puzzle: &Grid, samples: u32, seed: u64) -> Option<Rating> {
    let samples = samples.max(1);
    let base = canonical(puzzle);
    let class_seed = mix(seed ^ fnv1a(base.cells()));
    let mut guesses = 0;
    for k in 0..samples {
        let isomorph = Transform::random(mix(class_seed.wrapping_add(u64::from(k)))).apply(&base);
        let solved = solver::solve(&isomorph);
        solved.solution?;
        guesses += solved.guesses;
    }
    Some(Rating {
        guesses,
        samples,
        singles: solved_by_singles(puzzle),
    })
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One step of the crate's SplitMix64 from state `z`: spreads nearby seeds over the whole range.
fn mix(z: u64) -> u64 {
    SplitMix64(z).next_u64()
}

/// Whether naked singles (a cell with one candidate) and hidden singles (a digit with one place
/// in a unit), applied until nothing changes, fill the grid. Deliberately plain: it is a
/// definition, not the solver.
pub fn solved_by_singles(puzzle: &Grid) -> bool {
    let mut cells = *puzzle.cells();
    loop {
        let mut placed = false;
        // Candidates from scratch each pass: simple and obviously right.
        let mut candidates = [0u16; CELLS];
        for (cell, c) in candidates.iter_mut().enumerate() {
            if cells[cell] != 0 {
                continue;
            }
            let (r, col) = (cell / 9, cell % 9);
            let b = r / 3 * 3 + col / 3;
            let mut used = 0u16;
            for unit in [&UNITS[r], &UNITS[9 + col], &UNITS[18 + b]] {
                for &other in unit {
                    let v = cells[usize::from(other)];
                    if v != 0 {
                        used |= 1 << (v - 1);
                    }
                }
            }
            *c = !used & 0x1ff;
            if *c == 0 {
                return false;
            }
        }
        for cell in 0..CELLS {
            if cells[cell] == 0 && candidates[cell].count_ones() == 1 {
                cells[cell] = candidates[cell].trailing_zeros() as u8 + 1;
                placed = true;
            }
        }
        if !placed {
            for unit in &UNITS {
                for digit in 0..9u8 {
                    if unit.iter().any(|&c| cells[usize::from(c)] == digit + 1) {
                        continue;
                    }
                    let mut places = unit
                        .iter()
                        .filter(|&&c| candidates[usize::from(c)] & (1 << digit) != 0);
                    if let (Some(&only), None) = (places.next(), places.next()) {
                        if cells[usize::from(only)] == 0 {
                            cells[usize::from(only)] = digit + 1;
                            placed = true;
                        }
                    }
                }
            }
        }
        if !placed {
            return cells.iter().all(|&v| v != 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EASY: &[u8] =
        b"530070000600195000098000060800060003400803001700020006060000280000419005000080079";
    // Needs more than singles (a well-known hard puzzle, "AI Escargot").
    const HARD: &[u8] =
        b"100007090030020008009600500005300900010080002600004000300000010040000007007000300";

    #[test]
    fn singles_solve_easy_but_not_hard() {
        assert!(solved_by_singles(&Grid::parse(EASY).unwrap()));
        assert!(!solved_by_singles(&Grid::parse(HARD).unwrap()));
        assert!(!solved_by_singles(&Grid::EMPTY));
    }

    #[test]
    fn rating_is_a_class_invariant_and_seeded() {
        let hard = Grid::parse(HARD).unwrap();
        let a = rate(&hard, 8, 1).unwrap();
        assert_eq!(a, rate(&hard, 8, 1).unwrap());
        let moved = Transform::random(77).apply(&hard);
        assert_eq!(a, rate(&moved, 8, 1).unwrap(), "isomorphs rate alike");
        assert!(a.mean_guesses() > 0.0 && !a.singles);
        let easy = rate(&Grid::parse(EASY).unwrap(), 4, 1).unwrap();
        assert_eq!((easy.guesses, easy.singles), (0, true));
    }

    #[test]
    fn unsolvable_has_no_rating() {
        let mut cells = [0u8; CELLS];
        // Row 1 leaves only 9 for its last cell, but column 9 already has a 9.
        cells[..8].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        cells[80] = 9;
        assert_eq!(rate(&Grid::from_cells(cells).unwrap(), 2, 0), None);
    }
}
