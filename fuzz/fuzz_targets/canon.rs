#![no_main]
//! The canonical form on any grid (valid or not, sparse or full): the same for a random
//! transform of the grid, unchanged when applied again, and with the grid's count of each value.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::canonical;
use sudoku_batch::Grid;
use sudoku_batch::Transform;

fuzz_target!(|data: &[u8]| {
    if data.len() < 89 {
        return;
    }
    // Mostly blanks, as in real puzzles: a byte above 159 is a digit.
    let cells: [u8; 81] = std::array::from_fn(|i| match data[i] {
        b @ 160.. => b % 9 + 1,
        _ => 0,
    });
    let seed = u64::from_le_bytes(data[81..89].try_into().unwrap());
    let grid = Grid::from_cells(cells).unwrap();
    let form = canonical(&grid);
    assert_eq!(
        canonical(&Transform::random(seed).apply(&grid)),
        form,
        "{grid}"
    );
    assert_eq!(canonical(&form), form);
    let counts = |g: &Grid| {
        let mut c: Vec<usize> = (1..=9)
            .map(|d| g.cells().iter().filter(|&&v| v == d).count())
            .collect();
        c.sort_unstable();
        (g.givens(), c)
    };
    assert_eq!(counts(&form), counts(&grid));
});
