//! Single-thread, first-solution throughput of our solver and the `sudoku` crate (a JCZSolve
//! port, the peer) on the public sets, measured side by side in the same process.
//!
//! SUDOKU_DATA_DIR=../shared/data cargo bench --bench solvers
//!
//! Each round times one pass of ours and one pass of the peer over the whole set (alternating
//! which goes first), until `BENCH_SECONDS` (default 2) per set have passed and at least 5 rounds
//! ran. Rates are medians over rounds. The ratio is the median of the per-round ratios (ours over
//! the peer, each from two adjacent passes), with their range: a slow spell on a shared machine
//! hits both passes of a round, so paired ratios scatter less than the rates do. Parsing happens
//! before timing; every solution of ours is checked once before timing starts. The last column is
//! the guess count of the uniqueness check (`sudoku_batch::count(p, 2)`), untimed.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use sudoku_batch::bench::median;
use sudoku_batch::line_puzzles;
use sudoku_batch::Grid;

const SETS: [&str; 5] = [
    "puzzles2_17_clue",
    "puzzles3_magictour_top1465",
    "puzzles5_forum_hardest_1905_11+",
    "puzzles6_forum_hardest_1106",
    "puzzles7_serg_benchmark",
];

fn main() {
    let Some(dir) = std::env::var_os("SUDOKU_DATA_DIR").map(PathBuf::from) else {
        eprintln!("NOT RUN: set SUDOKU_DATA_DIR to the public data sets (../shared/data)");
        return;
    };
    let seconds: f64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));

    println!("| set | puzzles | sudoku-batch puzzles/s | `sudoku` crate puzzles/s | ratio (range over rounds) | guesses/puzzle | nodes/puzzle | no guess | guesses/puzzle, limit 2 |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for set in SETS {
        if only.as_deref().is_some_and(|o| !set.contains(o)) {
            continue;
        }
        let text = std::fs::read(dir.join(set)).expect("read data set");
        let ours: Vec<Grid> = line_puzzles(&text)
            .map(|(n, p)| p.unwrap_or_else(|e| panic!("{set}:{n}: {e}")))
            .collect();
        let peer: Vec<sudoku::Sudoku> = ours
            .iter()
            .map(|g| sudoku::Sudoku::from_str_line(&g.to_line()).expect("peer parse"))
            .collect();

        let mut guesses = 0u64;
        let mut nodes = 0u64;
        let mut no_guess = 0usize;
        let mut guesses_unique = 0u64;
        for p in &ours {
            let c = sudoku_batch::count(p, 2);
            assert!(c.solutions >= 1, "{set}: no solution counted for {p}");
            guesses_unique += c.guesses;
            let s = sudoku_batch::solve(p);
            assert!(
                s.solution.is_some_and(|g| g.solves(p)),
                "{set}: wrong solution for {p}"
            );
            guesses += s.guesses;
            nodes += s.nodes;
            no_guess += usize::from(s.guesses == 0);
        }

        let mut ours_rates = Vec::new();
        let mut peer_rates = Vec::new();
        let mut ratios = Vec::new();
        let start = Instant::now();
        let mut round = 0;
        while round < 5 || start.elapsed() < Duration::from_secs_f64(seconds) {
            let (a, b) = if round % 2 == 0 {
                let a = time_pass(|| pass_ours(&ours));
                (a, time_pass(|| pass_peer(&peer)))
            } else {
                let b = time_pass(|| pass_peer(&peer));
                (time_pass(|| pass_ours(&ours)), b)
            };
            ours_rates.push(ours.len() as f64 / a);
            peer_rates.push(peer.len() as f64 / b);
            ratios.push(b / a);
            round += 1;
        }
        let (o, p) = (median(&mut ours_rates), median(&mut peer_rates));
        let ratio = median(&mut ratios);
        // `median` sorted `ratios`.
        let (low, high) = (ratios[0], ratios[ratios.len() - 1]);
        println!(
            "| {set} | {} | {:.0} | {:.0} | {ratio:.2} ({low:.2}-{high:.2}) | {:.2} | {:.2} | {:.1}% | {:.2} |",
            ours.len(),
            o,
            p,
            guesses as f64 / ours.len() as f64,
            nodes as f64 / ours.len() as f64,
            100.0 * no_guess as f64 / ours.len() as f64,
            guesses_unique as f64 / ours.len() as f64,
        );
    }
}

fn pass_ours(puzzles: &[Grid]) -> usize {
    puzzles
        .iter()
        .filter(|p| {
            black_box(sudoku_batch::solve(black_box(p)))
                .solution
                .is_some()
        })
        .count()
}

fn pass_peer(puzzles: &[sudoku::Sudoku]) -> usize {
    puzzles
        .iter()
        .filter(|p| black_box(black_box(**p).some_solution()).is_some())
        .count()
}

fn time_pass(f: impl FnOnce() -> usize) -> f64 {
    let t = Instant::now();
    black_box(f());
    t.elapsed().as_secs_f64()
}
