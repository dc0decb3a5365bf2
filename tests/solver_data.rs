//! Every puzzle of the public benchmark sets solves to a valid grid that keeps its givens; the
//! proper sets have exactly one solution and Serg's benchmark at least two.

mod common;

use sudoku_batch::Grid;

fn check_set(file: &str, expect_unique: bool) {
    for (i, line) in common::data_puzzles(file).iter().enumerate() {
        let puzzle = Grid::parse(line.as_bytes()).expect("data sets parse");
        let solved = sudoku_batch::solve(&puzzle);
        let solution = solved
            .solution
            .unwrap_or_else(|| panic!("{file} puzzle {}: no solution", i + 1));
        assert!(
            solution.solves(&puzzle),
            "{file} puzzle {}: bad solution",
            i + 1
        );
        let count = sudoku_batch::count(&puzzle, 2).solutions;
        if expect_unique {
            assert_eq!(count, 1, "{file} puzzle {}: {line}", i + 1);
        } else {
            assert_eq!(count, 2, "{file} puzzle {}: {line}", i + 1);
        }
    }
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn seventeen_clue_all_unique() {
    check_set("puzzles2_17_clue", true);
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn magictour_top1465_all_unique() {
    check_set("puzzles3_magictour_top1465", true);
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn forum_hardest_1905_11_all_unique() {
    check_set("puzzles5_forum_hardest_1905_11+", true);
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn forum_hardest_1106_all_unique() {
    check_set("puzzles6_forum_hardest_1106", true);
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn serg_benchmark_all_have_several_solutions() {
    check_set("puzzles7_serg_benchmark", false);
}
