//! Throughput of the minlex canonical form on one thread: `cargo run --release --example
//! canon_speed -- FILE`. Reads the first 81 characters of each non-comment line of FILE and
//! canonicalises the whole set, repeated until at least one second has passed.

use std::collections::HashSet;
use std::time::Instant;

use sudoku_batch::Canonicalizer;
use sudoku_batch::Grid;

fn main() {
    let path = std::env::args().nth(1).expect("usage: canon_speed FILE");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let puzzles: Vec<Grid> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.get(..81))
        .filter_map(|p| Grid::parse(p.as_bytes()).ok())
        .collect();
    assert!(!puzzles.is_empty(), "{path}: no puzzles");
    let mut canon = Canonicalizer::new();
    // Distinct forms in the set (isomorphs share one), counted before the timed passes.
    let forms: HashSet<Grid> = puzzles.iter().map(|p| canon.canonical(p)).collect();
    let mut done = 0usize;
    let started = Instant::now();
    while done == 0 || started.elapsed().as_secs_f64() < 1.0 {
        for p in &puzzles {
            std::hint::black_box(canon.canonical(std::hint::black_box(p)));
        }
        done += puzzles.len();
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{done} puzzles in {seconds:.3} s: {:.0} puzzles/s ({} in the set, {} distinct forms)",
        done as f64 / seconds,
        puzzles.len(),
        forms.len()
    );
}
