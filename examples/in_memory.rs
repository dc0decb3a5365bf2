//! Baseline for the I/O overhead figure: the solver's in-memory time for the puzzles of a
//! line-format file, on one thread, with no reading, parsing or writing inside the timed loop.
//!
//! `cargo run --release --example in_memory -- FILE [PASSES]`, then compare with the
//! whole-process time of `sudoku-batch solve -j 1 FILE -o /dev/null` (see README.md, "Batch
//! engine"). With `PASSES` (default 1) it times that many passes and reports the median: a
//! small set such as magictour takes only milliseconds per pass. README.md ("Solver speed
//! against the peers") uses it to show the solver's two speeds on the dev VM.

use std::time::Instant;

use sudoku_batch::bench::median;
use sudoku_batch::line_puzzles;
use sudoku_batch::Grid;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: in_memory FILE [PASSES]");
    let passes: usize = args
        .next()
        .map(|n| n.parse().expect("PASSES is a positive number"))
        .unwrap_or(1)
        .max(1);
    let text = std::fs::read(&path).expect("readable file");
    let puzzles: Vec<Grid> = line_puzzles(&text).filter_map(|(_, p)| p.ok()).collect();
    let mut seconds = Vec::with_capacity(passes);
    let mut solved = 0u64;
    for _ in 0..passes {
        let started = Instant::now();
        solved = 0;
        for p in &puzzles {
            solved += u64::from(sudoku_batch::solve(p).solution.is_some());
        }
        seconds.push(started.elapsed().as_secs_f64());
    }
    let seconds = median(&mut seconds);
    println!(
        "{} puzzles, {solved} solved in memory on one thread: {seconds:.3} s, {:.0} puzzles/s",
        puzzles.len(),
        puzzles.len() as f64 / seconds
    );
}
