#![no_main]
//! The solver on arbitrary givens: every answer checked against the count API and the rules.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::{solver, Grid};

fuzz_target!(|data: [u8; 81]| {
    // Mostly blanks, as real puzzles are: a byte above 150 becomes a given.
    let cells = data.map(|b| if b > 150 { b % 9 + 1 } else { 0 });
    let puzzle = Grid::from_cells(cells).unwrap();
    let first = solver::solve(&puzzle);
    let count = solver::count(&puzzle, 3);
    assert_eq!(first.solution.is_some(), count.solutions > 0);
    if let Some(s) = first.solution {
        assert!(s.solves(&puzzle));
        let smallest = solver::lexmin(&puzzle)
            .solution
            .expect("lexmin finds one too");
        assert!(smallest.solves(&puzzle));
        assert!(smallest.cells() <= s.cells(), "lexmin is the smallest");
        if count.solutions == 1 {
            assert_eq!(smallest, s);
        }
    } else {
        assert!(solver::lexmin(&puzzle).solution.is_none());
    }
});
