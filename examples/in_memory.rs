//! Baseline for the I/O overhead figure: the solver's in-memory time for the puzzles of a
//! line-format file, on one thread, with no reading, parsing or writing inside the timed loop.
//!
//! `cargo run --release --example in_memory -- FILE`, then compare with the whole-process time of
//! `sudoku-batch solve -j 1 FILE -o /dev/null` (see README.md, "Batch engine").

use std::time::Instant;

use sudoku_batch::formats::line;
use sudoku_batch::{solver, Grid};

fn main() {
    let path = std::env::args().nth(1).expect("usage: in_memory FILE");
    let text = std::fs::read(&path).expect("readable file");
    let puzzles: Vec<Grid> = line::puzzles(&text).filter_map(|(_, p)| p.ok()).collect();
    let started = Instant::now();
    let mut solved = 0u64;
    for p in &puzzles {
        solved += u64::from(solver::solve(p).solution.is_some());
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} puzzles, {solved} solved in memory on one thread: {seconds:.3} s, {:.0} puzzles/s",
        puzzles.len(),
        puzzles.len() as f64 / seconds
    );
}
