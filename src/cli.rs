//! Command-line flags only: clap types live here and are turned into engine configs in `main.rs`.
//! The engine modules never see clap.

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "sudoku-batch",
    version,
    about = "Fast batch Sudoku solver: every core, input order, nothing lost"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve every puzzle in INPUT; one output line per record, in input order.
    Solve(SolveArgs),
    /// Generate puzzles with exactly one solution each, reproducibly from a seed.
    ///
    /// Output: one 81-character line per puzzle, `.` for blanks, in index order. The same seed and
    /// options give the same file at any thread count.
    Generate(GenerateArgs),
    /// Benchmark the solver: puzzles/s, guesses and thread scaling, per file and mode.
    ///
    /// With no FILES, runs on the sets shipped in `data/`.
    Bench(BenchArgs),
}

#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Input file, or `-` for stdin.
    pub input: Option<std::path::PathBuf>,
}

/// How `generate` removes givens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GenerateMode {
    /// Kaggle-like: removals that leave a naked or hidden single only; default 36 clues. Fast.
    Easy,
    /// Removals checked by the solver's uniqueness count, down to the clue target (default 26).
    Unique,
    /// Every given is tried once: no given of the result can be removed.
    Minimal,
}

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Number of puzzles.
    #[arg(short = 'n', long = "count")]
    pub count: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Removal strategy.
    #[arg(long, value_enum, default_value_t = GenerateMode::Easy)]
    pub mode: GenerateMode,
    /// Clue target: stop removing at this many givens (easy and unique modes only). If 16 fresh grids
    /// cannot reach it, the puzzle with the fewest givens is kept and the shortfall reported.
    #[arg(long, value_parser = clap::value_parser!(u8).range(17..=80))]
    pub clues: Option<u8>,
    /// Worker threads (default: all cores). Does not change the output.
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Output file (written to a temporary name, renamed when complete); stdout if absent.
    #[arg(short = 'o', long)]
    pub output: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Line-format puzzle files (default: every data/*.txt).
    pub files: Vec<std::path::PathBuf>,
    /// Minimum warm-up seconds per run; the first warm-up pass validates every result.
    #[arg(long, default_value_t = 0.3)]
    pub warmup: f64,
    /// Minimum measured seconds per run (file x mode x thread count).
    #[arg(long, default_value_t = 1.0)]
    pub min_time: f64,
    /// Thread counts, e.g. `1,2,4` (default: 1, 2, 4, ... up to the cores, and the core count).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<Vec<u16>>,
    /// Print the results as JSON instead of Markdown tables.
    #[arg(long)]
    pub json: bool,
    /// Also write an SVG plot of puzzles/s against threads to FILE.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<std::path::PathBuf>,
}
