//! Shared test helpers. The public benchmark sets are not the project's to ship: tests reach them
//! through `SUDOKU_DATA_DIR` (CI sets it to `../shared/data`) and say plainly when it is unset.
#![allow(dead_code)]

use std::path::PathBuf;

/// The public data directory, or `None` after printing that the calling test did not run.
pub fn data_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os("SUDOKU_DATA_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.is_dir(),
                "SUDOKU_DATA_DIR={} is not a directory",
                dir.display()
            );
            Some(dir)
        }
        None => {
            eprintln!("NOT RUN: {test}: SUDOKU_DATA_DIR is unset (set it to ../shared/data)");
            None
        }
    }
}

/// Puzzle lines of a tdoku-style data file: skips `#` comments and lines shorter than 81 bytes.
pub fn puzzle_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && l.len() >= 81)
        .map(|l| &l[..81])
        .collect()
}
