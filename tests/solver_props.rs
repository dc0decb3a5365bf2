//! Property tests against an independent, deliberately simple reference solver (no shared code):
//! random puzzles made by blanking cells of random solved grids, some with a clashing digit.

mod common;

use common::reference;
use proptest::prelude::*;
use sudoku_batch::Grid;

/// A random solved grid with `blanks` cells (chosen by `order_seed`) emptied, and optionally
/// one cell overwritten, which may make the puzzle unsolvable.
fn puzzle_from(
    seed: u64,
    order_seed: u64,
    blanks: usize,
    clash: Option<(usize, u8)>,
) -> reference::Cells {
    let mut cells = reference::random_full(seed);
    let mut order: Vec<usize> = (0..81).collect();
    let mut state = order_seed | 1;
    for i in (1..81).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        order.swap(i, ((state >> 33) % (i as u64 + 1)) as usize);
    }
    for &b in &order[..blanks] {
        cells[b] = 0;
    }
    if let Some((cell, digit)) = clash {
        cells[cell] = digit;
    }
    cells
}

/// Checks all three entry points on one puzzle against the reference.
fn check_against_reference(cells: &reference::Cells) -> Result<usize, TestCaseError> {
    let puzzle = Grid::from_cells(*cells).unwrap();
    let expected = reference::solutions(cells, 10);

    let counted = sudoku_batch::count(&puzzle, 10);
    prop_assert_eq!(
        counted.solutions as usize,
        expected.len(),
        "count of {}",
        puzzle
    );

    let solved = sudoku_batch::solve(&puzzle);
    prop_assert_eq!(solved.solution.is_some(), !expected.is_empty());
    // Nodes are the states visited: the root (unless the givens clash), and at least one and
    // at most nine children per branch point.
    if puzzle.is_consistent() {
        for (guesses, nodes) in [
            (solved.guesses, solved.nodes),
            (counted.guesses, counted.nodes),
        ] {
            prop_assert!(
                (1 + guesses..=1 + 9 * guesses).contains(&nodes),
                "{} nodes for {} guesses on {}",
                nodes,
                guesses,
                puzzle
            );
        }
    }
    if let Some(s) = solved.solution {
        prop_assert!(s.solves(&puzzle), "{} does not solve {}", s, puzzle);
    }

    let smallest = sudoku_batch::lexmin(&puzzle).solution;
    if expected.len() < 10 {
        // Every solution is known: the smallest must match exactly.
        let want = expected.iter().min().map(|c| Grid::from_cells(*c).unwrap());
        prop_assert_eq!(smallest, want, "lexmin of {}", puzzle);
    } else {
        let s = smallest.expect("has solutions");
        prop_assert!(s.solves(&puzzle));
        prop_assert!(
            expected.iter().all(|e| s.cells() <= e),
            "lexmin of {} not minimal",
            puzzle
        );
    }
    Ok(expected.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn agrees_with_reference(
        seed in any::<u64>(),
        order_seed in any::<u64>(),
        blanks in 0usize..=64,
        clash in proptest::option::weighted(0.2, (0usize..81, 1u8..=9)),
    ) {
        check_against_reference(&puzzle_from(seed, order_seed, blanks, clash))?;
    }
}

/// The generator above really reaches every case: no solution, one, several, and the limit.
#[test]
fn reference_cases_cover_every_solution_count() {
    let mut seen = [0usize; 4];
    for i in 0..300u64 {
        let clash = (i % 5 == 0).then_some(((i * 7 % 81) as usize, (i % 9) as u8 + 1));
        let cells = puzzle_from(i, i * 31 + 1, (i % 65) as usize, clash);
        let n = check_against_reference(&cells).unwrap();
        seen[match n {
            0 => 0,
            1 => 1,
            2..=9 => 2,
            _ => 3,
        }] += 1;
    }
    assert!(
        seen.iter().all(|&n| n >= 5),
        "solution-count classes seen: {seen:?}"
    );
}

#[test]
fn empty_grid_lexmin_is_the_canonical_first_grid() {
    let s = sudoku_batch::lexmin(&Grid::EMPTY).solution.unwrap();
    assert_eq!(
        s.to_line(),
        "123456789456789123789123456214365897365897214897214365531642978642978531978531642"
    );
    assert!(sudoku_batch::solve(&Grid::EMPTY)
        .solution
        .unwrap()
        .is_complete());
    assert_eq!(sudoku_batch::count(&Grid::EMPTY, 2).solutions, 2);
}

#[test]
fn complete_grid_is_its_own_solution_and_clashes_have_none() {
    let full = Grid::from_cells(reference::random_full(7)).unwrap();
    assert_eq!(sudoku_batch::solve(&full).solution, Some(full));
    assert_eq!(sudoku_batch::count(&full, 5).solutions, 1);
    assert_eq!(sudoku_batch::lexmin(&full).solution, Some(full));

    let mut cells = [0u8; 81];
    cells[0] = 4;
    cells[80] = 4;
    cells[8] = 4; // same row as cell 0
    let clash = Grid::from_cells(cells).unwrap();
    assert_eq!(sudoku_batch::solve(&clash).solution, None);
    assert_eq!(sudoku_batch::count(&clash, 2).solutions, 0);
    assert_eq!(sudoku_batch::lexmin(&clash).solution, None);
    assert_eq!(sudoku_batch::count(&full, 0).solutions, 0);
}

/// Long searches: exact solution counts (no limit) on sparse puzzles with fewer than 2,000
/// solutions, so the search runs well past the guess counts where it switches to placement
/// branching and turns on triads and column claims. The branches must partition the solutions
/// exactly: a lost or a doubled solution changes the count. Limits 2 and 300 are checked too.
#[test]
fn long_searches_count_exactly() {
    const CAP: usize = 2000;
    let (mut exact, mut long) = (0, 0);
    for i in 0..80u64 {
        let cells = puzzle_from(5000 + i, i * 13 + 7, 50 + (i % 8) as usize, None);
        let expected = reference::solutions(&cells, CAP).len();
        if expected >= CAP {
            continue;
        }
        let puzzle = Grid::from_cells(cells).unwrap();
        let counted = sudoku_batch::count(&puzzle, u32::MAX);
        assert_eq!(counted.solutions as usize, expected, "count of {puzzle}");
        for limit in [2, 300] {
            let n = sudoku_batch::count(&puzzle, limit).solutions as usize;
            assert_eq!(
                n,
                expected.min(limit as usize),
                "count of {puzzle}, limit {limit}"
            );
        }
        exact += 1;
        long += usize::from(counted.guesses >= 50);
    }
    assert!(
        exact >= 30 && long >= 10,
        "{exact} puzzles counted exactly, {long} of them with 50 guesses or more"
    );
}
