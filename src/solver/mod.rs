//! The search: first solution, solution count up to a limit, lexicographically smallest solution.
//!
//! Every entry point is allocation-free (`tests/no_alloc.rs`): the search state is a 268-byte
//! `Copy` struct, and the search recurses on the call stack with one copy per guess, at most 108
//! deep (a guess on a cell solves it, one on a placement settles a subband: 81 + 27; about 40
//! KiB). Each call reports its guess count (branch points), the figure tdoku quotes
//! as "guesses per puzzle".

mod board;
mod tables;

use crate::grid::{Grid, CELLS};
use board::{Board, Goal};
/// The number of set bits in a nine-bit mask, by table (the grader counts digits with it).
pub(crate) use tables::ROW_COUNT;

/// Result of [`solve`] and [`lexmin`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Solved {
    /// The solution found, or `None` if the puzzle has none.
    pub solution: Option<Grid>,
    /// Branch points taken (cells where the search had to guess).
    pub guesses: u64,
    /// States the search visited: the root, and one per child of a branch point it tried.
    pub nodes: u64,
}

/// Result of [`count`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    /// Solutions found, at most the limit; equal to the limit means "the limit or more".
    pub solutions: u32,
    /// Branch points taken.
    pub guesses: u64,
    /// States the search visited.
    pub nodes: u64,
}

/// Finds one solution (any), or reports that there is none.
pub fn solve(puzzle: &Grid) -> Solved {
    let mut first = Grid::EMPTY;
    let goal = run(puzzle, 1, &mut first);
    let (found, guesses, nodes) = (goal.found, goal.guesses, goal.nodes);
    Solved {
        solution: (found > 0).then_some(first),
        guesses,
        nodes,
    }
}

/// [`solve`] for the batch path: the solution, if there is one, is written into `solution` (the
/// caller's outcome) instead of being returned, which saves copying the grid twice per record.
/// Returns whether there is one.
pub(crate) fn solve_into(puzzle: &Grid, solution: &mut Grid) -> bool {
    run(puzzle, 1, solution).found > 0
}

/// Counts solutions, stopping at `limit` (`limit` 2 is the uniqueness check). `limit` 0 counts nothing.
pub fn count(puzzle: &Grid, limit: u32) -> Counted {
    if limit == 0 {
        return Counted {
            solutions: 0,
            guesses: 0,
            nodes: 0,
        };
    }
    let mut first = Grid::EMPTY;
    let goal = run(puzzle, limit, &mut first);
    Counted {
        solutions: goal.found,
        guesses: goal.guesses,
        nodes: goal.nodes,
    }
}

/// [`count`] that also writes the first solution found into `first`, when there is one.
pub(crate) fn count_into(puzzle: &Grid, limit: u32, first: &mut Grid) -> u32 {
    run(puzzle, limit, first).found
}

fn run<'a>(puzzle: &Grid, limit: u32, first: &'a mut Grid) -> Goal<'a> {
    let mut goal = Goal::new(limit, first);
    if let Ok(mut board) = Board::new(puzzle) {
        board.explore(&mut goal);
    }
    goal
}

/// Finds the lexicographically smallest solution (row-major, digits ascending).
///
/// Built on the fast search, never on row-major backtracking: a uniqueness check settles proper
/// puzzles at once. Otherwise cells are fixed in row-major order, keeping a *witness* solution
/// that agrees with every cell fixed so far: a cell only needs a search for candidates smaller
/// than the witness's digit, and the first that still has a solution becomes the new witness.
pub fn lexmin(puzzle: &Grid) -> Solved {
    let none = |guesses, nodes| Solved {
        solution: None,
        guesses,
        nodes,
    };
    let Ok(mut board) = Board::new(puzzle) else {
        return none(0, 0);
    };
    let mut witness = Grid::EMPTY;
    let mut goal = Goal::new(2, &mut witness);
    board.clone().explore(&mut goal);
    let (found, mut guesses, mut nodes) = (goal.found, goal.guesses, goal.nodes);
    if found == 0 {
        return none(guesses, nodes);
    }
    if found == 2 {
        // A solution exists, so propagating the givens cannot fail.
        let _ = board.propagate(true, true);
        for cell in 0..CELLS {
            if board.is_cell_solved(cell) {
                continue;
            }
            let mut chosen = usize::from(witness.cells()[cell] - 1);
            let mut smaller = board.candidates(cell) & ((1u16 << chosen) - 1);
            while smaller != 0 {
                let digit = smaller.trailing_zeros() as usize;
                smaller &= smaller - 1;
                let mut trial = board;
                trial.set(cell, digit);
                let mut probe = Goal::new(1, &mut witness);
                trial.explore(&mut probe);
                guesses += probe.guesses;
                nodes += probe.nodes;
                // A probe that finds nothing writes nothing: the witness stands.
                if probe.found > 0 {
                    chosen = digit;
                    break;
                }
            }
            board.set(cell, chosen);
            if board.propagate(true, true) != Ok(false) {
                // Solved (the witness is the only completion left) or, impossibly, stuck.
                break;
            }
        }
    }
    Solved {
        solution: Some(witness),
        guesses,
        nodes,
    }
}
