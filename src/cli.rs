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
}

#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Input file, or `-` for stdin.
    pub input: Option<std::path::PathBuf>,
}
